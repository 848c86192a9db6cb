//go:build !race

package postgres_test

// raceEnabled is true when the race detector slows every call down.
const raceEnabled = false

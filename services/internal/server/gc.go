package server

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// DefaultGCPercent is the garbage collector's target (GOGC) a service runs
// with when GOGC is not set. The services allocate per request and keep a
// small live heap, so at Go's default of 100 the collector ran several times
// a second under load: it took about 18 % of the gateway's CPU on the payment
// path, and 400 gave that back (bench/initbench, bench/RESULTS.md) for a heap
// target of five times the live heap, tens of megabytes.
const DefaultGCPercent = 400

// memoryLimitShare is the part of the container's memory limit that becomes
// the runtime's soft memory limit when GOMEMLIMIT is not set: near it the
// collector works harder, whatever its target, so the larger target never
// runs the container out of memory.
const memoryLimitShare = 0.85

// cgroupMemoryMax is cgroup v2's memory limit of this process's group.
const cgroupMemoryMax = "/sys/fs/cgroup/memory.max"

var tuneGCOnce sync.Once

// tuneGC applies the service defaults of the garbage collector, unless GOGC
// and GOMEMLIMIT say otherwise; New calls it once per process.
func tuneGC() {
	tuneGCOnce.Do(func() {
		percent, limit := gcSettings(os.Getenv, cgroupMemoryMax)
		if percent > 0 {
			debug.SetGCPercent(percent)
		}
		if limit > 0 {
			debug.SetMemoryLimit(limit)
		}
	})
}

// gcSettings is what tuneGC sets: a GC percent (0: leave GOGC's) and a soft
// memory limit in bytes (0: leave GOMEMLIMIT's, or none), from the
// environment and the cgroup memory limit file memoryMax ("max", or absent,
// when there is no limit).
func gcSettings(getenv func(string) string, memoryMax string) (percent int, limit int64) {
	if getenv("GOGC") == "" {
		percent = DefaultGCPercent
	}
	if getenv("GOMEMLIMIT") != "" {
		return percent, 0
	}
	b, err := os.ReadFile(memoryMax)
	if err != nil {
		return percent, 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 {
		return percent, 0
	}
	return percent, int64(float64(n) * memoryLimitShare)
}

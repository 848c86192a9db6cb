package identity

import "testing"

// BenchmarkVerifyPassword is the CPU and memory one sign-in costs (argon2id,
// m=19 MiB, t=2, p=1). Target: under 100 ms and about 19 MiB per attempt, so
// a 2-core auth replica absorbs ~20 sign-ins per second. Recorded in
// bench/README.md.
func BenchmarkVerifyPassword(b *testing.B) {
	hash, err := HashPassword("paygate-demo", DefaultArgon2)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := VerifyPassword(hash, "paygate-demo"); err != nil || !ok {
			b.Fatal("verify failed", err)
		}
	}
}

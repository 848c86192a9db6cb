package main

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/paygate/paygate/bench/internal/harness"
	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
)

// ---------------------------------------------------------------- phase 4

// totpCode is the RFC 6238 code (SHA-1, 6 digits, 30 s) of a base32
// secret for the step of t, as an authenticator app makes it.
func totpCode(secret string, t time.Time) string {
	c, err := hotp.GenerateCodeCustom(secret, uint64(t.Unix()/30), hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		fatalf("totp code: %v", err)
	}
	return c
}

// checkCode is the code check of a sign-in without its storage: the codes
// of the steps around now compared in constant time (what the service
// computes per code).
func checkCode(secret, code string, now time.Time) bool {
	ok := false
	for d := int64(-1); d <= 1; d++ {
		c, err := hotp.GenerateCodeCustom(secret, uint64(now.Unix()/30+d), hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			return false
		}
		ok = subtle.ConstantTimeCompare([]byte(c), []byte(code)) == 1 || ok
	}
	return ok
}

// enrolTOTP enrols a TOTP key for each of users through the API (sign in,
// begin, confirm with the previous step's code, so that the current and the
// next step stay free for the sign-in) and returns their secrets.
func enrolTOTP(base string, users []string) []string {
	secrets := make([]string, len(users))
	var (
		next atomic.Int64
		wg   sync.WaitGroup
		fail atomic.Value
	)
	t0 := time.Now()
	for range runtime.NumCPU() * 2 {
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= len(users) || fail.Load() != nil {
					return
				}
				access, _, err := signIn(base, users[k], *password)
				if err == nil {
					secrets[k], err = enrolOne(base, access)
				}
				if err != nil {
					fail.Store(fmt.Errorf("enrol %s: %w", users[k], err))
				}
			}
		})
	}
	wg.Wait()
	if err, _ := fail.Load().(error); err != nil {
		fatalf("%v", err)
	}
	fmt.Printf("  enrolled TOTP for %d users through the API in %s; load average %s\n", len(users), time.Since(t0).Round(time.Millisecond), harness.LoadAvg())
	return secrets
}

func enrolOne(base, access string) (string, error) {
	st, body, err := call("POST", base+"/api/v1/second-factor/totp/begin", access, []byte("{}"))
	if err != nil || st != http.StatusOK {
		return "", fmt.Errorf("begin: %d %s %v", st, body, err)
	}
	var begun authv1.BeginTotpEnrolmentResponse
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(body, &begun); err != nil {
		return "", err
	}
	secret := begun.GetEnrolment().GetSecret()
	// On a loaded machine the answer may come a step late: the code is
	// made again then (a refused first code changes nothing).
	for try := 0; ; try++ {
		code := totpCode(secret, time.Now().Add(-30*time.Second))
		st, body, err = call("POST", base+"/api/v1/second-factor/totp/confirm", access, fmt.Appendf(nil, `{"code":%q}`, code))
		if err == nil && st == http.StatusOK {
			return secret, nil
		}
		if try == 2 || err != nil || st != http.StatusBadRequest {
			return "", fmt.Errorf("confirm: %d %s %v", st, body, err)
		}
	}
}

// signInWithCode signs user in with its password, then its current code.
func signInWithCode(base, user, secret string) error {
	st, body, err := call("POST", base+"/api/v1/login", "", loginBody(user))
	if err != nil {
		return err
	}
	if st != http.StatusOK {
		return fmt.Errorf("login %s: %d %s", user, st, body)
	}
	var r authv1.LoginResponse
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(body, &r); err != nil {
		return err
	}
	if r.GetSecondFactor().GetChallenge() == "" {
		return fmt.Errorf("login %s: no second-factor challenge in %s", user, body)
	}
	req, _ := protojson.Marshal(&authv1.CompleteSecondFactorLoginRequest{Challenge: r.GetSecondFactor().GetChallenge(), Code: totpCode(secret, time.Now())})
	st, body, err = call("POST", base+"/api/v1/login/second-factor", "", req)
	if err != nil {
		return err
	}
	if st != http.StatusOK {
		return fmt.Errorf("second factor %s: %d %s", user, st, body)
	}
	return nil
}

// phaseSecondFactor measures sign-ins with a second factor at -twofa-rate
// against the ceiling of the same work without the service: a bare
// argon2id verification and a TOTP code check per sign-in, in-process, at
// the same rate. Each user signs in once (a code's step is spent by its
// use), so the phase needs rate × duration users.
func phaseSecondFactor(base string, names, hashes []string) {
	n := int(*twofaRate * twofaDur.Seconds())
	if n > len(names) {
		fatalf("phase 4 needs %d users (-twofa-rate × -twofa-duration); -users is %d", n, len(names))
	}
	// The users of phase 1 may hold the same names: phase 4 takes the last n.
	users, userHashes := names[len(names)-n:], hashes[len(hashes)-n:]
	fmt.Printf("\n## Phase 4: sign-in with a second factor, %d arrivals at %.0f/s (%s), %d distinct users\n", n, *twofaRate, *arrivals, n)
	secrets := enrolTOTP(base, users)
	waitIdle()

	// The ceiling: the work of a sign-in without the service, with at most
	// one hash per core at a time and the rest waiting in arrival order, as
	// the service bounds its hashing (identity.Service.hashSlots); all at
	// once, the hashes only slow each other down.
	sem := make(chan struct{}, runtime.NumCPU())
	la := harness.Load1()
	s, sent, done := openLoop(schedule(n, *twofaRate), func(i int) error {
		sem <- struct{}{}
		ok := verify(userHashes[i], *password)
		<-sem
		if !ok {
			return fmt.Errorf("bare verify of %s failed", users[i])
		}
		if !checkCode(secrets[i], totpCode(secrets[i], time.Now()), time.Now()) {
			return fmt.Errorf("bare code check of %s failed", users[i])
		}
		return nil
	})
	a, b, c := q(s.lat)
	record(row{phase: "4", what: fmt.Sprintf("CEILING: bare argon2id verify (at most %d at once, FIFO) + TOTP check, open loop", runtime.NumCPU()), n: s.ok, load: la + "→" + harness.Load1(),
		rate: fmt.Sprintf("%.1f/s (sent %.1f)", done, sent), p50: a, p95: b, p99: c, note: errNote(s.err)})
	ceil95 := p95(s.lat)
	runtime.GC()

	waitIdle()
	la = harness.Load1()
	c0 := cpuTime()
	s, sent, done = openLoop(schedule(n, *twofaRate), func(i int) error {
		return signInWithCode(base, users[i], secrets[i])
	})
	a, b, c = q(s.lat)
	la += "→" + harness.Load1()
	waitIdle()
	ratio := float64(p95(s.lat)) / float64(ceil95)
	record(row{phase: "4", what: "POST /login + POST /login/second-factor, open loop", n: s.ok, load: la,
		rate: fmt.Sprintf("%.1f/s (sent %.1f)", done, sent), p50: a, p95: b, p99: c,
		note: errNote(s.err) + cpuNote(c0, s.ok) + fmt.Sprintf("p95 / ceiling p95 = %.2f×; target ≤ 1.5×: %s", ratio, verdict(ratio <= 1.5 && s.err == 0))})
}

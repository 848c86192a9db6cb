package secondfactor

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
	"github.com/pquerna/otp/totp"
)

// Enrolment is a new TOTP key as the user's authenticator app takes it.
type Enrolment struct {
	// Secret is the key in base32 without padding (the manual key).
	Secret string
	// URL is the otpauth:// URL (the QR code).
	URL         string
	Issuer      string
	AccountName string
}

// newKey makes a random TOTP key for accountName.
func newKey(issuer, accountName string) (Enrolment, []byte, error) {
	secret := make([]byte, SecretSize)
	if _, err := rand.Read(secret); err != nil {
		return Enrolment{}, nil, fmt.Errorf("read totp secret: %w", err)
	}
	k, err := totp.Generate(totp.GenerateOpts{
		Issuer: issuer, AccountName: accountName, Period: uint(Period.Seconds()), Secret: secret,
		Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1,
	})
	if err != nil {
		return Enrolment{}, nil, fmt.Errorf("make totp key: %w", err)
	}
	return Enrolment{Secret: k.Secret(), URL: k.URL(), Issuer: issuer, AccountName: accountName}, secret, nil
}

// StepAt is the TOTP step (counter) of t.
func StepAt(t time.Time) int64 { return t.Unix() / int64(Period.Seconds()) }

// codeAt is the code of secret for step.
func codeAt(secret []byte, step int64) (string, error) {
	return hotp.GenerateCodeCustom(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(secret),
		uint64(step), hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
}

// NormalizeCode drops the spaces a user may type into a code and reports
// whether what is left is six digits.
func NormalizeCode(code string) (string, bool) {
	code = strings.Join(strings.Fields(code), "")
	if len(code) != Digits {
		return "", false
	}
	if _, err := strconv.ParseUint(code, 10, 32); err != nil {
		return "", false
	}
	return code, true
}

// matchStep returns the step within Skew of now whose code is code, or 0.
// Every candidate is compared, in time independent of which matched.
func matchStep(secret []byte, code string, now time.Time) (int64, error) {
	at := StepAt(now)
	var found int64
	for step := at - Skew; step <= at+Skew; step++ {
		want, err := codeAt(secret, step)
		if err != nil {
			return 0, fmt.Errorf("totp code: %w", err)
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && found == 0 {
			found = step
		}
	}
	return found, nil
}

// recoveryAlphabet leaves out the letters and digits a person confuses
// (i, l, o, 0, 1): 31 symbols, so 16 of them hold about 79 bits.
const recoveryAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

// recoveryCodeLen is the symbols of a recovery code, shown in groups of 4.
const recoveryCodeLen = 16

// newRecoveryCodes makes RecoveryCodeCount random codes, as shown.
func newRecoveryCodes() ([]string, error) {
	out := make([]string, RecoveryCodeCount)
	n := big.NewInt(int64(len(recoveryAlphabet)))
	for i := range out {
		var b strings.Builder
		for j := range recoveryCodeLen {
			if j > 0 && j%4 == 0 {
				b.WriteByte('-')
			}
			k, err := rand.Int(rand.Reader, n)
			if err != nil {
				return nil, fmt.Errorf("read recovery code: %w", err)
			}
			b.WriteByte(recoveryAlphabet[k.Int64()])
		}
		out[i] = b.String()
	}
	return out, nil
}

// NormalizeRecoveryCode lowercases a recovery code and drops spaces and
// dashes; ok is false when what is left cannot be a recovery code.
func NormalizeRecoveryCode(code string) (string, bool) {
	var b strings.Builder
	for _, r := range strings.ToLower(code) {
		switch {
		case r == '-' || r == ' ' || r == '\t':
		case strings.ContainsRune(recoveryAlphabet, r):
			b.WriteRune(r)
		default:
			return "", false
		}
	}
	if b.Len() != recoveryCodeLen {
		return "", false
	}
	return b.String(), true
}

// hashRecoveryCode is how a recovery code of userID is stored: the code has
// about 79 bits, so SHA-256 without salt or stretching suffices; the user id
// keeps equal codes of two users apart.
func hashRecoveryCode(userID int64, normalized string) []byte {
	h := sha256.Sum256([]byte(strconv.FormatInt(userID, 10) + ":" + normalized))
	return h[:]
}

// hashChallenge is how a sign-in challenge is stored (32 random bytes).
func hashChallenge(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// Package httpapi holds the gateway's plain-HTTP edges, those that serve
// callers outside grpc-gateway's routes: the merchant signature check in
// front of POST /api/v1/transactions/initialize, the providers' webhook
// endpoint, and the transaction stream (server-sent events).
package httpapi

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/server"
)

// Headers of a signed merchant call (docs/contracts-transactions.md).
const (
	HeaderMerchant  = "X-Paygate-Merchant"
	HeaderTimestamp = "X-Paygate-Timestamp"
	HeaderSignature = "X-Paygate-Signature"
	// MarkerMetadata is the gRPC metadata key that carries the verified
	// merchant from the middleware to the handler.
	MarkerMetadata = "paygate-verified-merchant"
	markerHeader   = "Grpc-Metadata-Paygate-Verified-Merchant"
	// SignatureVersion prefixes the signature's hex digest.
	SignatureVersion = "v1="
)

// MaxSkew is how far a signed call's timestamp may be from the server's
// clock; older calls are refused as replays.
const MaxSkew = 5 * time.Minute

// markerTTL bounds how long a marker is good for: it only has to cross the
// in-process channel.
const markerTTL = 30 * time.Second

// Sign returns the X-Paygate-Signature value of body sent at ts (Unix
// seconds) with secret: "v1=" and the hex HMAC-SHA256 of "<ts>.<body>".
func Sign(secret []byte, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(strconv.FormatInt(ts, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return SignatureVersion + hex.EncodeToString(mac.Sum(nil))
}

// ParseSignature reads a signature header value: "v1=" and 64 hex digits.
func ParseSignature(v string) ([]byte, error) {
	hexSum, ok := strings.CutPrefix(strings.TrimSpace(v), SignatureVersion)
	if !ok || len(hexSum) != 2*sha256.Size {
		return nil, errors.New("the signature must be v1= followed by 64 hex digits")
	}
	sum, err := hex.DecodeString(hexSum)
	if err != nil {
		return nil, errors.New("the signature must be v1= followed by 64 hex digits")
	}
	return sum, nil
}

// ParseTimestamp reads a timestamp header value: Unix seconds.
func ParseTimestamp(v string) (int64, error) {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 12 {
		return 0, errors.New("the timestamp must be Unix seconds")
	}
	ts, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ts <= 0 {
		return 0, errors.New("the timestamp must be Unix seconds")
	}
	return ts, nil
}

// Key is one API secret of a merchant that a signature may be made with.
type Key struct {
	// ID is the secret's id.
	ID int64
	// Secret is the HMAC key.
	Secret []byte
	// ExpiresAt is when the secret stops being accepted (zero: it does not
	// expire).
	ExpiresAt time.Time
}

// SecretLookup returns a merchant's id and the API secrets it still has by
// its hash; an unknown merchant, or one without a secret, is not found.
type SecretLookup func(ctx context.Context, merchantHash string) (int32, []Key, error)

// MerchantAuth checks merchants' signatures and marks verified calls.
type MerchantAuth struct {
	// Fresh, when set, is asked when the secret the lookup gave does not
	// verify a signature: the lookup may serve secrets from a cache older
	// than a secret just changed.
	Fresh SecretLookup
	// Used, when set, is told which secret verified a call, at most once
	// per UseInterval per secret (docs/contracts-merchants.md: lastUsedAt).
	Used func(ctx context.Context, secretID int64, at time.Time)

	lookup SecretLookup
	uses   sync.Map // secret id -> time.Time of the last Used call
	now    func() time.Time
	key    []byte
}

// NewMerchantAuth returns the check with a fresh random marker key, so that
// markers are good in this process only.
func NewMerchantAuth(lookup SecretLookup, now func() time.Time) (*MerchantAuth, error) {
	if now == nil {
		now = time.Now
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return &MerchantAuth{lookup: lookup, now: now, key: key}, nil
}

// UseInterval is how often at most a secret's use is recorded.
const UseInterval = time.Minute

const msgBadSignature = "The merchant signature is missing, wrong or too old. Sign the raw body as docs/contracts-transactions.md describes."

// Wrap returns next behind the check. A call with none of the signature
// headers passes unmarked (the bearer-token path); a call with any of them
// passes only when the signature is good, marked with its merchant. Any
// marker a client sent is removed first.
func (a *MerchantAuth) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(markerHeader)
		if r.Header.Get(HeaderMerchant) == "" && r.Header.Get(HeaderSignature) == "" && r.Header.Get(HeaderTimestamp) == "" {
			next.ServeHTTP(w, r)
			return
		}
		body, ok := server.ReadBody(w, r)
		if !ok {
			return
		}
		id, err := a.verify(r.Context(), r.Header, body)
		if err != nil {
			writeError(w, err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.Header.Set(markerHeader, a.marker(id, a.now()))
		next.ServeHTTP(w, r)
	})
}

// verify checks the signature headers against body and returns the
// merchant's id. Every failure is the same unauthenticated error, so that a
// caller cannot tell an unknown merchant from a bad signature.
func (a *MerchantAuth) verify(ctx context.Context, h http.Header, body []byte) (int32, error) {
	hash := strings.TrimSpace(h.Get(HeaderMerchant))
	ts, tsErr := ParseTimestamp(h.Get(HeaderTimestamp))
	sig, sigErr := ParseSignature(h.Get(HeaderSignature))
	if hash == "" || tsErr != nil || sigErr != nil {
		return 0, apperr.Unauthenticated(msgBadSignature)
	}
	if d := a.now().Sub(time.Unix(ts, 0)); d > MaxSkew || d < -MaxSkew {
		return 0, apperr.Unauthenticated(msgBadSignature)
	}
	now := a.now()
	id, keys, err := a.lookup(ctx, hash)
	if err != nil && apperr.KindOf(err) != apperr.KindNotFound {
		return 0, err
	}
	key, ok := a.match(keys, now, ts, body, sig)
	if !ok && a.Fresh != nil {
		if id, keys, err = a.Fresh(ctx, hash); err != nil && apperr.KindOf(err) != apperr.KindNotFound {
			return 0, err
		}
		key, ok = a.match(keys, now, ts, body, sig)
	}
	if !ok || err != nil {
		return 0, apperr.Unauthenticated(msgBadSignature)
	}
	a.used(ctx, key, now)
	return id, nil
}

// match returns the key among keys, still accepted at now, that made sig.
// Every key is tried (and the process key when there is none), so that the
// time spent does not tell which matched.
func (a *MerchantAuth) match(keys []Key, now time.Time, ts int64, body, sig []byte) (int64, bool) {
	var found int64
	ok := false
	if len(keys) == 0 {
		// Spend the same time as a real check.
		want, _ := ParseSignature(Sign(a.key, ts, body))
		_ = hmac.Equal(sig, want)
		return 0, false
	}
	for _, k := range keys {
		want, _ := ParseSignature(Sign(k.Secret, ts, body))
		if hmac.Equal(sig, want) && (k.ExpiresAt.IsZero() || k.ExpiresAt.After(now)) && !ok {
			found, ok = k.ID, true
		}
	}
	return found, ok
}

// used tells Used that secret id verified a call at now, unless it was told
// so within UseInterval.
func (a *MerchantAuth) used(ctx context.Context, id int64, now time.Time) {
	if a.Used == nil || id == 0 {
		return
	}
	if last, ok := a.uses.Load(id); ok && now.Sub(last.(time.Time)) < UseInterval {
		return
	}
	a.uses.Store(id, now)
	a.Used(ctx, id, now)
}

// marker is "<merchant id>.<unix ms>.<hex mac>" under the process key.
func (a *MerchantAuth) marker(id int32, at time.Time) string {
	payload := strconv.Itoa(int(id)) + "." + strconv.FormatInt(at.UnixMilli(), 10)
	mac := hmac.New(sha256.New, a.key)
	mac.Write([]byte(payload))
	return payload + "." + hex.EncodeToString(mac.Sum(nil))
}

// VerifiedMerchant reads the marker of a verified call: the merchant's id,
// or false when there is no good, fresh marker (a client cannot make one:
// it needs this process's key).
func (a *MerchantAuth) VerifiedMerchant(values []string) (int32, bool) {
	if len(values) != 1 {
		return 0, false
	}
	parts := strings.Split(values[0], ".")
	if len(parts) != 3 {
		return 0, false
	}
	id, err1 := strconv.ParseInt(parts[0], 10, 32)
	ms, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil || id <= 0 {
		return 0, false
	}
	at := time.UnixMilli(ms)
	if !hmac.Equal([]byte(a.marker(int32(id), at)), []byte(values[0])) {
		return 0, false
	}
	if age := a.now().Sub(at); age > markerTTL || age < -markerTTL {
		return 0, false
	}
	return int32(id), true
}

func writeError(w http.ResponseWriter, err error) { server.WriteError(w, err) }

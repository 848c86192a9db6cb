package authz

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Leeway is the clock skew tolerated on exp, nbf and iat.
const Leeway = 30 * time.Second

// Verifier checks an access token and returns its claims.
type Verifier interface {
	// Verify returns the claims of a valid token. A token that is malformed,
	// expired, not for us or not signed by a known key is KindUnauthenticated;
	// failing to obtain the keys is an internal error.
	Verify(ctx context.Context, token string) (*access.Claims, error)
}

// errKeySource marks failures to obtain keys, which are our fault and not the
// caller's.
var errKeySource = errors.New("key source")

// errUnknownKey is returned by key lookups for a kid they do not know.
var errUnknownKey = errors.New("unknown key id")

type keyVerifier struct {
	keys   func(ctx context.Context, kid string) (crypto.PublicKey, error)
	parser *jwt.Parser
	now    func() time.Time
	// verified remembers the tokens this verifier accepted (see Verify),
	// by the SHA-256 of the token.
	verified *lru.Cache[[sha256.Size]byte, verifiedToken]
	// parses counts full verifications (parse and signature check), for tests.
	parses atomic.Int64
}

// NewKeyVerifier returns a Verifier that looks up the public key of each
// token's kid with keys. The auth service uses it with its own signing keys.
// Any error from keys rejects the token as unauthenticated: the keys are
// local, so a failed lookup means a kid we never issued.
func NewKeyVerifier(keys func(kid string) (crypto.PublicKey, error)) Verifier {
	return newKeyVerifier(localKeys(keys))
}

// localKeys makes every failed lookup of keys an unknown kid.
func localKeys(keys func(kid string) (crypto.PublicKey, error)) func(context.Context, string) (crypto.PublicKey, error) {
	return func(_ context.Context, kid string) (crypto.PublicKey, error) {
		key, err := keys(kid)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %w", errUnknownKey, kid, err)
		}
		return key, nil
	}
}

func newKeyVerifier(keys func(ctx context.Context, kid string) (crypto.PublicKey, error)) *keyVerifier {
	return newKeyVerifierWithClock(keys, time.Now)
}

func newKeyVerifierWithClock(keys func(ctx context.Context, kid string) (crypto.PublicKey, error), now func() time.Time) *keyVerifier {
	verified, err := lru.New[[sha256.Size]byte, verifiedToken](verifiedTokens)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &keyVerifier{
		keys: keys,
		now:  now,
		parser: jwt.NewParser(
			jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}),
			jwt.WithIssuer(access.Issuer),
			jwt.WithAudience(access.Audience),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithLeeway(Leeway),
			jwt.WithTimeFunc(now),
		),
		verified: verified,
	}
}

// Verify implements Verifier.
//
// A token it accepted before is not parsed and its signature not checked
// again (a quarter of the CPU of a console read, issue 31): its claims come
// from the cache of verified tokens, keyed by the SHA-256 of the whole token,
// as long as the token has not expired (with Leeway) and its kid still looks
// up the very key that verified it, the same lookup a full check makes (so a
// key retired at auth stops verifying cached tokens when it stops verifying
// new ones). Everything else a full check decides cannot change for the same
// bytes. Each call gets claims of its own (a copy of the cached struct; the
// slices are shared and, like all claims, read-only).
func (v *keyVerifier) Verify(ctx context.Context, token string) (*access.Claims, error) {
	sum := sha256.Sum256([]byte(token))
	if e, ok := v.verified.Get(sum); ok && v.now().Before(e.until) {
		key, err := v.keys(ctx, e.kid)
		if pub, isEd := key.(ed25519.PublicKey); err == nil && isEd && pub.Equal(e.key) {
			claims := *e.claims
			return &claims, nil
		}
		// The key is gone or changed: the full check below says why.
	}
	v.parses.Add(1)
	claims := &access.Claims{}
	var (
		usedKid string
		usedKey ed25519.PublicKey
	)
	_, err := v.parser.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, fmt.Errorf("%w: token has no kid", errUnknownKey)
		}
		key, err := v.keys(ctx, kid)
		if err != nil {
			if errors.Is(err, errUnknownKey) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %w", errKeySource, err)
		}
		pub, ok := key.(ed25519.PublicKey)
		if !ok {
			return nil, fmt.Errorf("%w: key %s is a %T, not an Ed25519 key", errKeySource, kid, key)
		}
		usedKid, usedKey = kid, pub
		return key, nil
	})
	if err != nil {
		if errors.Is(err, errKeySource) {
			return nil, fmt.Errorf("verify token: %w", err)
		}
		return nil, apperr.New(apperr.KindUnauthenticated, err, "Your session is not valid or has expired. Please sign in again.")
	}
	if claims.Subject == "" {
		return nil, apperr.Unauthenticated("Your session is not valid. Please sign in again.")
	}
	// The parser requires an expiry, so ExpiresAt is set here.
	cached := *claims
	v.verified.Add(sum, verifiedToken{
		claims: &cached, kid: usedKid, key: usedKey,
		until: claims.ExpiresAt.Add(Leeway),
	})
	return claims, nil
}

// verifiedTokens bounds the cache of verified tokens (about 1 KB each with
// the claims): the least recently used goes first.
const verifiedTokens = 8192

// verifiedToken is what the cache keeps of an accepted token.
type verifiedToken struct {
	claims *access.Claims
	kid    string
	key    ed25519.PublicKey
	until  time.Time // expiry plus Leeway: not accepted from that instant
}

// JWKS refresh timing.
const (
	// jwksMinRefetch bounds how often an unknown kid may trigger a fetch.
	jwksMinRefetch = 30 * time.Second
	// jwksMaxAge is how long a fetched set is used before it is fetched again,
	// so retired keys stop being accepted.
	jwksMaxAge = 10 * time.Minute
)

// JWKSMaxAge is how long a JWKS verifier keeps using a fetched set: a key
// retired at auth is still accepted elsewhere for up to this long, and a key
// published at auth reaches every verifier within it even when no token
// names it.
const JWKSMaxAge = jwksMaxAge

type jwksVerifier struct {
	*keyVerifier
	url    string
	client *http.Client
	now    func() time.Time

	fetchMu sync.Mutex // serializes fetches

	mu        sync.RWMutex
	keys      map[string]ed25519.PublicKey
	fetchedAt time.Time // zero until the first successful fetch
	triedAt   time.Time // last fetch attempt, successful or not
}

// NewJWKSVerifier returns a Verifier that fetches the JWK set at url (the
// auth service's /.well-known/jwks.json) with client (http.DefaultClient when
// nil), caches it for ten minutes, and fetches it again when a token names an
// unknown kid, at most every 30 seconds.
func NewJWKSVerifier(url string, client *http.Client) Verifier {
	return newJWKSVerifier(url, client, time.Now)
}

func newJWKSVerifier(url string, client *http.Client, now func() time.Time) *jwksVerifier {
	if client == nil {
		client = http.DefaultClient
	}
	v := &jwksVerifier{url: url, client: client, now: now}
	v.keyVerifier = newKeyVerifier(v.key)
	return v
}

// key returns the key of kid, fetching the set when it is stale or does not
// know kid (rate-limited).
func (v *jwksVerifier) key(ctx context.Context, kid string) (crypto.PublicKey, error) {
	key, fresh, known := v.cached(kid)
	if known && fresh {
		return key, nil
	}
	v.fetchMu.Lock()
	defer v.fetchMu.Unlock()
	// Another caller may have fetched while this one waited.
	key, fresh, known = v.cached(kid)
	if known && fresh {
		return key, nil
	}
	v.mu.RLock()
	since := v.now().Sub(v.triedAt)
	everFetched := !v.fetchedAt.IsZero()
	v.mu.RUnlock()
	if everFetched && since < jwksMinRefetch {
		if known {
			return key, nil
		}
		return nil, fmt.Errorf("%w %q", errUnknownKey, kid)
	}
	if err := v.fetch(ctx); err != nil {
		if known {
			// A stale set still verifies tokens while the auth service is
			// unreachable.
			return key, nil
		}
		return nil, err
	}
	key, _, known = v.cached(kid)
	if !known {
		return nil, fmt.Errorf("%w %q", errUnknownKey, kid)
	}
	return key, nil
}

func (v *jwksVerifier) cached(kid string) (key ed25519.PublicKey, fresh, known bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	key, known = v.keys[kid]
	fresh = !v.fetchedAt.IsZero() && v.now().Sub(v.fetchedAt) < jwksMaxAge
	return key, fresh, known
}

func (v *jwksVerifier) fetch(ctx context.Context) error {
	v.mu.Lock()
	v.triedAt = v.now()
	v.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.url, nil)
	if err != nil {
		return fmt.Errorf("jwks request %s: %w", v.url, err)
	}
	resp, err := v.client.Do(req)
	if err != nil {
		return fmt.Errorf("fetch jwks %s: %w", v.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetch jwks %s: status %s", v.url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("read jwks %s: %w", v.url, err)
	}
	keys, err := ParseJWKS(body)
	if err != nil {
		return fmt.Errorf("jwks %s: %w", v.url, err)
	}
	v.mu.Lock()
	v.keys = keys
	v.fetchedAt = v.now()
	v.mu.Unlock()
	return nil
}

// jwk is one JSON Web Key; only Ed25519 OKP keys are used.
type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	Kid string `json:"kid"`
	X   string `json:"x"`
	Use string `json:"use,omitempty"`
	Alg string `json:"alg,omitempty"`
}

type jwkSet struct {
	Keys []jwk `json:"keys"`
}

// MarshalJWKS encodes Ed25519 public keys by kid as a JWK set (RFC 8037 OKP
// keys), ordered by kid.
func MarshalJWKS(keys map[string]ed25519.PublicKey) ([]byte, error) {
	set := jwkSet{Keys: make([]jwk, 0, len(keys))}
	for kid, key := range keys {
		if len(key) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("marshal jwks: key %q has %d bytes, want %d", kid, len(key), ed25519.PublicKeySize)
		}
		set.Keys = append(set.Keys, jwk{
			Kty: "OKP", Crv: "Ed25519", Kid: kid, Use: "sig", Alg: jwt.SigningMethodEdDSA.Alg(),
			X: base64.RawURLEncoding.EncodeToString(key),
		})
	}
	slices.SortFunc(set.Keys, func(a, b jwk) int {
		switch {
		case a.Kid < b.Kid:
			return -1
		case a.Kid > b.Kid:
			return 1
		}
		return 0
	})
	b, err := json.Marshal(set)
	if err != nil {
		return nil, fmt.Errorf("marshal jwks: %w", err)
	}
	return b, nil
}

// ParseJWKS decodes a JWK set, keeping its Ed25519 signing keys by kid and
// skipping keys of other types.
func ParseJWKS(data []byte) (map[string]ed25519.PublicKey, error) {
	var set jwkSet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("parse jwks: %w", err)
	}
	keys := make(map[string]ed25519.PublicKey, len(set.Keys))
	for _, k := range set.Keys {
		if k.Kty != "OKP" || k.Crv != "Ed25519" || k.Kid == "" || (k.Use != "" && k.Use != "sig") {
			continue
		}
		x, err := base64.RawURLEncoding.DecodeString(k.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("parse jwks: key %q has a malformed x", k.Kid)
		}
		keys[k.Kid] = ed25519.PublicKey(x)
	}
	return keys, nil
}

// Sign returns claims signed with key as a compact JWT (EdDSA, header kid).
// The auth service signs access tokens with it; tests mint tokens with it.
func Sign(key ed25519.PrivateKey, kid string, claims *access.Claims) (string, error) {
	t := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims)
	t.Header["kid"] = kid
	s, err := t.SignedString(key)
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	return s, nil
}

package identity

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/paygate/paygate/services/internal/access"
)

// SigningKey is one Ed25519 key that signs access tokens.
type SigningKey struct {
	ID      string
	Private ed25519.PrivateKey
}

// SigningKeyInfo is a signing key with its life: made at CreatedAt,
// signing from ActivatedAt (zero: published only, added ahead of a
// rotation), no longer published from RetiredAt (zero: live). Signing marks
// the key that signs now.
type SigningKeyInfo struct {
	SigningKey
	CreatedAt   time.Time
	ActivatedAt time.Time
	RetiredAt   time.Time
	Signing     bool
}

// KeySet signs access tokens with its signing key and answers for the public
// halves of all its keys, so tokens signed before a rotation stay valid, and
// a key added ahead of one is known before it signs. Replace swaps the keys
// while the set is in use (the replicas reload them from the database).
type KeySet struct {
	state atomic.Pointer[keyState]
}

type keyState struct {
	current SigningKey
	public  map[string]ed25519.PublicKey
}

// NewKeySet builds a key set; keys[0] signs.
func NewKeySet(keys []SigningKey) (*KeySet, error) {
	ks := &KeySet{}
	if err := ks.Replace(keys); err != nil {
		return nil, err
	}
	return ks, nil
}

// Replace makes keys the set's keys, keys[0] the signing one. On error the
// set keeps its keys.
func (ks *KeySet) Replace(keys []SigningKey) error {
	if len(keys) == 0 {
		return fmt.Errorf("key set needs at least one signing key")
	}
	st := &keyState{current: keys[0], public: make(map[string]ed25519.PublicKey, len(keys))}
	for _, k := range keys {
		if len(k.Private) != ed25519.PrivateKeySize {
			return fmt.Errorf("signing key %s: wrong size %d", k.ID, len(k.Private))
		}
		st.public[k.ID] = k.Private.Public().(ed25519.PublicKey)
	}
	ks.state.Store(st)
	return nil
}

// Current is the id (kid) of the key that signs.
func (ks *KeySet) Current() string { return ks.state.Load().current.ID }

// KeepLoaded replaces the set's keys with load's every interval until ctx
// ends, so that a key added, activated or retired in the database takes
// effect on every replica without a restart. A failed load is logged and the
// keys in use are kept.
func (ks *KeySet) KeepLoaded(ctx context.Context, load func(context.Context) ([]SigningKey, error), interval time.Duration, log *slog.Logger) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		keys, err := load(ctx)
		if err == nil {
			err = ks.sameOrReplace(keys, log)
		}
		if err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "could not reload the signing keys; keeping those in use", "error", err)
		}
	}
}

func (ks *KeySet) sameOrReplace(keys []SigningKey, log *slog.Logger) error {
	old := ks.state.Load()
	same := len(keys) == len(old.public) && len(keys) > 0 && keys[0].ID == old.current.ID
	for _, k := range keys {
		same = same && old.public[k.ID] != nil
	}
	if same {
		return nil
	}
	if err := ks.Replace(keys); err != nil {
		return err
	}
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = k.ID
	}
	log.Info("signing keys reloaded", "signing", keys[0].ID, "published", ids)
	return nil
}

// GenerateSigningKey makes a new random Ed25519 key with a random id.
func GenerateSigningKey() (SigningKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return SigningKey{}, fmt.Errorf("generate ed25519 key: %w", err)
	}
	return SigningKey{ID: uuid.NewString(), Private: priv}, nil
}

// PublicKeys returns the public keys by key id, for the JWKS.
func (ks *KeySet) PublicKeys() map[string]ed25519.PublicKey {
	st := ks.state.Load()
	out := make(map[string]ed25519.PublicKey, len(st.public))
	for kid, k := range st.public {
		out[kid] = k
	}
	return out
}

// PublicKey looks up the public key of kid for token verification.
func (ks *KeySet) PublicKey(kid string) (crypto.PublicKey, error) {
	k, ok := ks.state.Load().public[kid]
	if !ok {
		return nil, fmt.Errorf("unknown signing key %q", kid)
	}
	return k, nil
}

// CurrentKey is the key that signs now (confirmation tokens are signed
// with it too).
func (ks *KeySet) CurrentKey() SigningKey { return ks.state.Load().current }

// sign issues an access token for u in session sid; confirm is its cfm
// claim (the sensitive actions u must confirm).
func (ks *KeySet) sign(u User, sid string, now time.Time, ttl time.Duration, confirm ...string) (string, error) {
	claims := access.Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    access.Issuer,
			Audience:  jwt.ClaimStrings{access.Audience},
			Subject:   strconv.FormatInt(u.ID, 10),
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
			ID:        uuid.NewString(),
		},
		Username:            u.Username,
		Roles:               nonNil(u.Roles),
		Permissions:         nonNil(u.Permissions),
		Global:              u.Global,
		MerchantIDs:         nonNil(u.MerchantIDs),
		IsTemporaryPassword: u.IsTemporaryPassword,
		SessionID:           sid,
		IPRestricted:        u.IsIPRestricted,
		Version:             access.TokenVersion,
		Confirm:             confirm,
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims)
	current := ks.state.Load().current
	tok.Header["kid"] = current.ID
	s, err := tok.SignedString(current.Private)
	if err != nil {
		return "", fmt.Errorf("sign access token: %w", err)
	}
	return s, nil
}

// DeviceAudience is the audience of device cookies: a token made for it is
// no access token (verifiers require access.Audience).
const DeviceAudience = "paygate-device"

// signDevice issues the device cookie of a browser that signed in as
// username (OWASP's device cookies): a token naming the user, signed with
// the access-token key, with its own id for counting its failures.
func (ks *KeySet) signDevice(username string, now time.Time, ttl time.Duration) (string, error) {
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.RegisteredClaims{
		Issuer:    access.Issuer,
		Audience:  jwt.ClaimStrings{DeviceAudience},
		Subject:   strings.ToLower(username),
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
		ID:        uuid.NewString(),
	})
	current := ks.state.Load().current
	tok.Header["kid"] = current.ID
	s, err := tok.SignedString(current.Private)
	if err != nil {
		return "", fmt.Errorf("sign device token: %w", err)
	}
	return s, nil
}

// verifyDevice returns the id of token when it is a valid, unexpired device
// cookie for username, and "" otherwise.
func (ks *KeySet) verifyDevice(token, username string, now time.Time) string {
	if token == "" {
		return ""
	}
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		return ks.PublicKey(kid)
	}, jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}), jwt.WithAudience(DeviceAudience),
		jwt.WithIssuer(access.Issuer), jwt.WithExpirationRequired(), jwt.WithTimeFunc(func() time.Time { return now }))
	if err != nil || claims.Subject != strings.ToLower(username) || claims.ID == "" {
		return ""
	}
	return claims.ID
}

// nonNil turns a nil slice into an empty one so that claims carry [] rather
// than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// newRefreshToken returns a random opaque refresh token and its hash.
func newRefreshToken() (token string, hash []byte, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", nil, fmt.Errorf("read refresh token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, hashRefreshToken(token), nil
}

// hashRefreshToken is how refresh tokens are stored and looked up. The token
// has 256 bits of entropy, so a plain SHA-256 suffices (no salt or stretch).
func hashRefreshToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

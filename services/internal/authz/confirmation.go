package authz

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"errors"
	"fmt"

	"github.com/golang-jwt/jwt/v5"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/sensitive"
)

// ConfirmationVerifier checks a confirmation token (docs/contracts-approvals.md): signed by auth,
// audience paygate-confirmation, not expired.
type ConfirmationVerifier interface {
	// VerifyConfirmation returns the claims of a valid confirmation token. A malformed, expired
	// or foreign token is KindUnauthenticated; failing to obtain the keys is an internal error.
	VerifyConfirmation(ctx context.Context, token string) (*sensitive.Claims, error)
}

type confirmationVerifier struct {
	keys   func(ctx context.Context, kid string) (crypto.PublicKey, error)
	parser *jwt.Parser
}

// Confirmations returns a ConfirmationVerifier that uses the keys of v, a Verifier made by
// NewKeyVerifier or NewJWKSVerifier: confirmation tokens are signed with the access tokens' keys.
func Confirmations(v Verifier) ConfirmationVerifier {
	switch v := v.(type) {
	case *keyVerifier:
		return newConfirmationVerifier(v.keys)
	case *jwksVerifier:
		return newConfirmationVerifier(v.key)
	}
	panic(fmt.Sprintf("authz.Confirmations: %T is not a key or JWKS verifier", v))
}

// NewKeyConfirmationVerifier returns a ConfirmationVerifier over local keys (the auth service's).
func NewKeyConfirmationVerifier(keys func(kid string) (crypto.PublicKey, error)) ConfirmationVerifier {
	return Confirmations(NewKeyVerifier(keys))
}

func newConfirmationVerifier(keys func(ctx context.Context, kid string) (crypto.PublicKey, error)) *confirmationVerifier {
	return &confirmationVerifier{
		keys: keys,
		parser: jwt.NewParser(
			jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}),
			jwt.WithIssuer(access.Issuer),
			jwt.WithAudience(sensitive.Audience),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithLeeway(Leeway),
		),
	}
}

// VerifyConfirmation implements ConfirmationVerifier.
func (v *confirmationVerifier) VerifyConfirmation(ctx context.Context, token string) (*sensitive.Claims, error) {
	claims := &sensitive.Claims{}
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
		if _, ok := key.(ed25519.PublicKey); !ok {
			return nil, fmt.Errorf("%w: key %s is a %T, not an Ed25519 key", errKeySource, kid, key)
		}
		return key, nil
	})
	if err != nil {
		if errors.Is(err, errKeySource) {
			return nil, fmt.Errorf("verify confirmation: %w", err)
		}
		return nil, apperr.New(apperr.KindUnauthenticated, err, "Your confirmation is not valid or has expired. Please confirm the change again.")
	}
	if claims.Subject == "" || claims.ID == "" || claims.Action == "" {
		return nil, apperr.Unauthenticated("Your confirmation is not valid. Please confirm the change again.")
	}
	return claims, nil
}

// SignConfirmation signs a confirmation token with auth's signing key kid. It sets the issuer and
// the audience; the caller sets the subject, id (the confirmation id), times and the action.
func SignConfirmation(key ed25519.PrivateKey, kid string, c *sensitive.Claims) (string, error) {
	c.Issuer = access.Issuer
	c.Audience = jwt.ClaimStrings{sensitive.Audience}
	t := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c)
	t.Header["kid"] = kid
	return t.SignedString(key)
}

package passkey

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/paygate/paygate/services/internal/apperr"
)

// MsgConfirmRefused refuses an assertion that does not confirm a change
// (the details go to the log).
const MsgConfirmRefused = "The passkey did not confirm this change. Please try again."

// HasPasskey reports whether the user has a passkey.
func (s *Service) HasPasskey(ctx context.Context, userID int64) (bool, error) {
	creds, err := s.store.Credentials(ctx, userID)
	return len(creds) > 0, err
}

// RPID is the relying party id.
func (s *Service) RPID() string { return s.wa.Config.RPID }

// Origins are the relying party's origins.
func (s *Service) Origins() []string { return s.wa.Config.RPOrigins }

// confirmUser is the user of a confirmation with its passkeys.
func (s *Service) confirmUser(ctx context.Context, userID int64, username string) (*user, []Credential, error) {
	handle, err := s.store.UserHandle(ctx, userID, nil)
	if err != nil {
		return nil, nil, err
	}
	creds, err := s.store.Credentials(ctx, userID)
	if err != nil {
		return nil, nil, err
	}
	u := &user{handle: handle, name: username}
	for _, c := range creds {
		u.creds = append(u.creds, libCredential(c))
	}
	return u, creds, nil
}

// RequestOptions returns the PublicKeyCredentialRequestOptions (JSON) of a
// confirmation whose challenge the caller chose (bound to the change),
// naming the user's passkeys.
func (s *Service) RequestOptions(ctx context.Context, userID int64, username string, challenge []byte) ([]byte, error) {
	u, _, err := s.confirmUser(ctx, userID, username)
	if err != nil {
		return nil, err
	}
	assertion, _, err := s.wa.BeginLogin(u, webauthn.WithChallenge(challenge))
	if err != nil {
		return nil, fmt.Errorf("begin confirmation assertion: %w", libraryError(err))
	}
	return json.Marshal(assertion.Response)
}

// Assertion is a verified assertion's raw parts.
type Assertion struct {
	CredentialID, AuthenticatorData, ClientDataJSON, Signature []byte
}

// VerifyAssertion checks that an AuthenticationResponseJSON answers
// challenge with one of userID's passkeys (origin, relying party, signature,
// counter), and records the passkey's use as a sign-in does.
//
// Errors: Unauthenticated (MsgConfirmRefused, the cause for the log).
func (s *Service) VerifyAssertion(ctx context.Context, userID int64, challenge, response []byte) (Assertion, error) {
	a, err := s.verifyConfirmation(ctx, userID, challenge, response)
	var r *refusal
	if errors.As(err, &r) {
		s.log.WarnContext(ctx, "confirmation assertion refused", "user_id", userID, "reason", r.reason.Error())
		return Assertion{}, apperr.New(apperr.KindUnauthenticated, r.reason, MsgConfirmRefused)
	}
	return a, err
}

func (s *Service) verifyConfirmation(ctx context.Context, userID int64, challenge, response []byte) (Assertion, error) {
	parsed, err := protocol.ParseCredentialRequestResponseBytes(response)
	if err != nil {
		return Assertion{}, refused(err)
	}
	u, creds, err := s.confirmUser(ctx, userID, "")
	if err != nil {
		return Assertion{}, err
	}
	if len(u.creds) == 0 {
		return Assertion{}, errRefused("user %d has no passkey", userID)
	}
	// The same options as Begin: the session names the challenge and the
	// user's passkeys.
	_, session, err := s.wa.BeginLogin(u, webauthn.WithChallenge(challenge))
	if err != nil {
		return Assertion{}, fmt.Errorf("rebuild confirmation session: %w", libraryError(err))
	}
	lib, err := s.wa.ValidateLogin(u, *session, parsed)
	if err != nil {
		return Assertion{}, refused(err)
	}
	if lib.Authenticator.CloneWarning {
		return Assertion{}, errRefused("signature counter %d does not advance; possibly a cloned authenticator", parsed.Response.AuthenticatorData.Counter)
	}
	var cred Credential
	for _, c := range creds {
		if bytes.Equal(c.CredentialID, parsed.RawID) {
			cred = c
		}
	}
	if cred.ID == 0 {
		return Assertion{}, errRefused("unknown credential %x", parsed.RawID)
	}
	ok, err := s.store.RecordUse(ctx, cred.ID, lib.Authenticator.SignCount, Flags{
		UserPresent: lib.Flags.UserPresent, UserVerified: lib.Flags.UserVerified,
		BackupEligible: lib.Flags.BackupEligible, BackupState: lib.Flags.BackupState,
	}, s.now())
	if err != nil {
		return Assertion{}, err
	}
	if !ok {
		return Assertion{}, errRefused("passkey %d: signature counter %d lost a race; possibly a cloned authenticator", cred.ID, lib.Authenticator.SignCount)
	}
	return Assertion{
		CredentialID: parsed.RawID, AuthenticatorData: parsed.Raw.AssertionResponse.AuthenticatorData,
		ClientDataJSON: parsed.Raw.AssertionResponse.ClientDataJSON, Signature: parsed.Response.Signature,
	}, nil
}

// PublicKey returns the owner and COSE public key of a credential id.
//
// Errors: NotFound.
func (s *Service) PublicKey(ctx context.Context, credentialID []byte) (int64, []byte, error) {
	c, err := s.store.CredentialByCredentialID(ctx, credentialID)
	if err != nil {
		return 0, nil, err
	}
	return c.UserID, c.PublicKey, nil
}

package passkey

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Config is the relying party a Service acts as.
type Config struct {
	// RPID is the relying party id: the console's host name ("localhost",
	// "console.example.com"), which the authenticator hashes into its data.
	RPID string
	// RPDisplayName is the name authenticators show ("Paygate").
	RPDisplayName string
	// Origins are the origins the browser may report, such as
	// "http://localhost:8080".
	Origins []string
}

// userHandleLen is the length of the random user handle (at most 64).
const userHandleLen = 32

// Service runs the passkey ceremonies.
type Service struct {
	wa     *webauthn.WebAuthn
	store  Store
	signIn SignIn
	log    *slog.Logger
	now    func() time.Time
}

// New returns a Service. now may be nil for time.Now.
func New(cfg Config, store Store, signIn SignIn, log *slog.Logger, now func() time.Time) (*Service, error) {
	if now == nil {
		now = time.Now
	}
	wa, err := webauthn.New(&webauthn.Config{
		RPID:                  cfg.RPID,
		RPDisplayName:         cfg.RPDisplayName,
		RPOrigins:             cfg.Origins,
		AttestationPreference: protocol.PreferNoAttestation,
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			RequireResidentKey: protocol.ResidentKeyRequired(),
			ResidentKey:        protocol.ResidentKeyRequirementRequired,
			UserVerification:   protocol.VerificationPreferred,
		},
		// The browser's timeout matches the challenge's; the challenge's
		// expiry (stored with it) is what the server enforces.
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Timeout: ChallengeTTL, TimeoutUVD: ChallengeTTL},
			Registration: webauthn.TimeoutConfig{Timeout: ChallengeTTL, TimeoutUVD: ChallengeTTL},
		},
		// We request no extension and use none, so an output a password
		// manager adds unasked is harmless; refusing it would lock its
		// users out.
		ExtensionsUnsolicitedOutputPolicy: protocol.UnsolicitedOutputPolicyIgnore,
	})
	if err != nil {
		return nil, fmt.Errorf("webauthn relying party %q: %w", cfg.RPID, err)
	}
	// Build options once so that a bad relying party id or origin fails at
	// start rather than at the first ceremony.
	if _, _, err := wa.BeginDiscoverableLogin(); err != nil {
		return nil, fmt.Errorf("webauthn relying party %q: %w", cfg.RPID, err)
	}
	return &Service{wa: wa, store: store, signIn: signIn, log: log, now: now}, nil
}

// user is a Paygate user as go-webauthn sees it.
type user struct {
	handle []byte
	name   string
	creds  []webauthn.Credential
}

var _ webauthn.User = (*user)(nil)

func (u *user) WebAuthnID() []byte                         { return u.handle }
func (u *user) WebAuthnName() string                       { return u.name }
func (u *user) WebAuthnDisplayName() string                { return u.name }
func (u *user) WebAuthnCredentials() []webauthn.Credential { return u.creds }

// NormalizeName returns the passkey name of a registration: trimmed, and
// DefaultName when empty.
//
// Errors: Invalid (longer than MaxNameLen characters).
func NormalizeName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return DefaultName, nil
	}
	if utf8.RuneCountInString(name) > MaxNameLen {
		return "", apperr.Invalid("The passkey name must be at most %d characters long.", MaxNameLen)
	}
	return name, nil
}

// BeginRegistration returns the PublicKeyCredentialCreationOptions (JSON)
// of a new passkey of the caller named displayName, excluding the caller's
// existing passkeys.
//
// Errors: Invalid (name too long).
func (s *Service) BeginRegistration(ctx context.Context, caller Caller, displayName string) ([]byte, error) {
	name, err := NormalizeName(displayName)
	if err != nil {
		return nil, err
	}
	fresh := make([]byte, userHandleLen)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("draw user handle: %w", err)
	}
	handle, err := s.store.UserHandle(ctx, caller.UserID, fresh)
	if err != nil {
		return nil, err
	}
	existing, err := s.store.Credentials(ctx, caller.UserID)
	if err != nil {
		return nil, err
	}
	exclude := make([]protocol.CredentialDescriptor, 0, len(existing))
	for _, c := range existing {
		lib := libCredential(c)
		exclude = append(exclude, lib.Descriptor())
	}
	creation, session, err := s.wa.BeginRegistration(&user{handle: handle, name: caller.Username},
		webauthn.WithExclusions(exclude))
	if err != nil {
		return nil, fmt.Errorf("begin passkey registration: %w", err)
	}
	if err := s.saveChallenge(ctx, KindRegister, caller.UserID, name, session); err != nil {
		return nil, err
	}
	out, err := json.Marshal(creation.Response)
	if err != nil {
		return nil, fmt.Errorf("encode creation options: %w", err)
	}
	return out, nil
}

func (s *Service) saveChallenge(ctx context.Context, kind Kind, userID int64, name string, session *webauthn.SessionData) error {
	data, err := json.Marshal(session)
	if err != nil {
		return fmt.Errorf("encode webauthn session: %w", err)
	}
	now := s.now()
	return s.store.SaveChallenge(ctx, Challenge{
		Challenge: session.Challenge, Kind: kind, UserID: userID, SessionData: data,
		DisplayName: name, ExpiresAt: now.Add(ChallengeTTL),
	}, now)
}

// consume takes the challenge the client data names off the store, refusing
// an unknown, used or expired one with an error whose cause is for the log.
func (s *Service) consume(ctx context.Context, clientChallenge string, kind Kind, userID int64) (webauthn.SessionData, Challenge, error) {
	var session webauthn.SessionData
	key := strings.TrimRight(clientChallenge, "=")
	if key == "" {
		return session, Challenge{}, errRefused("the client data names no challenge")
	}
	ch, err := s.store.ConsumeChallenge(ctx, key, kind, userID)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return session, Challenge{}, errRefused("unknown or already used %s challenge", kind)
	}
	if err != nil {
		return session, Challenge{}, err
	}
	if !s.now().Before(ch.ExpiresAt) {
		return session, Challenge{}, errRefused("%s challenge expired at %s", kind, ch.ExpiresAt.Format(time.RFC3339))
	}
	if err := json.Unmarshal(ch.SessionData, &session); err != nil {
		return session, Challenge{}, fmt.Errorf("decode webauthn session: %w", err)
	}
	return session, ch, nil
}

// refusal is a ceremony refused for a reason meant for the log only.
type refusal struct{ reason error }

func (r *refusal) Error() string { return r.reason.Error() }
func (r *refusal) Unwrap() error { return r.reason }

func errRefused(format string, args ...any) error {
	return &refusal{reason: fmt.Errorf(format, args...)}
}

// refused wraps a library error (or a refusal) as a refusal.
func refused(err error) error {
	var r *refusal
	if errors.As(err, &r) {
		return err
	}
	return &refusal{reason: libraryError(err)}
}

// libraryError adds go-webauthn's debugging details to its error text.
func libraryError(err error) error {
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.DevInfo != "" {
		return fmt.Errorf("%w (%s)", err, pe.DevInfo)
	}
	return err
}

// FinishRegistration verifies the authenticator's answer (the browser's
// RegistrationResponseJSON) against the caller's challenge, stores the
// passkey and publishes UserAudited (passkey.registered) with it.
//
// Errors: Invalid (the answer did not verify: MsgNotVerified), Conflict
// (credential stored already).
func (s *Service) FinishRegistration(ctx context.Context, caller Caller, response []byte) (Credential, error) {
	cred, err := s.finishRegistration(ctx, caller, response)
	var r *refusal
	if errors.As(err, &r) {
		s.log.WarnContext(ctx, "passkey registration refused", "user_id", caller.UserID, "reason", r.reason.Error())
		return Credential{}, apperr.New(apperr.KindInvalid, r.reason, MsgNotVerified)
	}
	return cred, err
}

func (s *Service) finishRegistration(ctx context.Context, caller Caller, response []byte) (Credential, error) {
	parsed, err := protocol.ParseCredentialCreationResponseBytes(response)
	if err != nil {
		return Credential{}, refused(err)
	}
	session, ch, err := s.consume(ctx, parsed.Response.CollectedClientData.Challenge, KindRegister, caller.UserID)
	if err != nil {
		return Credential{}, err
	}
	handle, err := s.store.UserHandle(ctx, caller.UserID, nil)
	if err != nil {
		return Credential{}, err
	}
	lib, err := s.wa.CreateCredential(&user{handle: handle, name: caller.Username}, session, parsed)
	if err != nil {
		return Credential{}, refused(err)
	}
	c := Credential{
		UserID: caller.UserID, CredentialID: lib.ID, PublicKey: lib.PublicKey,
		AttestationType: lib.AttestationType, AttestationFormat: lib.AttestationFormat,
		AAGUID: lib.Authenticator.AAGUID, SignCount: lib.Authenticator.SignCount,
		Flags: Flags{
			UserPresent: lib.Flags.UserPresent, UserVerified: lib.Flags.UserVerified,
			BackupEligible: lib.Flags.BackupEligible, BackupState: lib.Flags.BackupState,
		},
		Description: ch.DisplayName,
	}
	for _, t := range lib.Transport {
		c.Transports = append(c.Transports, string(t))
	}
	if c.Description == "" {
		c.Description = DefaultName
	}
	err = s.store.Tx(ctx, func(tx Tx) error {
		var err error
		if c, err = tx.InsertCredential(ctx, c); err != nil {
			return err
		}
		return tx.Publish(ctx, s.audit(caller, ActionRegistered, nil, map[string]any{"description": c.Description}))
	})
	if err != nil {
		return Credential{}, err
	}
	s.log.InfoContext(ctx, "passkey registered", "user_id", caller.UserID, "passkey_id", c.ID)
	return c, nil
}

// audit builds the UserAudited event of a change the caller made to their
// own passkeys.
func (s *Service) audit(caller Caller, action string, before, after map[string]any) *eventsv1.UserAudited {
	ev := &eventsv1.UserAudited{
		Id: uuid.NewString(), Action: action,
		ActorUserId: caller.UserID, ActorUsername: caller.Username, ActorIp: caller.IP,
		TargetUserId: caller.UserID, TargetUsername: caller.Username,
		At: timestamppb.New(s.now()),
	}
	// The values are texts, which structpb always takes.
	if before != nil {
		ev.Before, _ = structpb.NewStruct(before)
	}
	if after != nil {
		ev.After, _ = structpb.NewStruct(after)
	}
	return ev
}

// BeginLogin returns the PublicKeyCredentialRequestOptions (JSON) of a
// discoverable sign-in: they name no credential and no user.
func (s *Service) BeginLogin(ctx context.Context) ([]byte, error) {
	assertion, session, err := s.wa.BeginDiscoverableLogin()
	if err != nil {
		return nil, fmt.Errorf("begin passkey sign-in: %w", err)
	}
	if err := s.saveChallenge(ctx, KindLogin, 0, "", session); err != nil {
		return nil, err
	}
	out, err := json.Marshal(assertion.Response)
	if err != nil {
		return nil, fmt.Errorf("encode request options: %w", err)
	}
	return out, nil
}

// FinishLogin verifies an assertion (the browser's
// AuthenticationResponseJSON) and starts a session through SignIn: the
// challenge is single-use, the origin, relying party id, user handle and
// signature must match, and the signature counter must advance (a counter
// that does not, when either it or the stored one is not 0, is refused as
// a possibly cloned authenticator).
//
// Errors: Unauthenticated (identity.MsgInvalidPasskey), TooManyRequests,
// Forbidden (disabled user, IP not allowed).
func (s *Service) FinishLogin(ctx context.Context, response []byte, client identity.Client) (identity.TokenPair, error) {
	parsed, parseErr := protocol.ParseCredentialRequestResponseBytes(response)
	attempt := identity.PasskeyAttempt{CredentialKey: "unreadable"}
	var (
		cred  Credential
		found bool
	)
	if parseErr == nil {
		sum := sha256.Sum256(parsed.RawID)
		attempt.CredentialKey = hex.EncodeToString(sum[:12])
		var err error
		cred, err = s.store.CredentialByCredentialID(ctx, parsed.RawID)
		switch apperr.KindOf(err) {
		case "":
			found, attempt.UserID = true, cred.UserID
		case apperr.KindNotFound:
		default:
			return identity.TokenPair{}, err
		}
	}
	attempt.Verify = func(ctx context.Context) error {
		var err error
		if parseErr != nil {
			err = refused(parseErr)
		} else {
			err = s.verifyAssertion(ctx, parsed, cred, found)
		}
		var r *refusal
		if errors.As(err, &r) {
			return apperr.New(apperr.KindUnauthenticated, r.reason, identity.MsgInvalidPasskey)
		}
		return err
	}
	return s.signIn.SignInWithPasskey(ctx, attempt, client)
}

// VerifyPasskey verifies an assertion (AuthenticationResponseJSON) on a
// challenge of BeginLogin without signing in, and returns the id of the
// passkey's owner: proof that the caller holds one of its passkeys (to
// disable a second factor). The challenge is spent and the passkey's use
// recorded, as for a sign-in.
//
// Errors: Unauthenticated (MsgInvalidPasskey, whatever failed).
func (s *Service) VerifyPasskey(ctx context.Context, response []byte) (int64, error) {
	parsed, err := protocol.ParseCredentialRequestResponseBytes(response)
	if err != nil {
		return 0, apperr.New(apperr.KindUnauthenticated, err, identity.MsgInvalidPasskey)
	}
	cred, err := s.store.CredentialByCredentialID(ctx, parsed.RawID)
	found := err == nil
	if err != nil && apperr.KindOf(err) != apperr.KindNotFound {
		return 0, err
	}
	err = s.verifyAssertion(ctx, parsed, cred, found)
	var r *refusal
	if errors.As(err, &r) {
		return 0, apperr.New(apperr.KindUnauthenticated, r.reason, identity.MsgInvalidPasskey)
	}
	if err != nil {
		return 0, err
	}
	return cred.UserID, nil
}

func (s *Service) verifyAssertion(ctx context.Context, parsed *protocol.ParsedCredentialAssertionData, cred Credential, found bool) error {
	// The challenge goes first, whatever follows: an answer spends it.
	session, _, err := s.consume(ctx, parsed.Response.CollectedClientData.Challenge, KindLogin, 0)
	if err != nil {
		return err
	}
	if !found {
		return errRefused("unknown credential %x", parsed.RawID)
	}
	if len(parsed.Response.UserHandle) == 0 {
		return errRefused("the assertion carries no user handle")
	}
	owner, err := s.store.UserIDByHandle(ctx, parsed.Response.UserHandle)
	if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && owner != cred.UserID) {
		return errRefused("the user handle does not belong to the owner of passkey %d", cred.ID)
	}
	if err != nil {
		return err
	}
	u := &user{handle: parsed.Response.UserHandle, creds: []webauthn.Credential{libCredential(cred)}}
	_, lib, err := s.wa.ValidatePasskeyLogin(func(rawID, userHandle []byte) (webauthn.User, error) {
		if !bytes.Equal(rawID, cred.CredentialID) || !bytes.Equal(userHandle, u.handle) {
			return nil, errors.New("credential or user handle changed")
		}
		return u, nil
	}, session, parsed)
	if err != nil {
		return refused(err)
	}
	if lib.Authenticator.CloneWarning {
		return errRefused("passkey %d: signature counter %d does not advance past %d; possibly a cloned authenticator",
			cred.ID, parsed.Response.AuthenticatorData.Counter, cred.SignCount)
	}
	ok, err := s.store.RecordUse(ctx, cred.ID, lib.Authenticator.SignCount, Flags{
		UserPresent: lib.Flags.UserPresent, UserVerified: lib.Flags.UserVerified,
		BackupEligible: lib.Flags.BackupEligible, BackupState: lib.Flags.BackupState,
	}, s.now())
	if err != nil {
		return err
	}
	if !ok {
		return errRefused("passkey %d: signature counter %d lost a race with another sign-in; possibly a cloned authenticator",
			cred.ID, lib.Authenticator.SignCount)
	}
	return nil
}

// libCredential is c as go-webauthn stores credentials.
func libCredential(c Credential) webauthn.Credential {
	var flags protocol.AuthenticatorFlags
	for bit, on := range map[protocol.AuthenticatorFlags]bool{
		protocol.FlagUserPresent: c.Flags.UserPresent, protocol.FlagUserVerified: c.Flags.UserVerified,
		protocol.FlagBackupEligible: c.Flags.BackupEligible, protocol.FlagBackupState: c.Flags.BackupState,
	} {
		if on {
			flags |= bit
		}
	}
	transports := make([]protocol.AuthenticatorTransport, len(c.Transports))
	for i, t := range c.Transports {
		transports[i] = protocol.AuthenticatorTransport(t)
	}
	return webauthn.Credential{
		ID: c.CredentialID, PublicKey: c.PublicKey,
		AttestationType: c.AttestationType, AttestationFormat: c.AttestationFormat,
		Transport: transports, Flags: webauthn.NewCredentialFlags(flags),
		Authenticator: webauthn.Authenticator{AAGUID: c.AAGUID, SignCount: c.SignCount},
	}
}

// List returns the caller's passkeys, oldest first.
func (s *Service) List(ctx context.Context, caller Caller) ([]Credential, error) {
	return s.store.Credentials(ctx, caller.UserID)
}

// Delete removes one of the caller's passkeys and publishes UserAudited
// (passkey.deleted).
//
// Errors: NotFound (no such passkey of the caller).
func (s *Service) Delete(ctx context.Context, caller Caller, id int64) error {
	err := s.store.Tx(ctx, func(tx Tx) error {
		c, err := tx.DeleteCredential(ctx, caller.UserID, id)
		if err != nil {
			return err
		}
		return tx.Publish(ctx, s.audit(caller, ActionDeleted, map[string]any{"description": c.Description}, nil))
	})
	if apperr.KindOf(err) == apperr.KindNotFound {
		return apperr.NotFound(MsgNotFound)
	}
	if err != nil {
		return err
	}
	s.log.InfoContext(ctx, "passkey deleted", "user_id", caller.UserID, "passkey_id", id)
	return nil
}

package confirmation

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-webauthn/webauthn/protocol/webauthncose"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/sensitive"
)

// Config tunes a Service.
type Config struct {
	// ApprovalTTL is how long a request waits for approval (24h).
	ApprovalTTL time.Duration
	// SettingsCache is how long the step-up setting and the policies are
	// cached for the tokens' cfm claim (5s).
	SettingsCache time.Duration
}

// Service runs confirmations and approvals.
type Service struct {
	store    Store
	passkeys Passkeys
	totp     TOTP
	sealer   Sealer
	decode   Decoder
	sign     Signer
	apply    Applier
	log      *slog.Logger
	now      func() time.Time
	cfg      Config

	mu         sync.Mutex
	cached     *cfmState
	cachedAt   time.Time
	refreshing bool
}

type cfmState struct {
	settings Settings
	policies []Policy
}

// New returns a Service. now may be nil for time.Now.
func New(store Store, passkeys Passkeys, totp TOTP, sealer Sealer, decode Decoder, sign Signer, apply Applier, log *slog.Logger, now func() time.Time, cfg Config) *Service {
	if cfg.ApprovalTTL <= 0 {
		cfg.ApprovalTTL = DefaultApprovalTTL
	}
	if cfg.SettingsCache <= 0 {
		cfg.SettingsCache = 5 * time.Second
	}
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, passkeys: passkeys, totp: totp, sealer: sealer, decode: decode, sign: sign, apply: apply, log: log, now: now, cfg: cfg}
}

// Begun is the answer of Begin.
type Begun struct {
	ID             string
	Summary        []string
	Title          string
	Method         string
	PublicKey      []byte
	ExpiresAt      time.Time
	Digest         string
	ReasonRequired bool
	// Policy is the matching policy (nil when none).
	Policy *Policy
	// Canonical is the description the user signs.
	Canonical string
}

func requestAAD(confirmationID string) string { return "confirmation:" + confirmationID }

// Begin starts the confirmation of one described call: action is the
// canonical description the owning service answered, request the call's
// protobuf bytes. The description is rebuilt here from the request, the
// observed values and reason, so that what the user signs is the server's.
//
// Errors: Invalid (a field), FailedPrecondition (MsgNoSecondFactor).
func (s *Service) Begin(ctx context.Context, c Caller, action string, request []byte, reason string) (Begun, error) {
	d, err := sensitive.Parse([]byte(action))
	if err != nil {
		return Begun{}, apperr.New(apperr.KindInvalid, err, "action is not the description of a sensitive change.")
	}
	a, ok := sensitive.ByMethod(d.Method)
	if !ok || a.Name != d.Action {
		return Begun{}, apperr.Invalid("action names %q with method %q, which is not a sensitive action.", d.Action, d.Method)
	}
	msg, err := s.decode(d.Method, request)
	if err != nil {
		return Begun{}, apperr.New(apperr.KindInvalid, err, "request is not a request of %s.", d.Method)
	}
	reason = strings.TrimSpace(reason)
	if a.ReasonRequired && reason == "" {
		return Begun{}, apperr.Invalid("reason is required for this change.")
	}
	if len(reason) > 1000 {
		return Begun{}, apperr.Invalid("reason must be at most 1000 characters long.")
	}
	desc, err := sensitive.Describe(a, msg, d.Observed, reason)
	if err != nil {
		return Begun{}, apperr.New(apperr.KindInvalid, err, "request cannot be described.")
	}
	canonical := desc.Canonical()
	st, err := s.state(ctx, false)
	if err != nil {
		return Begun{}, err
	}
	var policy *Policy
	if a.Name != ApproveAction {
		policy = matchPolicy(st.policies, a, desc)
	}
	method, err := s.methodFor(ctx, c, st.settings, a)
	if err != nil {
		return Begun{}, err
	}
	nonce := make([]byte, 32)
	if _, err := rand.Read(nonce); err != nil {
		return Begun{}, fmt.Errorf("read nonce: %w", err)
	}
	now := s.now()
	rec := Record{
		ID: uuid.NewString(), UserID: c.ID, Action: a.Name, Method: a.Method, Canonical: string(canonical),
		Digest: sensitive.Digest(canonical), Nonce: base64.RawURLEncoding.EncodeToString(nonce), Kind: method,
		Reason: reason, CreatedAt: now, ExpiresAt: now.Add(ChallengeTTL).Truncate(time.Second),
	}
	if policy != nil {
		rec.PolicyID, rec.ApproverPermission = policy.ID, policy.ApproverPermission
	}
	if rec.RequestKeyID, rec.RequestSealed, err = s.sealer.SealID(request, requestAAD(rec.ID)); err != nil {
		return Begun{}, fmt.Errorf("seal request: %w", err)
	}
	out := Begun{ID: rec.ID, Summary: summary(a, desc), Title: a.Title, Method: method, ExpiresAt: rec.ExpiresAt,
		Digest: rec.Digest, ReasonRequired: a.ReasonRequired, Policy: policy, Canonical: rec.Canonical}
	if method == sensitive.ProofWebAuthn {
		ch := sensitive.Challenge(canonical, c.ID, rec.Nonce, rec.ExpiresAt)
		if out.PublicKey, err = s.passkeys.RequestOptions(ctx, c.ID, c.Username, ch); err != nil {
			return Begun{}, err
		}
	}
	if err := s.store.InsertConfirmation(ctx, rec); err != nil {
		return Begun{}, err
	}
	return out, nil
}

// methodFor decides how the caller confirms action a.
func (s *Service) methodFor(ctx context.Context, c Caller, st Settings, a sensitive.Action) (string, error) {
	pk, err := s.passkeys.HasPasskey(ctx, c.ID)
	if err != nil {
		return "", err
	}
	if pk {
		return sensitive.ProofWebAuthn, nil
	}
	totp, err := s.totp.Enrolled(ctx, c.ID)
	if err != nil {
		return "", err
	}
	if totp {
		return sensitive.ProofTOTP, nil
	}
	if a.AlwaysStepUp || concerns(st, c.Global, a.Name) {
		return "", apperr.FailedPrecondition(MsgNoSecondFactor)
	}
	return sensitive.ProofNone, nil
}

// concerns reports whether the setting asks step-up of a user (admin-wide
// or not) for action.
func concerns(st Settings, global bool, action string) bool {
	switch st.Scope {
	case ScopeEveryone:
	case ScopeAdminWide:
		if !global {
			return false
		}
	default:
		return false
	}
	return slices.Contains(st.Actions, action)
}

// Summary says in plain words what a description does, one line each.
func Summary(d sensitive.Described) []string {
	a, _ := sensitive.ByName(d.Action)
	if a.Title == "" {
		a.Title = d.Action
	}
	return summary(a, d)
}

// summary says in plain words what is signed, one line each.
func summary(a sensitive.Action, d sensitive.Described) []string {
	lines := []string{a.Title + "."}
	for _, k := range sortedKeys(d.Targets) {
		lines = append(lines, fmt.Sprintf("Target %s: %s", k, show(d.Targets[k])))
	}
	for _, k := range sortedKeys(d.Values) {
		if _, target := d.Targets[k]; target {
			continue
		}
		lines = append(lines, fmt.Sprintf("New %s: %s", k, show(d.Values[k])))
	}
	for _, k := range sortedKeys(d.Observed) {
		lines = append(lines, fmt.Sprintf("Currently %s: %s", k, show(d.Observed[k])))
	}
	if d.Reason != "" {
		lines = append(lines, "Reason: "+d.Reason)
	}
	return lines
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func show(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// matchPolicy returns the first policy (by id) that the described change
// meets, or nil.
func matchPolicy(policies []Policy, a sensitive.Action, d sensitive.Described) *Policy {
	for _, p := range policies {
		if p.Action != a.Name {
			continue
		}
		if p.MinAmount != "" {
			amount, currency, ok := d.Amount(a)
			if !ok || (p.Currency != "" && !strings.EqualFold(p.Currency, currency)) {
				continue
			}
			have, ok1 := new(big.Rat).SetString(amount)
			want, ok2 := new(big.Rat).SetString(p.MinAmount)
			if !ok1 || !ok2 || have.Cmp(want) < 0 {
				continue
			}
		}
		if p.MinCount > 0 {
			n, ok := d.Count(a)
			if !ok || n <= int(p.MinCount) {
				continue
			}
		}
		return &p
	}
	return nil
}

// Finished is the answer of Finish: a token, or the request created.
type Finished struct {
	Token   string
	Request *Request
}

// Finish answers a begun confirmation with a passkey assertion
// (AuthenticationResponseJSON) or a TOTP code.
//
// Errors: NotFound, Conflict (used or expired), Invalid (a field),
// Unauthenticated (assertion or code refused), TooManyRequests.
func (s *Service) Finish(ctx context.Context, c Caller, id, assertion, code string) (Finished, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Finished{}, apperr.NotFound(MsgNotFound)
	}
	rec, err := s.store.Confirmation(ctx, id)
	if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && rec.UserID != c.ID) {
		return Finished{}, apperr.NotFound(MsgNotFound)
	}
	if err != nil {
		return Finished{}, err
	}
	if rec.UsedAt != nil {
		return Finished{}, apperr.Conflict(MsgUsed)
	}
	now := s.now()
	if !now.Before(rec.ExpiresAt) {
		return Finished{}, apperr.Conflict(MsgExpired)
	}
	proof := sensitive.Proof{Kind: rec.Kind, Role: sensitive.RoleActor, UserID: c.ID, Username: c.Username,
		ConfirmationID: rec.ID, Action: rec.Canonical, Digest: rec.Digest, Nonce: rec.Nonce, ExpiresAt: rec.ExpiresAt.Unix()}
	switch rec.Kind {
	case sensitive.ProofWebAuthn:
		if assertion == "" {
			return Finished{}, apperr.Invalid("assertion is required: confirm with your passkey.")
		}
		ch := sensitive.Challenge([]byte(rec.Canonical), c.ID, rec.Nonce, rec.ExpiresAt)
		as, err := s.passkeys.VerifyAssertion(ctx, c.ID, ch, []byte(assertion))
		if err != nil {
			return Finished{}, err
		}
		enc := base64.RawURLEncoding.EncodeToString
		proof.CredentialID, proof.AuthenticatorData = enc(as.CredentialID), enc(as.AuthenticatorData)
		proof.ClientDataJSON, proof.Signature = enc(as.ClientDataJSON), enc(as.Signature)
	case sensitive.ProofTOTP:
		if strings.TrimSpace(code) == "" {
			return Finished{}, apperr.Invalid("totpCode is required: enter the current code from your authenticator app.")
		}
		code = strings.Join(strings.Fields(code), "")
		step, err := s.totp.VerifyCode(ctx, c.ID, code, c.IP)
		if err != nil {
			return Finished{}, err
		}
		mac, err := s.totpMAC(ctx, code, rec.Digest)
		if err != nil {
			return Finished{}, err
		}
		proof.Step, proof.MAC = step, mac
	}
	var out Finished
	err = s.store.Tx(ctx, func(tx Tx) error {
		ok, err := tx.UseConfirmation(ctx, rec.ID, c.ID, now)
		if err != nil {
			return err
		}
		if !ok {
			return apperr.Conflict(MsgUsed)
		}
		if err := tx.SetConfirmationProof(ctx, rec.ID, proof); err != nil {
			return err
		}
		if rec.ApproverPermission == "" {
			return nil
		}
		proof.Role = sensitive.RoleRequester
		r, err := tx.InsertRequest(ctx, Request{
			ConfirmationID: rec.ID, RequestedBy: c.ID, RequestedByUsername: c.Username, Action: rec.Action, Method: rec.Method,
			Canonical: rec.Canonical, Digest: rec.Digest, RequestKeyID: rec.RequestKeyID, RequestSealed: rec.RequestSealed,
			Reason: rec.Reason, RequesterProof: proof, ApproverPermission: rec.ApproverPermission, PolicyID: rec.PolicyID,
			Status: StatusPending, ExpiresAt: now.Add(s.cfg.ApprovalTTL), CreatedAt: now,
		})
		if err != nil {
			return err
		}
		out.Request = &r
		return s.publish(ctx, tx, c, AuditRequested, r, now)
	})
	if err != nil || out.Request != nil {
		return out, err
	}
	out.Token, err = s.sign(&sensitive.Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject: strconv.FormatInt(c.ID, 10), ID: rec.ID,
			IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(TokenTTL)),
		},
		Action: rec.Canonical, Digest: rec.Digest, Proof: rec.Kind, Proofs: []sensitive.Proof{proof},
	})
	return out, err
}

// proofKeyName names the HMAC key of TOTP proofs.
const proofKeyName = "totp-proof"

// totpMAC is base64url(HMAC-SHA256(proof key, code ‖ digest)).
func (s *Service) totpMAC(ctx context.Context, code, digest string) (string, error) {
	keyID, sealed, err := s.store.ProofKey(ctx, func() (string, []byte, error) {
		k := make([]byte, 32)
		if _, err := rand.Read(k); err != nil {
			return "", nil, err
		}
		return s.sealer.SealID(k, proofKeyName)
	})
	if err != nil {
		return "", fmt.Errorf("proof key: %w", err)
	}
	key, err := s.sealer.OpenID(keyID, sealed, proofKeyName)
	if err != nil {
		return "", fmt.Errorf("open proof key: %w", err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(code))
	m.Write([]byte(digest))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)), nil
}

// Verdict is the answer of VerifyProof.
type Verdict struct {
	Valid    bool
	Kind     string
	Reason   string
	UserID   int64
	Username string
}

// VerifyProof re-verifies a stored proof (JSON): a WebAuthn signature
// against the stored public key of its credential over the challenge
// recomputed from the proof's action, user, nonce and expiry, the relying
// party and the ceremony type; or a TOTP proof's MAC.
func (s *Service) VerifyProof(ctx context.Context, proofJSON string) (Verdict, error) {
	var p sensitive.Proof
	if err := json.Unmarshal([]byte(proofJSON), &p); err != nil {
		return Verdict{}, apperr.New(apperr.KindInvalid, err, "proof is not a proof object (JSON).")
	}
	v := Verdict{Kind: p.Kind, UserID: p.UserID, Username: p.Username}
	reason, err := s.check(ctx, p)
	if err != nil {
		return Verdict{}, err
	}
	v.Valid, v.Reason = reason == "", reason
	return v, nil
}

// check returns why p does not hold ("" when it does).
func (s *Service) check(ctx context.Context, p sensitive.Proof) (string, error) {
	if sensitive.Digest([]byte(p.Action)) != p.Digest {
		return "The digest does not match the signed action.", nil
	}
	switch p.Kind {
	case sensitive.ProofWebAuthn:
		return s.checkWebAuthn(ctx, p)
	case sensitive.ProofTOTP:
		if p.Step == 0 || p.MAC == "" {
			return "The TOTP proof has no step or MAC.", nil
		}
		code, err := s.totp.CodeAt(ctx, p.UserID, p.Step)
		if apperr.KindOf(err) == apperr.KindNotFound {
			return "The user's authenticator key is gone; this proof can no longer be checked.", nil
		}
		if err != nil {
			return "", err
		}
		want, err := s.totpMAC(ctx, code, p.Digest)
		if err != nil {
			return "", err
		}
		if !hmac.Equal([]byte(want), []byte(p.MAC)) {
			return "The MAC does not match the code of that step and the digest.", nil
		}
		return "", nil
	case sensitive.ProofNone:
		return "A proof of kind none carries no signature: step-up did not concern the user.", nil
	}
	return fmt.Sprintf("Unknown proof kind %q.", p.Kind), nil
}

func (s *Service) checkWebAuthn(ctx context.Context, p sensitive.Proof) (string, error) {
	dec := base64.RawURLEncoding.DecodeString
	credID, err1 := dec(p.CredentialID)
	authData, err2 := dec(p.AuthenticatorData)
	clientData, err3 := dec(p.ClientDataJSON)
	sig, err4 := dec(p.Signature)
	if err := errors.Join(err1, err2, err3, err4); err != nil || len(credID) == 0 || len(authData) < 37 {
		return "The assertion fields are not unpadded base64url, or are missing.", nil
	}
	challenge := sensitive.Challenge([]byte(p.Action), p.UserID, p.Nonce, time.Unix(p.ExpiresAt, 0))
	var cd struct {
		Type      string `json:"type"`
		Challenge string `json:"challenge"`
		Origin    string `json:"origin"`
	}
	if err := json.Unmarshal(clientData, &cd); err != nil {
		return "The client data is not JSON.", nil
	}
	if cd.Type != "webauthn.get" {
		return fmt.Sprintf("The client data's type is %q, not webauthn.get.", cd.Type), nil
	}
	if strings.TrimRight(cd.Challenge, "=") != base64.RawURLEncoding.EncodeToString(challenge) {
		return "The signed challenge is not the one of this action, user, nonce and expiry.", nil
	}
	if !slices.Contains(s.passkeys.Origins(), cd.Origin) {
		return fmt.Sprintf("The origin %q is not one of the console's.", cd.Origin), nil
	}
	rpHash := sha256.Sum256([]byte(s.passkeys.RPID()))
	if !bytes.Equal(authData[:32], rpHash[:]) {
		return "The authenticator data is not for this relying party.", nil
	}
	owner, cose, err := s.passkeys.PublicKey(ctx, credID)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return "The passkey is no longer registered; its public key is gone.", nil
	}
	if err != nil {
		return "", err
	}
	if owner != p.UserID {
		return "The passkey does not belong to the user of the proof.", nil
	}
	key, err := webauthncose.ParsePublicKey(cose)
	if err != nil {
		return "", fmt.Errorf("parse public key of passkey: %w", err)
	}
	cdHash := sha256.Sum256(clientData)
	ok, err := webauthncose.VerifySignature(key, append(append([]byte{}, authData...), cdHash[:]...), sig)
	if err != nil || !ok {
		return "The signature does not verify with the passkey's public key.", nil
	}
	return "", nil
}

// ActionInfo is one sensitive action with its step-up state.
type ActionInfo struct {
	Name, Title    string
	StepUp         bool
	ReasonRequired bool
	AlwaysStepUp   bool
}

// Overview is the list of actions, the scope and the policies.
type Overview struct {
	Actions  []ActionInfo
	Scope    string
	Policies []Policy
}

// state returns the setting and policies, cached unless fresh.
func (s *Service) state(ctx context.Context, fresh bool) (*cfmState, error) {
	s.mu.Lock()
	if !fresh && s.cached != nil && s.now().Sub(s.cachedAt) < s.cfg.SettingsCache {
		st := s.cached
		s.mu.Unlock()
		return st, nil
	}
	s.mu.Unlock()
	st, ok, err := s.store.StepUp(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		st = DefaultSettings()
	}
	policies, err := s.store.Policies(ctx)
	if err != nil {
		return nil, err
	}
	out := &cfmState{settings: st, policies: policies}
	s.mu.Lock()
	s.cached, s.cachedAt = out, s.now()
	s.mu.Unlock()
	return out, nil
}

// forget reloads the cache after a change made here.
func (s *Service) forget(ctx context.Context) {
	if _, err := s.state(ctx, true); err != nil {
		s.mu.Lock()
		s.cached = nil
		s.mu.Unlock()
	}
}

// tokenState is the state for a token's claim: the cached one, even stale
// (a stale one is refreshed in the background), so that issuing a token
// inside its transaction never waits for a second connection; read now only
// when nothing is cached yet (wire warms it at start).
func (s *Service) tokenState(ctx context.Context) (*cfmState, error) {
	s.mu.Lock()
	st, stale := s.cached, s.cached == nil || s.now().Sub(s.cachedAt) >= s.cfg.SettingsCache
	start := st != nil && stale && !s.refreshing
	if start {
		s.refreshing = true
	}
	s.mu.Unlock()
	if st == nil {
		return s.state(ctx, true)
	}
	if start {
		go func() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if _, err := s.state(ctx, true); err != nil {
				s.log.WarnContext(ctx, "could not reload the step-up settings; keeping those cached", "err", err)
			}
			s.mu.Lock()
			s.refreshing = false
			s.mu.Unlock()
		}()
	}
	return st, nil
}

// Confirm is the cfm claim of a user's access token: the actions the
// setting asks step-up of them for, those an approval policy covers, and
// approval.approve, in catalogue order.
func (s *Service) Confirm(ctx context.Context, global bool) ([]string, error) {
	st, err := s.tokenState(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range sensitive.Names() {
		a, _ := sensitive.ByName(name)
		if a.AlwaysStepUp || concerns(st.settings, global, name) ||
			slices.ContainsFunc(st.policies, func(p Policy) bool { return p.Action == name }) {
			out = append(out, name)
		}
	}
	return out, nil
}

// Overview lists the actions with the setting and the policies.
func (s *Service) Overview(ctx context.Context) (Overview, error) {
	st, err := s.state(ctx, true)
	if err != nil {
		return Overview{}, err
	}
	return Overview{Actions: actionInfos(st.settings), Scope: st.settings.Scope, Policies: st.policies}, nil
}

func actionInfos(st Settings) []ActionInfo {
	var out []ActionInfo
	for _, name := range sensitive.Names() {
		a, _ := sensitive.ByName(name)
		out = append(out, ActionInfo{Name: a.Name, Title: a.Title, StepUp: a.AlwaysStepUp || (st.Scope != ScopeNone && slices.Contains(st.Actions, name)),
			ReasonRequired: a.ReasonRequired, AlwaysStepUp: a.AlwaysStepUp})
	}
	return out
}

// UpdateStepUp replaces the step-up setting.
//
// Errors: Invalid (scope, actions).
func (s *Service) UpdateStepUp(ctx context.Context, c Caller, actions []string, scope string) (Overview, error) {
	if scope != ScopeAdminWide && scope != ScopeEveryone && scope != ScopeNone {
		return Overview{}, apperr.Invalid("scope must be one of admin_wide, everyone and none.")
	}
	var names []string
	for _, a := range actions {
		if _, ok := sensitive.ByName(a); !ok {
			return Overview{}, apperr.Invalid("actions: %q is not a sensitive action.", a)
		}
	}
	for _, n := range sensitive.Names() {
		if slices.Contains(actions, n) {
			names = append(names, n)
		}
	}
	if names == nil {
		names = []string{}
	}
	next := Settings{Scope: scope, Actions: names}
	old, err := s.state(ctx, true)
	if err != nil {
		return Overview{}, err
	}
	now := s.now()
	err = s.store.Tx(ctx, func(tx Tx) error {
		if err := tx.PutStepUp(ctx, next, c.ID, now); err != nil {
			return err
		}
		return tx.Publish(ctx, auditEvent(c, AuditStepUpUpdated, 0, "",
			map[string]any{"scope": old.settings.Scope, "actions": anyList(old.settings.Actions)},
			map[string]any{"scope": next.Scope, "actions": anyList(next.Actions)}, now))
	})
	if err != nil {
		return Overview{}, err
	}
	s.forget(ctx)
	return s.Overview(ctx)
}

var decimalRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// checkPolicy validates and normalizes a policy.
func checkPolicy(p Policy) (Policy, error) {
	p.Action = strings.TrimSpace(p.Action)
	a, ok := sensitive.ByName(p.Action)
	if !ok {
		return p, apperr.Invalid("action: %q is not a sensitive action.", p.Action)
	}
	if a.Name == ApproveAction {
		return p, apperr.Invalid("action: approving a request cannot itself need approval.")
	}
	if !slices.Contains(access.AllPermissions, p.ApproverPermission) {
		return p, apperr.Invalid("approverPermission: %q is not a permission.", p.ApproverPermission)
	}
	p.MinAmount = strings.TrimSpace(p.MinAmount)
	if p.MinAmount != "" {
		if !decimalRE.MatchString(p.MinAmount) {
			return p, apperr.Invalid("minAmount must be a non-negative decimal number, such as 1000 or 99.50.")
		}
		if a.Amount == "" {
			return p, apperr.Invalid("minAmount: the action %s has no amount.", a.Name)
		}
	}
	p.Currency = strings.ToUpper(strings.TrimSpace(p.Currency))
	if p.Currency != "" {
		if len(p.Currency) != 3 || strings.Trim(p.Currency, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
			return p, apperr.Invalid("currency must be a three-letter code, such as EUR.")
		}
		if p.MinAmount == "" {
			return p, apperr.Invalid("currency goes with minAmount: set both, or neither.")
		}
	}
	if p.MinCount < 0 {
		return p, apperr.Invalid("minCount must not be negative.")
	}
	if p.MinCount > 0 && a.Count == "" {
		return p, apperr.Invalid("minCount: the action %s has no list of items.", a.Name)
	}
	return p, nil
}

func policyFields(p Policy) map[string]any {
	return map[string]any{"id": float64(p.ID), "action": p.Action, "approverPermission": p.ApproverPermission,
		"minAmount": p.MinAmount, "currency": p.Currency, "minCount": float64(p.MinCount)}
}

// Policies lists the policies.
func (s *Service) Policies(ctx context.Context) ([]Policy, error) { return s.store.Policies(ctx) }

// CreatePolicy adds a policy. Errors: Invalid (a field).
func (s *Service) CreatePolicy(ctx context.Context, c Caller, p Policy) (Policy, error) {
	p, err := checkPolicy(p)
	if err != nil {
		return Policy{}, err
	}
	now := s.now()
	err = s.store.Tx(ctx, func(tx Tx) error {
		if p, err = tx.InsertPolicy(ctx, p, c.ID, now); err != nil {
			return err
		}
		return tx.Publish(ctx, auditEvent(c, AuditPolicyCreated, 0, "", nil, policyFields(p), now))
	})
	s.forget(ctx)
	return p, err
}

// UpdatePolicy replaces a policy. Errors: Invalid, NotFound.
func (s *Service) UpdatePolicy(ctx context.Context, c Caller, p Policy) (Policy, error) {
	p, err := checkPolicy(p)
	if err != nil {
		return Policy{}, err
	}
	now := s.now()
	err = s.store.Tx(ctx, func(tx Tx) error {
		old, err := tx.UpdatePolicy(ctx, p)
		if err != nil {
			return err
		}
		return tx.Publish(ctx, auditEvent(c, AuditPolicyUpdated, 0, "", policyFields(old), policyFields(p), now))
	})
	s.forget(ctx)
	return p, err
}

// DeletePolicy removes a policy. Errors: NotFound.
func (s *Service) DeletePolicy(ctx context.Context, c Caller, id int32) error {
	now := s.now()
	err := s.store.Tx(ctx, func(tx Tx) error {
		old, err := tx.DeletePolicy(ctx, id)
		if err != nil {
			return err
		}
		return tx.Publish(ctx, auditEvent(c, AuditPolicyDeleted, 0, "", policyFields(old), nil, now))
	})
	s.forget(ctx)
	return err
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

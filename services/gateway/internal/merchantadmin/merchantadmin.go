// Package merchantadmin changes merchants from the console: adding one,
// editing its name, contact and status, and its API secrets (creation,
// rotation with an overlap window, revocation), each change with its
// activity entry (docs/contracts-merchants.md).
package merchantadmin

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Limits of the input.
const (
	// MaxName is the longest name and contact name, in characters.
	MaxName = 100
	// MaxEmail is the longest contact e-mail address.
	MaxEmail = 254
	// DefaultOverlap is how long the other secrets stay accepted after a
	// new one is created, unless the call says otherwise.
	DefaultOverlap = 24 * time.Hour
	// MaxOverlap is the longest overlap a call may ask for.
	MaxOverlap = 30 * 24 * time.Hour
	// MaxLiveSecrets is how many secrets that are still accepted a merchant
	// may have at once.
	MaxLiveSecrets = 10
)

// States of a secret.
const (
	StateActive   = "active"
	StateExpiring = "expiring"
	StateExpired  = "expired"
	StateRevoked  = "revoked"
)

// Secret is one API secret of a merchant, without its value.
type Secret struct {
	ID         int64
	MerchantID int32
	CreatedAt  time.Time
	CreatedBy  string
	// LastUsedAt is when it last verified a signature (zero: never).
	LastUsedAt time.Time
	// ExpiresAt is when it stops being accepted (zero: it does not expire).
	ExpiresAt time.Time
	// RevokedAt is when it was revoked (zero: it was not).
	RevokedAt time.Time
}

// State returns the secret's state at now.
func (s Secret) State(now time.Time) string {
	switch {
	case !s.RevokedAt.IsZero():
		return StateRevoked
	case s.ExpiresAt.IsZero():
		return StateActive
	case s.ExpiresAt.After(now):
		return StateExpiring
	default:
		return StateExpired
	}
}

// Live reports whether the secret is still accepted at now.
func (s Secret) Live(now time.Time) bool {
	st := s.State(now)
	return st == StateActive || st == StateExpiring
}

// Sealer seals a merchant's secret value (the keyring of the payment path,
// with the merchant as associated data).
type Sealer func(value []byte, merchantID int32) ([]byte, error)

// Store keeps merchants and their secrets. Every change runs in one store
// transaction with its journal, so that its activity entry commits with it
// or not at all.
type Store interface {
	// Merchant returns one merchant (not found when unknown).
	Merchant(ctx context.Context, id int32) (merchant.Merchant, error)
	// CreateMerchant stores m under a new id and calls record with the
	// merchant stored. A merchant of the same name (any case) is a
	// conflict.
	CreateMerchant(ctx context.Context, m merchant.Merchant,
		record func(ctx context.Context, j activity.Journal, m merchant.Merchant) error) (merchant.Merchant, error)
	// UpdateMerchant locks merchant id, calls change with it and stores
	// what change answers (nothing when change answers ErrUnchanged).
	UpdateMerchant(ctx context.Context, id int32,
		change func(ctx context.Context, j activity.Journal, old merchant.Merchant) (merchant.Merchant, error)) (merchant.Merchant, error)
	// Secrets returns a merchant's secrets, newest first.
	Secrets(ctx context.Context, merchantID int32) ([]Secret, error)
	// CreateSecret locks the merchant, calls change with it and its
	// secrets, then stores the new secret sealed, sets expiresAt on every
	// secret id in expire, and answers the new secret.
	CreateSecret(ctx context.Context, merchantID int32, by string,
		change func(ctx context.Context, j activity.Journal, m merchant.Merchant, secrets []Secret) (sealed []byte, expire []int64, expiresAt time.Time, err error)) (Secret, error)
	// RevokeSecret locks the merchant, calls check with it and the secret,
	// then marks the secret revoked at at.
	RevokeSecret(ctx context.Context, merchantID int32, secretID int64, at time.Time,
		check func(ctx context.Context, j activity.Journal, m merchant.Merchant, s Secret) error) (Secret, error)
}

// ErrUnchanged tells UpdateMerchant that nothing is to be written.
var ErrUnchanged = apperr.Invalid("nothing changed")

// Service changes merchants for callers in scope.
type Service struct {
	store Store
	seal  Sealer
	now   func() time.Time
}

// NewService returns the service on store.
func NewService(store Store, seal Sealer, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, seal: seal, now: now}
}

// Fields are the changeable fields of a merchant; nil leaves one as it is.
type Fields struct {
	Name, ContactName, ContactEmail *string
	Disabled                        *bool
}

func validate(f Fields, creating bool) (Fields, error) {
	var problems []string
	trim := func(p *string) *string {
		if p == nil {
			return nil
		}
		v := strings.TrimSpace(*p)
		return &v
	}
	f.Name, f.ContactName, f.ContactEmail = trim(f.Name), trim(f.ContactName), trim(f.ContactEmail)
	if creating && f.Name == nil {
		f.Name = new(string)
	}
	if f.Name != nil && (*f.Name == "" || utf8.RuneCountInString(*f.Name) > MaxName) {
		problems = append(problems, fmt.Sprintf("name must be 1 to %d characters", MaxName))
	}
	if f.ContactName != nil && utf8.RuneCountInString(*f.ContactName) > MaxName {
		problems = append(problems, fmt.Sprintf("contactName must be at most %d characters", MaxName))
	}
	if f.ContactEmail != nil && *f.ContactEmail != "" {
		a, err := mail.ParseAddress(*f.ContactEmail)
		if err != nil || a.Address != *f.ContactEmail || len(*f.ContactEmail) > MaxEmail {
			problems = append(problems, fmt.Sprintf("contactEmail must be an e-mail address (at most %d characters) or empty", MaxEmail))
		}
	}
	if len(problems) > 0 {
		return f, apperr.Invalid("The merchant is not valid: %s.", strings.Join(problems, "; "))
	}
	return f, nil
}

func requireAll(actor activity.Actor) error {
	if !actor.Scope.All {
		return apperr.Forbidden("Only admins may add or change merchants.")
	}
	return nil
}

// Create adds a merchant with a generated hash. Admin-wide callers only.
func (s *Service) Create(ctx context.Context, actor activity.Actor, f Fields) (merchant.Merchant, error) {
	f, err := validate(f, true)
	if err != nil {
		return merchant.Merchant{}, err
	}
	if err := requireAll(actor); err != nil {
		return merchant.Merchant{}, err
	}
	hash := make([]byte, 16)
	if _, err := rand.Read(hash); err != nil {
		return merchant.Merchant{}, fmt.Errorf("generate merchant hash: %w", err)
	}
	m := merchant.Merchant{Name: *f.Name, Hash: hex.EncodeToString(hash)}
	if f.ContactName != nil {
		m.ContactName = *f.ContactName
	}
	if f.ContactEmail != nil {
		m.ContactEmail = *f.ContactEmail
	}
	if f.Disabled != nil {
		m.Disabled = *f.Disabled
	}
	return s.store.CreateMerchant(ctx, m, func(ctx context.Context, j activity.Journal, m merchant.Merchant) error {
		return activity.Record(ctx, j, actor, activity.Entry{
			MerchantID: m.ID, MerchantName: m.Name, ActionType: activity.ActionConfiguration,
			Message:  fmt.Sprintf("Merchant %s (%d) added.", m.Name, m.ID),
			NewValue: activity.Value(fieldsOf(m)),
		}, s.stamp())
	})
}

func fieldsOf(m merchant.Merchant) map[string]any {
	return map[string]any{"name": m.Name, "contactName": m.ContactName, "contactEmail": m.ContactEmail, "disabled": m.Disabled}
}

func (s *Service) stamp() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Update changes the fields set in f of merchant id. Admin-wide callers
// only; an unknown merchant is not found. Changing nothing writes nothing.
func (s *Service) Update(ctx context.Context, actor activity.Actor, id int32, f Fields) (merchant.Merchant, error) {
	f, err := validate(f, false)
	if err != nil {
		return merchant.Merchant{}, err
	}
	if id <= 0 {
		return merchant.Merchant{}, apperr.Invalid("id must be the id of a merchant (a positive number).")
	}
	if err := requireAll(actor); err != nil {
		return merchant.Merchant{}, err
	}
	var unchanged merchant.Merchant
	m, err := s.store.UpdateMerchant(ctx, id, func(ctx context.Context, j activity.Journal, old merchant.Merchant) (merchant.Merchant, error) {
		next := old
		if f.Name != nil {
			next.Name = *f.Name
		}
		if f.ContactName != nil {
			next.ContactName = *f.ContactName
		}
		if f.ContactEmail != nil {
			next.ContactEmail = *f.ContactEmail
		}
		if f.Disabled != nil {
			next.Disabled = *f.Disabled
		}
		if next == old {
			unchanged = old
			return old, ErrUnchanged
		}
		before, after := map[string]any{}, map[string]any{}
		var changed []string
		for k, v := range fieldsOf(next) {
			if o := fieldsOf(old)[k]; o != v {
				before[k], after[k] = o, v
				changed = append(changed, k)
			}
		}
		e := activity.Entry{MerchantID: old.ID, MerchantName: next.Name, ActionType: activity.ActionConfiguration,
			OldValue: activity.Value(before), NewValue: activity.Value(after), Count: int32(len(changed))}
		switch {
		case next.Disabled != old.Disabled && next.Disabled:
			e.ActionType = activity.ActionStatus
			e.Message = fmt.Sprintf("%sMerchant %s (%d) disabled: its payments are refused.", activity.CriticalPrefix, next.Name, old.ID)
		case next.Disabled != old.Disabled:
			e.ActionType = activity.ActionStatus
			e.Message = fmt.Sprintf("Merchant %s (%d) enabled.", next.Name, old.ID)
		default:
			e.Message = fmt.Sprintf("Merchant %s (%d) updated.", next.Name, old.ID)
		}
		return next, activity.Record(ctx, j, actor, e, s.stamp())
	})
	if errors.Is(err, ErrUnchanged) {
		return unchanged, nil
	}
	return m, err
}

// inScope returns merchant id when actor may manage its secrets; any other
// id, or one that does not exist, is not found.
func (s *Service) inScope(ctx context.Context, actor activity.Actor, id int32) error {
	if id <= 0 {
		return apperr.Invalid("merchantId must be the id of a merchant (a positive number).")
	}
	if !actor.Scope.Includes(id) {
		return apperr.NotFound("Merchant %d was not found.", id)
	}
	return nil
}

// Secrets lists a merchant's secrets, newest first.
func (s *Service) Secrets(ctx context.Context, actor activity.Actor, merchantID int32) ([]Secret, error) {
	if err := s.inScope(ctx, actor, merchantID); err != nil {
		return nil, err
	}
	if _, err := s.store.Merchant(ctx, merchantID); err != nil {
		return nil, notFound(err, merchantID)
	}
	return s.store.Secrets(ctx, merchantID)
}

func notFound(err error, id int32) error {
	if apperr.KindOf(err) == apperr.KindNotFound {
		return apperr.New(apperr.KindNotFound, err, "Merchant %d was not found.", id)
	}
	return err
}

// Created is a new secret with its value, which is never shown again.
type Created struct {
	Secret
	Value        string
	MerchantHash string
}

// CreateSecret generates a secret for a merchant; the merchant's other
// secrets that do not expire yet expire overlap later (nil: DefaultOverlap;
// 0: at once).
func (s *Service) CreateSecret(ctx context.Context, actor activity.Actor, merchantID int32, overlap *time.Duration) (Created, error) {
	if err := s.inScope(ctx, actor, merchantID); err != nil {
		return Created{}, err
	}
	window := DefaultOverlap
	if overlap != nil {
		window = *overlap
	}
	if window < 0 || window > MaxOverlap {
		return Created{}, apperr.Invalid("overlapSeconds must be from 0 to %d.", int64(MaxOverlap/time.Second))
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return Created{}, fmt.Errorf("generate secret: %w", err)
	}
	value := "pgs_" + base64.RawURLEncoding.EncodeToString(raw)
	var hash string
	sec, err := s.store.CreateSecret(ctx, merchantID, actor.Username,
		func(ctx context.Context, j activity.Journal, m merchant.Merchant, secrets []Secret) ([]byte, []int64, time.Time, error) {
			now := s.now()
			expiresAt := now.Add(window).UTC().Truncate(time.Microsecond)
			var expire []int64
			live := 0
			for _, o := range secrets {
				if !o.Live(now) {
					continue
				}
				if o.ExpiresAt.IsZero() || o.ExpiresAt.After(expiresAt) {
					expire = append(expire, o.ID)
				} else {
					live++
				}
			}
			if live+1 > MaxLiveSecrets {
				return nil, nil, time.Time{}, apperr.FailedPrecondition(
					"Merchant %s already has %d secrets still accepted: revoke one first.", m.Name, live)
			}
			sealed, err := s.seal([]byte(value), m.ID)
			if err != nil {
				return nil, nil, time.Time{}, err
			}
			hash = m.Hash
			msg := fmt.Sprintf("API secret of merchant %s created.", m.Name)
			if len(expire) > 0 {
				msg = fmt.Sprintf("API secret of merchant %s rotated: the previous secrets (%s) stay accepted until %s.",
					m.Name, ids(expire), expiresAt.Format(time.RFC3339))
			}
			e := activity.Entry{MerchantID: m.ID, MerchantName: m.Name, ActionType: activity.ActionCredentials,
				Message: msg, NewValue: activity.Value(map[string]any{"expiring": expire, "expiresAt": expiresAt.Format(time.RFC3339)})}
			return sealed, expire, expiresAt, activity.Record(ctx, j, actor, e, s.stamp())
		})
	if err != nil {
		return Created{}, notFound(err, merchantID)
	}
	return Created{Secret: sec, Value: value, MerchantHash: hash}, nil
}

func ids(v []int64) string {
	parts := make([]string, len(v))
	for i, id := range v {
		parts[i] = fmt.Sprint(id)
	}
	return strings.Join(parts, ", ")
}

// RevokeSecret stops accepting one of a merchant's secrets at once.
// Revoking a revoked or expired secret changes nothing.
func (s *Service) RevokeSecret(ctx context.Context, actor activity.Actor, merchantID int32, secretID int64) (Secret, error) {
	if err := s.inScope(ctx, actor, merchantID); err != nil {
		return Secret{}, err
	}
	if secretID <= 0 {
		return Secret{}, apperr.Invalid("id must be the id of a secret (a positive number).")
	}
	now := s.stamp()
	sec, err := s.store.RevokeSecret(ctx, merchantID, secretID, now,
		func(ctx context.Context, j activity.Journal, m merchant.Merchant, sec Secret) error {
			if !sec.Live(now) {
				return ErrUnchanged
			}
			return activity.Record(ctx, j, actor, activity.Entry{
				MerchantID: m.ID, MerchantName: m.Name, ActionType: activity.ActionCredentials,
				Message: fmt.Sprintf("API secret %d of merchant %s revoked.", sec.ID, m.Name),
			}, now)
		})
	if err != nil {
		return Secret{}, err
	}
	return sec, nil
}

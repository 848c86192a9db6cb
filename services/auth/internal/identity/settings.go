package identity

import (
	"context"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
)

// Requirement says whose password sign-in needs a second factor.
type Requirement string

// The requirements of Settings.RequireSecondFactor.
const (
	RequireOff       Requirement = "off"
	RequireEveryone  Requirement = "everyone"
	RequireAdminWide Requirement = "admin_wide"
)

// Bounds of the session settings.
const (
	MinIdleTimeout = 5 * time.Minute
	MaxIdleTimeout = 30 * 24 * time.Hour
	MinMaxLifetime = time.Hour
	MaxMaxLifetime = 90 * 24 * time.Hour
	// DefaultMaxLifetime is the session lifetime until an admin sets one
	// (Config.MaxLifetime).
	DefaultMaxLifetime = 7 * 24 * time.Hour
)

// Settings are the sign-in and session policy an admin sets.
type Settings struct {
	RequireSecondFactor Requirement
	// IdleTimeout ends a session not refreshed for this long.
	IdleTimeout time.Duration
	// MaxLifetime ends a session this old, however active.
	MaxLifetime time.Duration
}

// AdminWide reports whether u's role reaches every merchant: its scope
// flag, built-in and custom roles alike (docs/access.md).
func AdminWide(u User) bool { return u.Global }

// Requires reports whether the settings require u to have a second factor.
func (st Settings) Requires(u User) bool {
	switch st.RequireSecondFactor {
	case RequireEveryone:
		return true
	case RequireAdminWide:
		return AdminWide(u)
	}
	return false
}

// sessionEnd is when a session started at created, refreshed now, ends
// under st: the earlier of the idle timeout from now and the lifetime.
func (st Settings) sessionEnd(created, now time.Time) time.Time {
	idle := now.Add(st.IdleTimeout)
	if life := created.Add(st.MaxLifetime); life.Before(idle) {
		return life
	}
	return idle
}

// endReason is why sess, refreshed now, ends under st ("" when it goes on):
// ReasonIdle or ReasonLifetime.
func (st Settings) endReason(sess Session, now time.Time) string {
	switch {
	case now.Sub(sess.CreatedAt) >= st.MaxLifetime:
		return ReasonLifetime
	case now.Sub(sess.LastSeenAt) >= st.IdleTimeout:
		return ReasonIdle
	}
	return ""
}

// SettingsStore reads and writes the settings.
type SettingsStore interface {
	// AuthSettings returns the stored settings; ok is false while none
	// were stored.
	AuthSettings(ctx context.Context) (st Settings, ok bool, err error)
}

// SettingsTx writes the settings inside Store.Tx.
type SettingsTx interface {
	// AuthSettingsForUpdate returns and locks the stored settings; ok is
	// false while none were stored.
	AuthSettingsForUpdate(ctx context.Context) (st Settings, ok bool, err error)
	// PutAuthSettings stores the settings.
	PutAuthSettings(ctx context.Context, st Settings, at time.Time) error
}

// defaultSettings are the settings until an admin changes them.
func (s *Service) defaultSettings() Settings {
	return Settings{RequireSecondFactor: RequireOff, IdleTimeout: s.cfg.RefreshTTL, MaxLifetime: s.cfg.MaxLifetime}
}

// Settings returns the settings in force.
func (s *Service) Settings(ctx context.Context) (Settings, error) {
	st, ok, err := s.store.AuthSettings(ctx)
	if err != nil {
		return Settings{}, err
	}
	if !ok {
		return s.defaultSettings(), nil
	}
	return st, nil
}

// CheckSettings checks new settings, naming the JSON fields.
//
// Errors: Invalid.
func CheckSettings(st Settings) error {
	switch st.RequireSecondFactor {
	case RequireOff, RequireEveryone, RequireAdminWide:
	default:
		return apperr.Invalid("requireSecondFactor must be REQUIRE_SECOND_FACTOR_OFF, REQUIRE_SECOND_FACTOR_EVERYONE or REQUIRE_SECOND_FACTOR_ADMIN_WIDE.")
	}
	if st.IdleTimeout < MinIdleTimeout || st.IdleTimeout > MaxIdleTimeout {
		return apperr.Invalid("sessionIdleTimeoutSeconds must be between %d and %d.", int(MinIdleTimeout.Seconds()), int(MaxIdleTimeout.Seconds()))
	}
	if st.MaxLifetime < MinMaxLifetime || st.MaxLifetime > MaxMaxLifetime {
		return apperr.Invalid("sessionMaxLifetimeSeconds must be between %d and %d.", int(MinMaxLifetime.Seconds()), int(MaxMaxLifetime.Seconds()))
	}
	if st.MaxLifetime < st.IdleTimeout {
		return apperr.Invalid("sessionMaxLifetimeSeconds must be at least sessionIdleTimeoutSeconds.")
	}
	return nil
}

// settingsFields are the audited fields of the settings, by JSON name.
func settingsFields(st Settings) map[string]any {
	return map[string]any{
		"requireSecondFactor":       string(st.RequireSecondFactor),
		"sessionIdleTimeoutSeconds": st.IdleTimeout.Seconds(),
		"sessionMaxLifetimeSeconds": st.MaxLifetime.Seconds(),
	}
}

// UpdateSettings replaces the settings; the change is audited. The new
// session bounds apply to each running session at its next refresh.
//
// Errors: Invalid (a field).
func (s *Service) UpdateSettings(ctx context.Context, a Actor, st Settings) (Settings, error) {
	if err := CheckSettings(st); err != nil {
		return Settings{}, err
	}
	now := s.now()
	err := s.store.Tx(ctx, func(tx Tx) error {
		cur, ok, err := tx.AuthSettingsForUpdate(ctx)
		if err != nil {
			return err
		}
		if !ok {
			cur = s.defaultSettings()
		}
		if err := tx.PutAuthSettings(ctx, st, now); err != nil {
			return err
		}
		b, af := diffFields(settingsFields(cur), settingsFields(st))
		if len(af) == 0 {
			return nil
		}
		return s.audit(ctx, tx, a, "auth_settings.updated", 0, "", b, af, now)
	})
	if err != nil {
		return Settings{}, err
	}
	s.log.InfoContext(ctx, "auth settings updated", "by", a.ID)
	return st, nil
}

package collab

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/paygate/paygate/services/internal/apperr"
)

// Mode decides how the collab's payments end: normally, or forced to
// succeed or fail (for testing a merchant's integration).
type Mode int16

// The modes, with the numbers the console sends.
const (
	// ModeDefault lets the provider decide.
	ModeDefault Mode = 1
	// ModeAlwaysSuccess makes every payment succeed.
	ModeAlwaysSuccess Mode = 2
	// ModeAlwaysFailed makes every payment fail.
	ModeAlwaysFailed Mode = 3
)

// String returns the mode's display name.
func (m Mode) String() string {
	switch m {
	case ModeDefault:
		return "Default"
	case ModeAlwaysSuccess:
		return "Always Success"
	case ModeAlwaysFailed:
		return "Always Failed"
	}
	return "Mode " + strconv.Itoa(int(m))
}

// Settings are a collab's switches, position and mode.
type Settings struct {
	// IsEnabled switches the whole collab.
	IsEnabled bool
	// IsCashInEnabled switches deposits.
	IsCashInEnabled bool
	// IsCashOutEnabled switches withdrawals.
	IsCashOutEnabled bool
	// ValidateCashIn runs the merchant's validation endpoints on deposits.
	ValidateCashIn bool
	// ValidateCashOut runs them on withdrawals.
	ValidateCashOut bool
	// IsMerchantCallbackEnabled sends the merchant callbacks.
	IsMerchantCallbackEnabled bool
	// IsCreditingToClientsEnabled credits the merchant's clients.
	IsCreditingToClientsEnabled bool
	// IsWithdrawFromClientsEnabled withdraws from the merchant's clients.
	IsWithdrawFromClientsEnabled bool
	// ExpandByPayType lists the collab once per pay type.
	ExpandByPayType bool
	// AvailableOnlyOnDirectAccess hides the collab unless asked for by name
	// (the key is spelled AwailableOnlyOnDirectAccess).
	AvailableOnlyOnDirectAccess bool
	// Position orders collabs; nil for none.
	Position *int32
	// Mode forces outcomes.
	Mode Mode
}

// Setting keys, exactly as the console spells them.
const (
	KeyIsEnabled                    = "IsEnabled"
	KeyIsCashInEnabled              = "IsCashInEnabled"
	KeyIsCashOutEnabled             = "IsCashOutEnabled"
	KeyValidateCashIn               = "ValidateCashIn"
	KeyValidateCashOut              = "ValidateCashOut"
	KeyIsMerchantCallbackEnabled    = "IsMerchantCallbackEnabled"
	KeyIsCreditingToClientsEnabled  = "IsCreditingToClientsEnabled"
	KeyIsWithdrawFromClientsEnabled = "IsWithdrawFromClientsEnabled"
	KeyExpandByPayType              = "ExpandByPayType"
	KeyAvailableOnlyOnDirectAccess  = "AwailableOnlyOnDirectAccess"
	KeyPosition                     = "Position"
	KeyMode                         = "Mode"
)

// SettingKeys lists every setting key in display order.
var SettingKeys = []string{
	KeyIsEnabled, KeyIsCashInEnabled, KeyIsCashOutEnabled, KeyValidateCashIn,
	KeyValidateCashOut, KeyIsMerchantCallbackEnabled, KeyIsCreditingToClientsEnabled,
	KeyIsWithdrawFromClientsEnabled, KeyExpandByPayType, KeyAvailableOnlyOnDirectAccess,
	KeyPosition, KeyMode,
}

// DefaultSettings are a new collab's settings (spec 01 §3): enabled, both
// directions on, both validations on, merchant callbacks on, crediting and
// withdrawing off, expanded by pay type, not limited to direct access, no
// position, default mode. Initialize turns a direction the provider lacks
// off unless the caller asks for it (and is refused).
func DefaultSettings() Settings {
	return Settings{
		IsEnabled:                 true,
		IsCashInEnabled:           true,
		IsCashOutEnabled:          true,
		ValidateCashIn:            true,
		ValidateCashOut:           true,
		IsMerchantCallbackEnabled: true,
		ExpandByPayType:           true,
		Mode:                      ModeDefault,
	}
}

// Map returns the settings as the string map the console reads: "true" or
// "false", Position a number or "", Mode "1", "2" or "3".
func (s Settings) Map() map[string]string {
	m := make(map[string]string, len(SettingKeys))
	for _, k := range SettingKeys {
		m[k] = s.value(k)
	}
	return m
}

func (s Settings) value(key string) string {
	if b := s.boolField(key); b != nil {
		return strconv.FormatBool(*b)
	}
	switch key {
	case KeyPosition:
		if s.Position == nil {
			return ""
		}
		return strconv.Itoa(int(*s.Position))
	case KeyMode:
		return strconv.Itoa(int(s.Mode))
	}
	return ""
}

// boolField returns the switch a key names, or nil for Position, Mode and
// unknown keys.
func (s *Settings) boolField(key string) *bool {
	switch key {
	case KeyIsEnabled:
		return &s.IsEnabled
	case KeyIsCashInEnabled:
		return &s.IsCashInEnabled
	case KeyIsCashOutEnabled:
		return &s.IsCashOutEnabled
	case KeyValidateCashIn:
		return &s.ValidateCashIn
	case KeyValidateCashOut:
		return &s.ValidateCashOut
	case KeyIsMerchantCallbackEnabled:
		return &s.IsMerchantCallbackEnabled
	case KeyIsCreditingToClientsEnabled:
		return &s.IsCreditingToClientsEnabled
	case KeyIsWithdrawFromClientsEnabled:
		return &s.IsWithdrawFromClientsEnabled
	case KeyExpandByPayType:
		return &s.ExpandByPayType
	case KeyAvailableOnlyOnDirectAccess:
		return &s.AvailableOnlyOnDirectAccess
	}
	return nil
}

// canonicalKey returns the setting key that k names, compared without regard
// to case.
func canonicalKey(k string) (string, bool) {
	for _, key := range SettingKeys {
		if strings.EqualFold(key, strings.TrimSpace(k)) {
			return key, true
		}
	}
	return "", false
}

// MaxPosition is the largest Position accepted.
const MaxPosition = 1_000_000

// Apply returns s with the named settings changed, and the canonical keys it
// was given (a key is matched without regard to case). Values are strings as
// Map writes them; "True"/"FALSE" are accepted too, and "null" clears
// Position. An unknown key, a key given twice or a bad value is invalid, and
// s is returned unchanged.
func (s Settings) Apply(values map[string]string) (Settings, []string, error) {
	out := s
	var keys []string
	seen := map[string]bool{}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		key, ok := canonicalKey(k)
		if !ok {
			return s, nil, apperr.Invalid("%q is not a collab setting. The settings are %s.", k, strings.Join(SettingKeys, ", "))
		}
		if seen[key] {
			return s, nil, apperr.Invalid("The setting %s is given twice.", key)
		}
		seen[key] = true
		keys = append(keys, key)
		v := strings.TrimSpace(values[k])
		if b := out.boolField(key); b != nil {
			parsed, ok := parseBool(v)
			if !ok {
				return s, nil, apperr.Invalid("The setting %s must be \"true\" or \"false\", not %q.", key, values[k])
			}
			*b = parsed
			continue
		}
		switch key {
		case KeyPosition:
			if v == "" || strings.EqualFold(v, "null") {
				out.Position = nil
				continue
			}
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil || n < 0 || n > MaxPosition {
				return s, nil, apperr.Invalid("The setting Position must be a whole number from 0 to %d, or empty for none, not %q.", MaxPosition, values[k])
			}
			p := int32(n)
			out.Position = &p
		case KeyMode:
			n, err := strconv.Atoi(v)
			if err != nil || n < int(ModeDefault) || n > int(ModeAlwaysFailed) {
				return s, nil, apperr.Invalid("The setting Mode must be 1 (Default), 2 (Always Success) or 3 (Always Failed), not %q.", values[k])
			}
			out.Mode = Mode(n)
		}
	}
	return out, keys, nil
}

// parseBool reads "true" or "false" in any case.
func parseBool(v string) (value, ok bool) {
	switch strings.ToLower(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// diff returns the settings that differ between s and next, by key, before
// and after (as Map writes them), and the keys in display order.
func (s Settings) diff(next Settings) (before, after map[string]string, keys []string) {
	before, after = map[string]string{}, map[string]string{}
	for _, k := range SettingKeys {
		if a, b := s.value(k), next.value(k); a != b {
			before[k], after[k] = a, b
			keys = append(keys, k)
		}
	}
	return before, after, keys
}

// checkDirections refuses turning on a direction the provider does not
// support. Only switches that change to on are checked, so a provider that
// drops a direction does not block unrelated edits. Errors are invalid.
func checkDirections(provider ProviderRef, before, after Settings) error {
	if after.IsCashInEnabled && !before.IsCashInEnabled && !provider.SupportsCashIn {
		return apperr.Invalid("%s does not support cash-in, so cash-in cannot be enabled.", provider.Name)
	}
	if after.IsCashOutEnabled && !before.IsCashOutEnabled && !provider.SupportsCashOut {
		return apperr.Invalid("%s does not support cash-out, so cash-out cannot be enabled.", provider.Name)
	}
	return nil
}

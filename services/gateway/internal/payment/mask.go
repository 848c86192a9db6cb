package payment

import (
	"strings"
)

// Masked replaces a secret value in the journal.
const Masked = "***"

// secretWords mark keys whose values are secrets.
var secretWords = []string{"secret", "password", "token", "apikey", "api_key", "api-key", "signature", "authorization", "cvv", "pin", "privatekey", "private_key"}

// IsSecretKey reports whether a key names a secret (case-insensitively).
func IsSecretKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// Mask returns a copy of a JSON-shaped value with the values of secret keys
// replaced by Masked, at any depth.
func Mask(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if IsSecretKey(k) {
				out[k] = Masked
				continue
			}
			out[k] = Mask(val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = Mask(val)
		}
		return out
	}
	return v
}

// MaskHeaders returns headers as a JSON-shaped map with secret ones masked,
// or nil when there are none.
func MaskHeaders(h map[string]string) any {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string]any, len(h))
	for k, v := range h {
		if IsSecretKey(k) {
			v = Masked
		}
		out[k] = v
	}
	return out
}

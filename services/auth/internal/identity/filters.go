package identity

import (
	"strings"
	"unicode/utf8"

	"github.com/paygate/paygate/services/internal/apperr"
)

// MaxFilterLen bounds the text filters of auth's lists (the users' and the
// sessions' search), in characters as given, padding included: as the
// gateway bounds its lists' filters.
const MaxFilterLen = 100

// SearchFilter checks a list's search filter as given and returns it
// trimmed.
//
// Errors: Invalid, naming search, for more than MaxFilterLen characters
// (never echoing them).
func SearchFilter(search string) (string, error) {
	if utf8.RuneCountInString(search) > MaxFilterLen {
		return "", apperr.Invalid("search must be at most %d characters.", MaxFilterLen)
	}
	return strings.TrimSpace(search), nil
}

package identity

import (
	_ "embed"
	"strings"
	"unicode/utf8"

	"github.com/paygate/paygate/services/internal/apperr"
)

// DefaultPasswordMinLen is the shortest password a user may choose unless
// Config.PasswordMinLen says otherwise.
const DefaultPasswordMinLen = 12

// commonPasswordsText is the list of common and guessable passwords the
// service refuses, one a line, lowercase; lines starting with # are notes.
//
//go:embed commonpasswords.txt
var commonPasswordsText string

// commonPasswords holds commonPasswordsText as a set.
var commonPasswords = func() map[string]struct{} {
	set := map[string]struct{}{}
	for line := range strings.SplitSeq(commonPasswordsText, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		set[strings.ToLower(line)] = struct{}{}
	}
	return set
}()

// IsCommonPassword reports whether password is on the list of common
// passwords the service refuses, ignoring case.
func IsCommonPassword(password string) bool {
	_, ok := commonPasswords[strings.ToLower(password)]
	return ok
}

// CheckPassword applies the password rules to a new password of the user
// named username: not blank (white space only), at least minLen and at most
// MaxPasswordLen characters, not the username (ignoring case) and not a
// common password. field is the JSON
// name of the request field the refusal names ("password", "newPassword").
//
// Errors: Invalid, with a sentence naming field.
func CheckPassword(field, username, password string, minLen int) error {
	n := utf8.RuneCountInString(password)
	switch {
	case password == "":
		return apperr.Invalid("%s is required.", field)
	case strings.TrimSpace(password) == "":
		return apperr.Invalid("%s must not be blank: it has only spaces.", field)
	case n < minLen:
		return apperr.Invalid("%s must be at least %d characters long.", field, minLen)
	case n > MaxPasswordLen || len(password) > 4*MaxPasswordLen:
		return apperr.Invalid("%s must be at most %d characters long.", field, MaxPasswordLen)
	case username != "" && strings.EqualFold(strings.TrimSpace(password), strings.TrimSpace(username)):
		return apperr.Invalid("%s must not be the username.", field)
	case IsCommonPassword(password):
		return apperr.Invalid("%s is too common; choose one that is harder to guess.", field)
	}
	return nil
}

// checkPassword applies CheckPassword with the service's minimum length.
func (s *Service) checkPassword(field, username, password string) error {
	return CheckPassword(field, username, password, s.cfg.PasswordMinLen)
}

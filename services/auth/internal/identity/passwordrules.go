package identity

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/paygate/paygate/services/internal/access"
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

// PasswordRule names one rule of the password policy.
type PasswordRule string

// The password rules, in the order CheckPassword applies them.
const (
	RuleRequired PasswordRule = "required"
	RuleBlank    PasswordRule = "blank"
	RuleTooShort PasswordRule = "too_short"
	RuleTooLong  PasswordRule = "too_long"
	RuleUsername PasswordRule = "username"
	RuleCommon   PasswordRule = "common"
)

// PasswordProblem is one rule a password breaks, with the sentence that
// says so (naming the request field).
type PasswordProblem struct {
	Rule    PasswordRule
	Message string
}

// PasswordProblems lists every rule a new password of the user named
// username breaks: not empty, not blank (white space only), at least minLen
// and at most MaxPasswordLen characters, not the username (ignoring case)
// and not a common password. field is the JSON name of the request field
// the sentences name ("password", "newPassword"). An empty or blank
// password gets that one problem only.
func PasswordProblems(field, username, password string, minLen int) []PasswordProblem {
	switch {
	case password == "":
		return []PasswordProblem{{RuleRequired, field + " is required."}}
	case strings.TrimSpace(password) == "":
		return []PasswordProblem{{RuleBlank, field + " must not be blank: it has only spaces."}}
	}
	var out []PasswordProblem
	n := utf8.RuneCountInString(password)
	if n < minLen {
		out = append(out, PasswordProblem{RuleTooShort, fmt.Sprintf("%s must be at least %d characters long.", field, minLen)})
	}
	if n > MaxPasswordLen || len(password) > 4*MaxPasswordLen {
		out = append(out, PasswordProblem{RuleTooLong, fmt.Sprintf("%s must be at most %d characters long.", field, MaxPasswordLen)})
	}
	if username != "" && strings.EqualFold(strings.TrimSpace(password), strings.TrimSpace(username)) {
		out = append(out, PasswordProblem{RuleUsername, field + " must not be the username."})
	}
	if IsCommonPassword(password) {
		out = append(out, PasswordProblem{RuleCommon, field + " is too common; choose one that is harder to guess."})
	}
	return out
}

// CheckPassword applies the password rules (PasswordProblems) and refuses
// with the first rule broken.
//
// Errors: Invalid, with a sentence naming field.
func CheckPassword(field, username, password string, minLen int) error {
	if p := PasswordProblems(field, username, password, minLen); len(p) > 0 {
		return apperr.Invalid("%s", p[0].Message)
	}
	return nil
}

// PasswordMinLen is the shortest new password the service allows.
func (s *Service) PasswordMinLen() int { return s.cfg.PasswordMinLen }

// CheckPasswordFor lists the rules password breaks as a new password of the
// user named username, or of the caller when username is empty. Nothing is
// stored or logged.
//
// Errors: Unauthenticated (session ended).
func (s *Service) CheckPasswordFor(ctx context.Context, c *access.Claims, username, password string) ([]PasswordProblem, error) {
	if strings.TrimSpace(username) == "" {
		u, err := s.CurrentUser(ctx, c)
		if err != nil {
			return nil, err
		}
		username = u.Username
	}
	return PasswordProblems("password", username, password, s.cfg.PasswordMinLen), nil
}

// checkPassword applies CheckPassword with the service's minimum length.
func (s *Service) checkPassword(field, username, password string) error {
	return CheckPassword(field, username, password, s.cfg.PasswordMinLen)
}

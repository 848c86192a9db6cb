package grpcapi

import (
	"context"
	"time"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/server"
)

// SettingsServer implements authv1.AuthSettingsServiceServer.
type SettingsServer struct {
	authv1.UnimplementedAuthSettingsServiceServer
	svc *identity.Service
}

var _ authv1.AuthSettingsServiceServer = (*SettingsServer)(nil)

// NewSettingsServer returns the gRPC face of the auth settings and the
// password policy.
func NewSettingsServer(svc *identity.Service) *SettingsServer { return &SettingsServer{svc: svc} }

// SettingsRules is the access table of AuthSettingsService (merged into the
// service's rules in main): the settings need Settings Access; the password
// policy answers any signed-in user, one replacing a temporary password too.
var SettingsRules = authz.Rules{
	authv1.AuthSettingsService_GetAuthSettings_FullMethodName:    {Permissions: []string{access.PermSettingsAccess}},
	authv1.AuthSettingsService_UpdateAuthSettings_FullMethodName: {Permissions: []string{access.PermSettingsAccess}},
	authv1.AuthSettingsService_GetPasswordPolicy_FullMethodName:  {Authenticated: true, AllowTemporaryPassword: true},
	authv1.AuthSettingsService_CheckPassword_FullMethodName:      {Authenticated: true, AllowTemporaryPassword: true},
}

var requirements = map[identity.Requirement]authv1.RequireSecondFactor{
	identity.RequireOff:       authv1.RequireSecondFactor_REQUIRE_SECOND_FACTOR_OFF,
	identity.RequireEveryone:  authv1.RequireSecondFactor_REQUIRE_SECOND_FACTOR_EVERYONE,
	identity.RequireAdminWide: authv1.RequireSecondFactor_REQUIRE_SECOND_FACTOR_ADMIN_WIDE,
}

func settingsMsg(st identity.Settings) *authv1.AuthSettings {
	return &authv1.AuthSettings{
		RequireSecondFactor:       requirements[st.RequireSecondFactor],
		SessionIdleTimeoutSeconds: int32(st.IdleTimeout.Seconds()),
		SessionMaxLifetimeSeconds: int32(st.MaxLifetime.Seconds()),
	}
}

// GetAuthSettings implements authv1.AuthSettingsServiceServer.
func (s *SettingsServer) GetAuthSettings(ctx context.Context, _ *authv1.GetAuthSettingsRequest) (*authv1.GetAuthSettingsResponse, error) {
	st, err := s.svc.Settings(ctx)
	if err != nil {
		return nil, err
	}
	return &authv1.GetAuthSettingsResponse{Settings: settingsMsg(st)}, nil
}

// UpdateAuthSettings implements authv1.AuthSettingsServiceServer.
func (s *SettingsServer) UpdateAuthSettings(ctx context.Context, req *authv1.UpdateAuthSettingsRequest) (*authv1.UpdateAuthSettingsResponse, error) {
	in := req.GetSettings()
	if in == nil {
		return nil, apperr.Invalid("settings is required.")
	}
	st := identity.Settings{
		IdleTimeout: time.Duration(in.GetSessionIdleTimeoutSeconds()) * time.Second,
		MaxLifetime: time.Duration(in.GetSessionMaxLifetimeSeconds()) * time.Second,
	}
	for r, v := range requirements {
		if v == in.GetRequireSecondFactor() {
			st.RequireSecondFactor = r
		}
	}
	c, err := claims(ctx)
	if err != nil {
		return nil, err
	}
	if err := identity.CheckSettings(st); err != nil {
		return nil, err
	}
	a, err := s.svc.Actor(ctx, c, server.ClientIP(ctx))
	if err != nil {
		return nil, err
	}
	st, err = s.svc.UpdateSettings(ctx, a, st)
	if err != nil {
		return nil, err
	}
	return &authv1.UpdateAuthSettingsResponse{Settings: settingsMsg(st)}, nil
}

// GetPasswordPolicy implements authv1.AuthSettingsServiceServer.
func (s *SettingsServer) GetPasswordPolicy(context.Context, *authv1.GetPasswordPolicyRequest) (*authv1.GetPasswordPolicyResponse, error) {
	return &authv1.GetPasswordPolicyResponse{MinLength: int32(s.svc.PasswordMinLen()), MaxLength: identity.MaxPasswordLen}, nil
}

var passwordRules = map[identity.PasswordRule]authv1.PasswordRule{
	identity.RuleRequired: authv1.PasswordRule_PASSWORD_RULE_REQUIRED,
	identity.RuleBlank:    authv1.PasswordRule_PASSWORD_RULE_BLANK,
	identity.RuleTooShort: authv1.PasswordRule_PASSWORD_RULE_TOO_SHORT,
	identity.RuleTooLong:  authv1.PasswordRule_PASSWORD_RULE_TOO_LONG,
	identity.RuleUsername: authv1.PasswordRule_PASSWORD_RULE_USERNAME,
	identity.RuleCommon:   authv1.PasswordRule_PASSWORD_RULE_COMMON,
}

// CheckPassword implements authv1.AuthSettingsServiceServer.
func (s *SettingsServer) CheckPassword(ctx context.Context, req *authv1.CheckPasswordRequest) (*authv1.CheckPasswordResponse, error) {
	c, err := claims(ctx)
	if err != nil {
		return nil, err
	}
	problems, err := s.svc.CheckPasswordFor(ctx, c, req.GetUsername(), req.GetPassword())
	if err != nil {
		return nil, err
	}
	res := &authv1.CheckPasswordResponse{Problems: make([]*authv1.PasswordProblem, len(problems))}
	for i, p := range problems {
		res.Problems[i] = &authv1.PasswordProblem{Rule: passwordRules[p.Rule], Message: p.Message}
	}
	return res, nil
}

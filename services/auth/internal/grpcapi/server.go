// Package grpcapi maps the auth service's gRPC (and, through grpc-gateway,
// REST) API onto the identity domain.
package grpcapi

import (
	"context"
	"net/http"
	"time"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/server"
)

// Server implements authv1.AuthServiceServer.
type Server struct {
	authv1.UnimplementedAuthServiceServer
	svc *identity.Service
}

var _ authv1.AuthServiceServer = (*Server)(nil)

// NewServer returns the gRPC face of svc.
func NewServer(svc *identity.Service) *Server { return &Server{svc: svc} }

// Rules is the auth service's access table: every RPC it serves, and who
// may call it. A method missing here is refused (see authz.UnaryInterceptor).
var Rules = authz.Rules{
	authv1.AuthService_Login_FullMethodName:         {Public: true},
	authv1.AuthService_RefreshToken_FullMethodName:  {Public: true},
	authv1.AuthService_Logout_FullMethodName:        {Authenticated: true, AllowTemporaryPassword: true},
	authv1.AuthService_ValidateToken_FullMethodName: {Authenticated: true, AllowTemporaryPassword: true},
	// Every user replaces their own password, a temporary one included; the
	// current password proves it is them (identity.ChangeOwnPassword).
	authv1.AuthService_ChangeOwnPassword_FullMethodName: {Authenticated: true, AllowTemporaryPassword: true},

	// User administration (docs/contracts-security.md); the service checks
	// the caller's scope on top.
	authv1.UserService_ListRoles_FullMethodName:          {Permissions: []string{access.PermAddUsers}},
	authv1.UserService_ListUsers_FullMethodName:          {Permissions: []string{access.PermAddUsers}},
	authv1.UserService_AddUser_FullMethodName:            {Permissions: []string{access.PermAddUsers}},
	authv1.UserService_UpdateUser_FullMethodName:         {Permissions: []string{access.PermEditUser, access.PermAddUsers}},
	authv1.UserService_ChangeUserPassword_FullMethodName: {Permissions: []string{access.PermEditUser}},

	// Role editing (docs/access.md): admin-wide callers holding Add Users
	// and Edit User; the service also refuses a permission the caller does
	// not hold itself.
	authv1.RoleService_CreateRole_FullMethodName: {Requires: access.ReqManageRoles},
	authv1.RoleService_UpdateRole_FullMethodName: {Requires: access.ReqManageRoles},
	authv1.RoleService_DeleteRole_FullMethodName: {Requires: access.ReqManageRoles},

	// Everyone lists and ends its own sessions; other users' sessions need
	// Add Users or Edit User to list and Edit User to end, which the service
	// checks (identity.Actor.SessionListScope, SessionEndScope).
	authv1.SessionService_ListActiveSessions_FullMethodName: {Authenticated: true},
	authv1.SessionService_TerminateSession_FullMethodName:   {Authenticated: true},

	authv1.AllowedIpService_ListUserAllowedIps_FullMethodName: {Permissions: []string{access.PermAllowIP}},
	authv1.AllowedIpService_CreateAllowedIp_FullMethodName:    {Permissions: []string{access.PermAllowIP}},
	authv1.AllowedIpService_UpdateAllowedIp_FullMethodName:    {Permissions: []string{access.PermAllowIP}},
	authv1.AllowedIpService_DeleteAllowedIp_FullMethodName:    {Permissions: []string{access.PermAllowIP}},

	// Step-up and four-eyes approval (docs/contracts-approvals.md). Every
	// user confirms its own changes and re-verifies proofs; the settings
	// and policies need securityPolicy; who may see, approve or reject a
	// request the service decides (its own, or the policy's permission).
	authv1.ConfirmationService_BeginConfirmation_FullMethodName:    {Authenticated: true},
	authv1.ConfirmationService_FinishConfirmation_FullMethodName:   {Authenticated: true},
	authv1.ConfirmationService_VerifyProof_FullMethodName:          {Authenticated: true},
	authv1.ConfirmationService_ListSensitiveActions_FullMethodName: {Authenticated: true},
	authv1.ConfirmationService_UpdateStepUpSettings_FullMethodName: {Requires: access.ReqSecurityPolicy},
	authv1.ApprovalService_ListApprovalRequests_FullMethodName:     {Authenticated: true},
	authv1.ApprovalService_GetApprovalRequest_FullMethodName:       {Authenticated: true},
	authv1.ApprovalService_CountPendingApprovals_FullMethodName:    {Authenticated: true},
	authv1.ApprovalService_ApproveRequest_FullMethodName:           {Authenticated: true},
	authv1.ApprovalService_RejectRequest_FullMethodName:            {Authenticated: true},
	authv1.ApprovalService_ListApprovalPolicies_FullMethodName:     {Authenticated: true},
	authv1.ApprovalService_CreateApprovalPolicy_FullMethodName:     {Requires: access.ReqSecurityPolicy},
	authv1.ApprovalService_UpdateApprovalPolicy_FullMethodName:     {Requires: access.ReqSecurityPolicy},
	authv1.ApprovalService_DeleteApprovalPolicy_FullMethodName:     {Requires: access.ReqSecurityPolicy},
}

// DeviceCookie is the cookie that marks a browser that signed in as a
// username before; it only ever travels to the sign-in route.
const DeviceCookie = "paygate_device"

// deviceCookieAge matches the device token's lifetime (identity.Config.DeviceTTL).
const deviceCookieAge = 180 * 24 * time.Hour

// Login implements authv1.AuthServiceServer.
func (s *Server) Login(ctx context.Context, req *authv1.LoginRequest) (*authv1.LoginResponse, error) {
	ip, ua := server.ClientInfo(ctx)
	pair, err := s.svc.Login(ctx, req.GetUsername(), req.GetPassword(),
		identity.Client{IP: ip, UserAgent: ua, DeviceToken: server.IncomingCookie(ctx, DeviceCookie)})
	if err != nil {
		return nil, err
	}
	if ch := pair.Challenge; ch != nil {
		return &authv1.LoginResponse{SecondFactor: &authv1.SignInChallenge{
			Challenge: ch.Token, Step: signInStep(ch.Step), ExpiresIn: int32(ch.ExpiresIn.Seconds()),
		}}, nil
	}
	setDeviceCookie(ctx, pair.DeviceToken)
	return &authv1.LoginResponse{
		AccessToken: pair.AccessToken, RefreshToken: pair.RefreshToken,
		ExpiresIn: int32(pair.ExpiresIn.Seconds()), TokenType: "Bearer",
	}, nil
}

// setDeviceCookie sets the device cookie of a sign-in (none when token is
// empty). Its path covers the sign-in and its second step.
func setDeviceCookie(ctx context.Context, token string) {
	if token == "" {
		return
	}
	server.SetCookie(ctx, &http.Cookie{Name: DeviceCookie, Value: token, Path: "/api/v1/login",
		MaxAge: int(deviceCookieAge.Seconds()), HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
}

// signInStep maps a sign-in step to the API's.
func signInStep(s identity.Step) authv1.SignInStep {
	switch s {
	case identity.StepCode:
		return authv1.SignInStep_SIGN_IN_STEP_CODE
	case identity.StepEnrol:
		return authv1.SignInStep_SIGN_IN_STEP_ENROL
	}
	return authv1.SignInStep_SIGN_IN_STEP_UNSPECIFIED
}

// RefreshToken implements authv1.AuthServiceServer.
func (s *Server) RefreshToken(ctx context.Context, req *authv1.RefreshTokenRequest) (*authv1.RefreshTokenResponse, error) {
	ip, ua := server.ClientInfo(ctx)
	pair, err := s.svc.Refresh(ctx, req.GetRefreshToken(), identity.Client{IP: ip, UserAgent: ua})
	if err != nil {
		return nil, err
	}
	return &authv1.RefreshTokenResponse{
		AccessToken: pair.AccessToken, RefreshToken: pair.RefreshToken,
		ExpiresIn: int32(pair.ExpiresIn.Seconds()), TokenType: "Bearer",
	}, nil
}

// Logout implements authv1.AuthServiceServer.
func (s *Server) Logout(ctx context.Context, _ *authv1.LogoutRequest) (*authv1.LogoutResponse, error) {
	c, err := claims(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.Logout(ctx, c); err != nil {
		return nil, err
	}
	return &authv1.LogoutResponse{}, nil
}

// ValidateToken implements authv1.AuthServiceServer.
func (s *Server) ValidateToken(ctx context.Context, _ *authv1.ValidateTokenRequest) (*authv1.ValidateTokenResponse, error) {
	c, err := claims(ctx)
	if err != nil {
		return nil, err
	}
	u, err := s.svc.CurrentUser(ctx, c)
	if err != nil {
		return nil, err
	}
	return &authv1.ValidateTokenResponse{Valid: true, User: &authv1.User{
		Id: u.ID, Username: u.Username, Roles: u.Roles, Permissions: u.Permissions,
		MerchantIds: u.MerchantIDs, IsTemporaryPassword: u.IsTemporaryPassword, GlobalScope: u.Global,
	}}, nil
}

// ChangeOwnPassword implements authv1.AuthServiceServer.
func (s *Server) ChangeOwnPassword(ctx context.Context, req *authv1.ChangeOwnPasswordRequest) (*authv1.ChangeOwnPasswordResponse, error) {
	c, err := claims(ctx)
	if err != nil {
		return nil, err
	}
	ip, _ := server.ClientInfo(ctx)
	pair, err := s.svc.ChangeOwnPassword(ctx, c, req.GetCurrentPassword(), req.GetPassword(), ip)
	if err != nil {
		return nil, err
	}
	return &authv1.ChangeOwnPasswordResponse{
		AccessToken: pair.AccessToken, RefreshToken: pair.RefreshToken,
		ExpiresIn: int32(pair.ExpiresIn.Seconds()), TokenType: "Bearer",
	}, nil
}

func claims(ctx context.Context) (*access.Claims, error) {
	c, ok := access.FromContext(ctx)
	if !ok {
		return nil, apperr.Unauthenticated("Sign in first.")
	}
	return c, nil
}

// JWKSHandler serves the public signing keys as a JWK set: the keys of the
// moment, since the replicas reload them (a key added ahead of a rotation
// appears here before it signs).
func JWKSHandler(keys *identity.KeySet) (http.Handler, error) {
	if _, err := authz.MarshalJWKS(keys.PublicKeys()); err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		body, err := authz.MarshalJWKS(keys.PublicKeys())
		if err != nil {
			http.Error(w, "The signing keys cannot be published.", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(body)
	}), nil
}

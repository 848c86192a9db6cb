package grpcapi

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/auth/internal/secondfactor"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/server"
)

// SecondFactorServer implements authv1.SecondFactorServiceServer.
type SecondFactorServer struct {
	authv1.UnimplementedSecondFactorServiceServer
	svc *secondfactor.Service
}

var _ authv1.SecondFactorServiceServer = (*SecondFactorServer)(nil)

// NewSecondFactorServer returns the gRPC face of the second factor.
func NewSecondFactorServer(svc *secondfactor.Service) *SecondFactorServer {
	return &SecondFactorServer{svc: svc}
}

// SecondFactorRules is the access table of SecondFactorService (merged into
// the service's rules in main): the steps of a sign-in are public (the
// challenge proves the password); the caller's own second factor needs a
// signed-in user whose password is not temporary; resetting another user's
// needs Edit User (the service checks the user scope on top).
var SecondFactorRules = authz.Rules{
	authv1.SecondFactorService_CompleteSecondFactorLogin_FullMethodName: {Public: true},
	authv1.SecondFactorService_BeginSignInEnrolment_FullMethodName:      {Public: true},
	authv1.SecondFactorService_CompleteSignInEnrolment_FullMethodName:   {Public: true},
	authv1.SecondFactorService_GetSecondFactor_FullMethodName:           {Authenticated: true},
	authv1.SecondFactorService_BeginTotpEnrolment_FullMethodName:        {Authenticated: true},
	authv1.SecondFactorService_ConfirmTotpEnrolment_FullMethodName:      {Authenticated: true},
	authv1.SecondFactorService_RegenerateRecoveryCodes_FullMethodName:   {Authenticated: true},
	authv1.SecondFactorService_DisableSecondFactor_FullMethodName:       {Authenticated: true},
	authv1.SecondFactorService_ResetUserSecondFactor_FullMethodName:     {Permissions: []string{access.PermEditUser}},
}

// client describes the caller of a sign-in step.
func client(ctx context.Context) identity.Client {
	ip, ua := server.ClientInfo(ctx)
	return identity.Client{IP: ip, UserAgent: ua, DeviceToken: server.IncomingCookie(ctx, DeviceCookie)}
}

func enrolmentMsg(e secondfactor.Enrolment) *authv1.TotpEnrolment {
	return &authv1.TotpEnrolment{
		Secret: e.Secret, OtpauthUrl: e.URL, Issuer: e.Issuer, AccountName: e.AccountName,
		Digits: secondfactor.Digits, Period: int32(secondfactor.Period.Seconds()),
	}
}

// CompleteSecondFactorLogin implements authv1.SecondFactorServiceServer.
func (s *SecondFactorServer) CompleteSecondFactorLogin(ctx context.Context, req *authv1.CompleteSecondFactorLoginRequest) (*authv1.CompleteSecondFactorLoginResponse, error) {
	pair, left, err := s.svc.CompleteLogin(ctx, req.GetChallenge(), req.GetCode(), req.GetRecoveryCode(), client(ctx))
	if err != nil {
		return nil, err
	}
	setDeviceCookie(ctx, pair.DeviceToken)
	return &authv1.CompleteSecondFactorLoginResponse{
		AccessToken: pair.AccessToken, RefreshToken: pair.RefreshToken,
		ExpiresIn: int32(pair.ExpiresIn.Seconds()), TokenType: "Bearer", RecoveryCodesLeft: int32(left),
	}, nil
}

// BeginSignInEnrolment implements authv1.SecondFactorServiceServer.
func (s *SecondFactorServer) BeginSignInEnrolment(ctx context.Context, req *authv1.BeginSignInEnrolmentRequest) (*authv1.BeginSignInEnrolmentResponse, error) {
	e, err := s.svc.BeginSignInEnrolment(ctx, req.GetChallenge())
	if err != nil {
		return nil, err
	}
	return &authv1.BeginSignInEnrolmentResponse{Enrolment: enrolmentMsg(e)}, nil
}

// CompleteSignInEnrolment implements authv1.SecondFactorServiceServer.
func (s *SecondFactorServer) CompleteSignInEnrolment(ctx context.Context, req *authv1.CompleteSignInEnrolmentRequest) (*authv1.CompleteSignInEnrolmentResponse, error) {
	pair, codes, err := s.svc.CompleteSignInEnrolment(ctx, req.GetChallenge(), req.GetCode(), client(ctx))
	if err != nil {
		return nil, err
	}
	setDeviceCookie(ctx, pair.DeviceToken)
	return &authv1.CompleteSignInEnrolmentResponse{
		AccessToken: pair.AccessToken, RefreshToken: pair.RefreshToken,
		ExpiresIn: int32(pair.ExpiresIn.Seconds()), TokenType: "Bearer", RecoveryCodes: codes,
	}, nil
}

// GetSecondFactor implements authv1.SecondFactorServiceServer.
func (s *SecondFactorServer) GetSecondFactor(ctx context.Context, _ *authv1.GetSecondFactorRequest) (*authv1.GetSecondFactorResponse, error) {
	c, err := claims(ctx)
	if err != nil {
		return nil, err
	}
	st, err := s.svc.Status(ctx, c)
	if err != nil {
		return nil, err
	}
	res := &authv1.GetSecondFactorResponse{Enrolled: st.Enrolled, RecoveryCodesLeft: int32(st.RecoveryCodesLeft), Required: st.Required}
	if st.Enrolled {
		res.EnrolledAt = timestamppb.New(st.EnrolledAt)
	}
	return res, nil
}

// BeginTotpEnrolment implements authv1.SecondFactorServiceServer.
func (s *SecondFactorServer) BeginTotpEnrolment(ctx context.Context, _ *authv1.BeginTotpEnrolmentRequest) (*authv1.BeginTotpEnrolmentResponse, error) {
	c, err := claims(ctx)
	if err != nil {
		return nil, err
	}
	e, err := s.svc.BeginEnrolment(ctx, c)
	if err != nil {
		return nil, err
	}
	return &authv1.BeginTotpEnrolmentResponse{Enrolment: enrolmentMsg(e)}, nil
}

// ConfirmTotpEnrolment implements authv1.SecondFactorServiceServer.
func (s *SecondFactorServer) ConfirmTotpEnrolment(ctx context.Context, req *authv1.ConfirmTotpEnrolmentRequest) (*authv1.ConfirmTotpEnrolmentResponse, error) {
	c, err := claims(ctx)
	if err != nil {
		return nil, err
	}
	codes, err := s.svc.ConfirmEnrolment(ctx, c, req.GetCode(), server.ClientIP(ctx))
	if err != nil {
		return nil, err
	}
	return &authv1.ConfirmTotpEnrolmentResponse{RecoveryCodes: codes}, nil
}

// RegenerateRecoveryCodes implements authv1.SecondFactorServiceServer.
func (s *SecondFactorServer) RegenerateRecoveryCodes(ctx context.Context, req *authv1.RegenerateRecoveryCodesRequest) (*authv1.RegenerateRecoveryCodesResponse, error) {
	c, err := claims(ctx)
	if err != nil {
		return nil, err
	}
	codes, err := s.svc.RegenerateCodes(ctx, c, req.GetCode(), req.GetRecoveryCode(), server.ClientIP(ctx))
	if err != nil {
		return nil, err
	}
	return &authv1.RegenerateRecoveryCodesResponse{RecoveryCodes: codes}, nil
}

// DisableSecondFactor implements authv1.SecondFactorServiceServer.
func (s *SecondFactorServer) DisableSecondFactor(ctx context.Context, req *authv1.DisableSecondFactorRequest) (*authv1.DisableSecondFactorResponse, error) {
	c, err := claims(ctx)
	if err != nil {
		return nil, err
	}
	pr := secondfactor.DisableProof{Code: req.GetCode(), Recovery: req.GetRecoveryCode()}
	if cred := req.GetPasskeyCredential(); cred != nil && len(cred.GetFields()) > 0 {
		if pr.Passkey, err = fromStruct(cred); err != nil {
			return nil, err
		}
	}
	if err := s.svc.Disable(ctx, c, pr, server.ClientIP(ctx)); err != nil {
		return nil, err
	}
	return &authv1.DisableSecondFactorResponse{}, nil
}

// ResetUserSecondFactor implements authv1.SecondFactorServiceServer.
func (s *SecondFactorServer) ResetUserSecondFactor(ctx context.Context, req *authv1.ResetUserSecondFactorRequest) (*authv1.ResetUserSecondFactorResponse, error) {
	c, err := claims(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.Reset(ctx, c, req.GetUserId(), server.ClientIP(ctx)); err != nil {
		return nil, err
	}
	return &authv1.ResetUserSecondFactorResponse{}, nil
}

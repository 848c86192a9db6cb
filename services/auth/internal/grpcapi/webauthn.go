package grpcapi

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/auth/internal/passkey"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/server"
)

// WebAuthnServer implements authv1.WebAuthnServiceServer: passkey
// registration, sign-in, listing and deletion. The options and answers
// travel as google.protobuf.Struct holding the standard WebAuthn JSON forms
// (PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON, …).
type WebAuthnServer struct {
	authv1.UnimplementedWebAuthnServiceServer
	passkeys *passkey.Service
}

var _ authv1.WebAuthnServiceServer = (*WebAuthnServer)(nil)

// NewWebAuthnServer returns the gRPC face of passkeys.
func NewWebAuthnServer(passkeys *passkey.Service) *WebAuthnServer {
	return &WebAuthnServer{passkeys: passkeys}
}

// WebAuthnRules is the access table of WebAuthnService (merged into the
// service's rules in main): managing passkeys needs a signed-in user whose
// password is not temporary; signing in with one is public.
var WebAuthnRules = authz.Rules{
	authv1.WebAuthnService_BeginPasskeyRegistration_FullMethodName:  {Authenticated: true},
	authv1.WebAuthnService_FinishPasskeyRegistration_FullMethodName: {Authenticated: true},
	authv1.WebAuthnService_ListPasskeys_FullMethodName:              {Authenticated: true},
	authv1.WebAuthnService_DeletePasskey_FullMethodName:             {Authenticated: true},
	authv1.WebAuthnService_BeginPasskeyLogin_FullMethodName:         {Public: true},
	authv1.WebAuthnService_FinishPasskeyLogin_FullMethodName:        {Public: true},
}

// caller is the signed-in user of a passkey call.
func caller(ctx context.Context) (passkey.Caller, error) {
	c, err := claims(ctx)
	if err != nil {
		return passkey.Caller{}, err
	}
	id, err := c.UserID()
	if err != nil {
		return passkey.Caller{}, apperr.Unauthenticated(identity.MsgSessionEnded)
	}
	return passkey.Caller{UserID: id, Username: c.Username, IP: server.ClientIP(ctx)}, nil
}

// toStruct turns WebAuthn options JSON into the Struct of a response.
func toStruct(data []byte) (*structpb.Struct, error) {
	var s structpb.Struct
	if err := protojson.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("convert webauthn options to a struct: %w", err)
	}
	return &s, nil
}

// fromStruct turns the Struct of a request back into the browser's JSON
// ("null" when absent, which the ceremony then refuses).
func fromStruct(s *structpb.Struct) ([]byte, error) {
	if s == nil {
		return []byte("null"), nil
	}
	data, err := protojson.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("convert webauthn answer to JSON: %w", err)
	}
	return data, nil
}

// BeginPasskeyRegistration implements authv1.WebAuthnServiceServer.
func (s *WebAuthnServer) BeginPasskeyRegistration(ctx context.Context, req *authv1.BeginPasskeyRegistrationRequest) (*authv1.BeginPasskeyRegistrationResponse, error) {
	who, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	options, err := s.passkeys.BeginRegistration(ctx, who, req.GetDisplayName())
	if err != nil {
		return nil, err
	}
	pk, err := toStruct(options)
	if err != nil {
		return nil, err
	}
	return &authv1.BeginPasskeyRegistrationResponse{PublicKey: pk}, nil
}

// FinishPasskeyRegistration implements authv1.WebAuthnServiceServer.
func (s *WebAuthnServer) FinishPasskeyRegistration(ctx context.Context, req *authv1.FinishPasskeyRegistrationRequest) (*authv1.FinishPasskeyRegistrationResponse, error) {
	who, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	answer, err := fromStruct(req.GetCredential())
	if err != nil {
		return nil, err
	}
	c, err := s.passkeys.FinishRegistration(ctx, who, answer)
	if err != nil {
		return nil, err
	}
	return &authv1.FinishPasskeyRegistrationResponse{Success: true, Passkey: passkeyMessage(c)}, nil
}

// BeginPasskeyLogin implements authv1.WebAuthnServiceServer. The username,
// if any, is not used: the options are the same for everyone.
func (s *WebAuthnServer) BeginPasskeyLogin(ctx context.Context, _ *authv1.BeginPasskeyLoginRequest) (*authv1.BeginPasskeyLoginResponse, error) {
	options, err := s.passkeys.BeginLogin(ctx)
	if err != nil {
		return nil, err
	}
	pk, err := toStruct(options)
	if err != nil {
		return nil, err
	}
	return &authv1.BeginPasskeyLoginResponse{PublicKey: pk}, nil
}

// FinishPasskeyLogin implements authv1.WebAuthnServiceServer.
func (s *WebAuthnServer) FinishPasskeyLogin(ctx context.Context, req *authv1.FinishPasskeyLoginRequest) (*authv1.FinishPasskeyLoginResponse, error) {
	answer, err := fromStruct(req.GetCredential())
	if err != nil {
		return nil, err
	}
	ip, ua := server.ClientInfo(ctx)
	pair, err := s.passkeys.FinishLogin(ctx, answer, identity.Client{IP: ip, UserAgent: ua})
	if err != nil {
		return nil, err
	}
	return &authv1.FinishPasskeyLoginResponse{Success: true, TokenResponse: &authv1.TokenResponse{
		AccessToken: pair.AccessToken, RefreshToken: pair.RefreshToken,
		ExpiresIn: int32(pair.ExpiresIn.Seconds()), TokenType: "Bearer",
	}}, nil
}

// ListPasskeys implements authv1.WebAuthnServiceServer.
func (s *WebAuthnServer) ListPasskeys(ctx context.Context, _ *authv1.ListPasskeysRequest) (*authv1.ListPasskeysResponse, error) {
	who, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.passkeys.List(ctx, who)
	if err != nil {
		return nil, err
	}
	out := &authv1.ListPasskeysResponse{Passkeys: make([]*authv1.Passkey, 0, len(list))}
	for _, c := range list {
		out.Passkeys = append(out.Passkeys, passkeyMessage(c))
	}
	return out, nil
}

// DeletePasskey implements authv1.WebAuthnServiceServer.
func (s *WebAuthnServer) DeletePasskey(ctx context.Context, req *authv1.DeletePasskeyRequest) (*authv1.DeletePasskeyResponse, error) {
	who, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.passkeys.Delete(ctx, who, req.GetId()); err != nil {
		return nil, err
	}
	return &authv1.DeletePasskeyResponse{}, nil
}

func passkeyMessage(c passkey.Credential) *authv1.Passkey {
	p := &authv1.Passkey{Id: c.ID, Description: c.Description, CreatedAt: timestamppb.New(c.CreatedAt)}
	if c.LastUsedAt != nil {
		p.LastUsed = timestamppb.New(*c.LastUsedAt)
	}
	return p
}

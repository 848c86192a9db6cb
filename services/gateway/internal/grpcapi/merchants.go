package grpcapi

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/merchantadmin"
)

// merchantServer serves MerchantService (docs/contracts-merchants.md).
type merchantServer struct {
	gatewayv1.UnimplementedMerchantServiceServer
	merchants *merchant.Service
	admin     *merchantadmin.Service
	now       func() time.Time
}

var _ gatewayv1.MerchantServiceServer = (*merchantServer)(nil)

// NewMerchantServer returns the MerchantService implementation: reads from
// merchants, changes through admin.
func NewMerchantServer(merchants *merchant.Service, admin *merchantadmin.Service) gatewayv1.MerchantServiceServer {
	return &merchantServer{merchants: merchants, admin: admin, now: time.Now}
}

func merchantMessage(m merchant.Merchant) *gatewayv1.Merchant {
	return &gatewayv1.Merchant{Id: m.ID, Name: m.Name, Hash: m.Hash, ContactName: m.ContactName,
		ContactEmail: m.ContactEmail, Disabled: m.Disabled}
}

// ListMerchants returns every merchant to Admin and Support and the caller's
// own merchants to everyone else.
func (s *merchantServer) ListMerchants(ctx context.Context, _ *gatewayv1.ListMerchantsRequest) (*gatewayv1.ListMerchantsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := s.merchants.List(ctx, scope)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListMerchantsResponse{Merchants: make([]*gatewayv1.Merchant, 0, len(ms))}
	for _, m := range ms {
		resp.Merchants = append(resp.Merchants, merchantMessage(m))
	}
	return resp, nil
}

// CreateMerchant adds a merchant.
func (s *merchantServer) CreateMerchant(ctx context.Context, req *gatewayv1.CreateMerchantRequest) (*gatewayv1.CreateMerchantResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	m, err := s.admin.Create(ctx, actor, merchantadmin.Fields{
		Name: &req.Name, ContactName: &req.ContactName, ContactEmail: &req.ContactEmail})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.CreateMerchantResponse{Merchant: merchantMessage(m)}, nil
}

// UpdateMerchant changes the fields sent of a merchant.
func (s *merchantServer) UpdateMerchant(ctx context.Context, req *gatewayv1.UpdateMerchantRequest) (*gatewayv1.UpdateMerchantResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	m, err := s.admin.Update(ctx, actor, req.Id, merchantadmin.Fields{
		Name: req.Name, ContactName: req.ContactName, ContactEmail: req.ContactEmail, Disabled: req.Disabled})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.UpdateMerchantResponse{Merchant: merchantMessage(m)}, nil
}

func (s *merchantServer) secretMessage(sec merchantadmin.Secret) *gatewayv1.MerchantSecret {
	ts := func(t time.Time) *timestamppb.Timestamp {
		if t.IsZero() {
			return nil
		}
		return timestamppb.New(t)
	}
	return &gatewayv1.MerchantSecret{Id: sec.ID, CreatedAt: ts(sec.CreatedAt), LastUsedAt: ts(sec.LastUsedAt),
		ExpiresAt: ts(expiry(sec)), State: sec.State(s.now()), CreatedBy: sec.CreatedBy}
}

// expiry is when sec stops or stopped being accepted: its expiry, or its
// revocation when earlier.
func expiry(sec merchantadmin.Secret) time.Time {
	if !sec.RevokedAt.IsZero() && (sec.ExpiresAt.IsZero() || sec.RevokedAt.Before(sec.ExpiresAt)) {
		return sec.RevokedAt
	}
	return sec.ExpiresAt
}

// ListMerchantSecrets lists a merchant's API secrets without their values.
func (s *merchantServer) ListMerchantSecrets(ctx context.Context, req *gatewayv1.ListMerchantSecretsRequest) (*gatewayv1.ListMerchantSecretsResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	secs, err := s.admin.Secrets(ctx, actor, req.MerchantId)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListMerchantSecretsResponse{Secrets: make([]*gatewayv1.MerchantSecret, 0, len(secs))}
	for _, sec := range secs {
		resp.Secrets = append(resp.Secrets, s.secretMessage(sec))
	}
	return resp, nil
}

// CreateMerchantSecret generates a secret and answers its value once.
func (s *merchantServer) CreateMerchantSecret(ctx context.Context, req *gatewayv1.CreateMerchantSecretRequest) (*gatewayv1.CreateMerchantSecretResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	var overlap *time.Duration
	if req.OverlapSeconds != nil {
		d := time.Duration(req.GetOverlapSeconds()) * time.Second
		if req.GetOverlapSeconds() < 0 || req.GetOverlapSeconds() > int64(merchantadmin.MaxOverlap/time.Second) {
			d = -1 // refused by the service with the field's sentence
		}
		overlap = &d
	}
	c, err := s.admin.CreateSecret(ctx, actor, req.MerchantId, overlap)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.CreateMerchantSecretResponse{Secret: s.secretMessage(c.Secret), Value: c.Value, MerchantHash: c.MerchantHash}, nil
}

// RevokeMerchantSecret stops accepting a secret at once.
func (s *merchantServer) RevokeMerchantSecret(ctx context.Context, req *gatewayv1.RevokeMerchantSecretRequest) (*gatewayv1.RevokeMerchantSecretResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	sec, err := s.admin.RevokeSecret(ctx, actor, req.MerchantId, req.Id)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.RevokeMerchantSecretResponse{Secret: s.secretMessage(sec)}, nil
}

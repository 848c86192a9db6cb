package grpcapi

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/types/known/structpb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/credential"
)

// credentialServer serves CredentialService: a collab's provider
// credentials (docs/contracts-credentials.md).
type credentialServer struct {
	gatewayv1.UnimplementedCredentialServiceServer
	credentials *credential.Service
}

var _ gatewayv1.CredentialServiceServer = (*credentialServer)(nil)

// NewCredentialServer returns the CredentialService implementation.
func NewCredentialServer(credentials *credential.Service) gatewayv1.CredentialServiceServer {
	return &credentialServer{credentials: credentials}
}

// GetCredentials implements gatewayv1.CredentialServiceServer.
func (s *credentialServer) GetCredentials(ctx context.Context, req *gatewayv1.GetCredentialsRequest) (*gatewayv1.GetCredentialsResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.credentials.Get(ctx, actor, req.GetCollabId())
	if err != nil {
		return nil, err
	}
	st, err := credentialsToProto(c)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.GetCredentialsResponse{Credentials: st}, nil
}

// ListCredentialCollabs implements gatewayv1.CredentialServiceServer.
func (s *credentialServer) ListCredentialCollabs(ctx context.Context, _ *gatewayv1.ListCredentialCollabsRequest) (*gatewayv1.ListCredentialCollabsResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	ls, err := s.credentials.Collabs(ctx, actor)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListCredentialCollabsResponse{Collabs: make([]*gatewayv1.CredentialCollab, 0, len(ls))}
	for _, l := range ls {
		resp.Collabs = append(resp.Collabs, &gatewayv1.CredentialCollab{CollabId: l.CollabID, MerchantId: l.MerchantID,
			MerchantName: l.MerchantName, ProviderId: l.ProviderID, ProviderName: l.ProviderName, ProviderPathSegment: l.PathSegment})
	}
	return resp, nil
}

// SetCredentials implements gatewayv1.CredentialServiceServer.
func (s *credentialServer) SetCredentials(ctx context.Context, req *gatewayv1.SetCredentialsRequest) (*gatewayv1.SetCredentialsResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	var in credential.Credentials
	if req.GetCredentials() != nil {
		in = req.GetCredentials().AsMap()
	}
	c, err := s.credentials.Set(ctx, actor, req.GetCollabId(), in)
	if err != nil {
		return nil, err
	}
	st, err := credentialsToProto(c)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.SetCredentialsResponse{Credentials: st}, nil
}

func credentialsToProto(c credential.Credentials) (*structpb.Struct, error) {
	st, err := structpb.NewStruct(c)
	if err != nil {
		return nil, fmt.Errorf("credentials to proto: %w", err)
	}
	return st, nil
}

package grpcapi

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	"github.com/paygate/paygate/services/auth/internal/identity"
)

// SessionServer implements authv1.SessionServiceServer.
type SessionServer struct {
	authv1.UnimplementedSessionServiceServer
	svc *identity.Service
}

var _ authv1.SessionServiceServer = (*SessionServer)(nil)

// NewSessionServer returns the gRPC face of svc's session administration.
func NewSessionServer(svc *identity.Service) *SessionServer { return &SessionServer{svc: svc} }

// ListActiveSessions implements authv1.SessionServiceServer.
func (s *SessionServer) ListActiveSessions(ctx context.Context, req *authv1.ListActiveSessionsRequest) (*authv1.ListActiveSessionsResponse, error) {
	page, take, offset, err := identity.PageBounds(req.GetPage(), req.GetTake())
	if err != nil {
		return nil, err
	}
	search, err := identity.SearchFilter(req.GetSearch())
	if err != nil {
		return nil, err
	}
	a, err := actor(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	res, err := s.svc.ListActiveSessions(ctx, a, search, req.GetMerchantId(), offset, int(take))
	if err != nil {
		return nil, err
	}
	out := &authv1.ListActiveSessionsResponse{
		Sessions: make([]*authv1.ActiveSession, 0, len(res.Sessions)), TotalCount: res.Total,
		CurrentPage: page, TotalPages: totalPages(res.Total, take),
	}
	for _, x := range res.Sessions {
		out.Sessions = append(out.Sessions, &authv1.ActiveSession{
			Id: x.ID, UserId: x.UserID, Username: x.Username, UserIp: x.IP, UserAgent: x.UserAgent,
			LastLoginUtc:          timestamppb.New(x.CreatedAt),
			RefreshTokenExpiryUtc: timestamppb.New(x.RefreshExpiresAt),
			LastSeenUtc:           timestamppb.New(x.LastSeenAt),
			IsCurrent:             x.ID == a.SessionID,
		})
	}
	return out, nil
}

// TerminateSession implements authv1.SessionServiceServer.
func (s *SessionServer) TerminateSession(ctx context.Context, req *authv1.TerminateSessionRequest) (*authv1.TerminateSessionResponse, error) {
	a, err := actor(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	if err := s.svc.TerminateSession(ctx, a, req.GetId()); err != nil {
		return nil, err
	}
	return &authv1.TerminateSessionResponse{}, nil
}

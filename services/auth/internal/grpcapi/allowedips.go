package grpcapi

import (
	"context"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	"github.com/paygate/paygate/services/auth/internal/identity"
)

// AllowedIPServer implements authv1.AllowedIpServiceServer.
type AllowedIPServer struct {
	authv1.UnimplementedAllowedIpServiceServer
	svc *identity.Service
}

var _ authv1.AllowedIpServiceServer = (*AllowedIPServer)(nil)

// NewAllowedIPServer returns the gRPC face of svc's allowed-IP lists.
func NewAllowedIPServer(svc *identity.Service) *AllowedIPServer { return &AllowedIPServer{svc: svc} }

func allowedIPPB(ip identity.AllowedIP) *authv1.AllowedIp {
	return &authv1.AllowedIp{Id: ip.ID, Name: ip.Name, UserId: ip.UserID, FromIp: ip.From.String(), ToIp: ip.To.String()}
}

// ListUserAllowedIps implements authv1.AllowedIpServiceServer.
func (s *AllowedIPServer) ListUserAllowedIps(ctx context.Context, req *authv1.ListUserAllowedIpsRequest) (*authv1.ListUserAllowedIpsResponse, error) {
	a, err := actor(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	ips, err := s.svc.ListAllowedIPs(ctx, a, req.GetId())
	if err != nil {
		return nil, err
	}
	out := &authv1.ListUserAllowedIpsResponse{AllowedIps: make([]*authv1.AllowedIp, 0, len(ips))}
	for _, ip := range ips {
		out.AllowedIps = append(out.AllowedIps, allowedIPPB(ip))
	}
	return out, nil
}

// CreateAllowedIp implements authv1.AllowedIpServiceServer.
func (s *AllowedIPServer) CreateAllowedIp(ctx context.Context, req *authv1.CreateAllowedIpRequest) (*authv1.CreateAllowedIpResponse, error) {
	a, err := actor(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	ip, err := s.svc.CreateAllowedIP(ctx, a, req.GetUserId(),
		identity.AllowedIPInput{Name: req.GetName(), FromIP: req.GetFromIp(), ToIP: req.GetToIp()})
	if err != nil {
		return nil, err
	}
	return &authv1.CreateAllowedIpResponse{AllowedIp: allowedIPPB(ip)}, nil
}

// UpdateAllowedIp implements authv1.AllowedIpServiceServer.
func (s *AllowedIPServer) UpdateAllowedIp(ctx context.Context, req *authv1.UpdateAllowedIpRequest) (*authv1.UpdateAllowedIpResponse, error) {
	a, err := actor(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	ip, err := s.svc.UpdateAllowedIP(ctx, a, req.GetId(), req.GetUserId(),
		identity.AllowedIPInput{Name: req.GetName(), FromIP: req.GetFromIp(), ToIP: req.GetToIp()})
	if err != nil {
		return nil, err
	}
	return &authv1.UpdateAllowedIpResponse{AllowedIp: allowedIPPB(ip)}, nil
}

// DeleteAllowedIp implements authv1.AllowedIpServiceServer.
func (s *AllowedIPServer) DeleteAllowedIp(ctx context.Context, req *authv1.DeleteAllowedIpRequest) (*authv1.DeleteAllowedIpResponse, error) {
	a, err := actor(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	if err := s.svc.DeleteAllowedIP(ctx, a, req.GetId()); err != nil {
		return nil, err
	}
	return &authv1.DeleteAllowedIpResponse{}, nil
}

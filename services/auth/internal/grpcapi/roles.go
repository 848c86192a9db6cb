package grpcapi

import (
	"context"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/auth/internal/roles"
)

// RoleServer implements authv1.RoleServiceServer.
type RoleServer struct {
	authv1.UnimplementedRoleServiceServer
	svc   *identity.Service
	roles *roles.Service
}

var _ authv1.RoleServiceServer = (*RoleServer)(nil)

// NewRoleServer returns the gRPC face of the role editor; svc resolves the
// caller as stored now.
func NewRoleServer(svc *identity.Service, r *roles.Service) *RoleServer {
	return &RoleServer{svc: svc, roles: r}
}

// CreateRole implements authv1.RoleServiceServer.
func (s *RoleServer) CreateRole(ctx context.Context, req *authv1.CreateRoleRequest) (*authv1.CreateRoleResponse, error) {
	a, err := actor(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	r, err := s.roles.Create(ctx, a, roles.Input{Name: req.GetName(), Permissions: req.GetPermissions(), Global: req.GetGlobalScope()})
	if err != nil {
		return nil, err
	}
	return &authv1.CreateRoleResponse{Role: rolePB(r)}, nil
}

// UpdateRole implements authv1.RoleServiceServer.
func (s *RoleServer) UpdateRole(ctx context.Context, req *authv1.UpdateRoleRequest) (*authv1.UpdateRoleResponse, error) {
	a, err := actor(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	r, err := s.roles.Update(ctx, a, req.GetId(), roles.Input{Name: req.GetName(), Permissions: req.GetPermissions(), Global: req.GetGlobalScope()})
	if err != nil {
		return nil, err
	}
	return &authv1.UpdateRoleResponse{Role: rolePB(r)}, nil
}

// DeleteRole implements authv1.RoleServiceServer.
func (s *RoleServer) DeleteRole(ctx context.Context, req *authv1.DeleteRoleRequest) (*authv1.DeleteRoleResponse, error) {
	a, err := actor(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	if err := s.roles.Delete(ctx, a, req.GetId()); err != nil {
		return nil, err
	}
	return &authv1.DeleteRoleResponse{}, nil
}

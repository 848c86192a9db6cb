package grpcapi

import (
	"context"
	"math"
	"slices"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/server"
)

// UserServer implements authv1.UserServiceServer.
type UserServer struct {
	authv1.UnimplementedUserServiceServer
	svc *identity.Service
}

var _ authv1.UserServiceServer = (*UserServer)(nil)

// NewUserServer returns the gRPC face of svc's user administration.
func NewUserServer(svc *identity.Service) *UserServer { return &UserServer{svc: svc} }

// actor returns the caller as stored now, with its address.
func actor(ctx context.Context, svc *identity.Service) (identity.Actor, error) {
	c, err := claims(ctx)
	if err != nil {
		return identity.Actor{}, err
	}
	ip, _ := server.ClientInfo(ctx)
	return svc.Actor(ctx, c, ip)
}

// ListRoles implements authv1.UserServiceServer.
func (s *UserServer) ListRoles(ctx context.Context, _ *authv1.ListRolesRequest) (*authv1.ListRolesResponse, error) {
	a, err := actor(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	roles, err := s.svc.GivableRoles(ctx, a)
	if err != nil {
		return nil, err
	}
	out := &authv1.ListRolesResponse{Roles: make([]*authv1.Role, 0, len(roles))}
	for _, r := range roles {
		out.Roles = append(out.Roles, rolePB(r))
	}
	return out, nil
}

// rolePB maps a role, built-in or custom.
func rolePB(r identity.Role) *authv1.Role {
	return &authv1.Role{
		Id: r.ID, Name: r.Name, BuiltIn: r.BuiltIn, Permissions: nonNil(r.Permissions), GlobalScope: r.Global,
		UserCount: int32(min(r.UserCount, math.MaxInt32)),
	}
}

// ListUsers implements authv1.UserServiceServer.
func (s *UserServer) ListUsers(ctx context.Context, req *authv1.ListUsersRequest) (*authv1.ListUsersResponse, error) {
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
	res, err := s.svc.ListUsers(ctx, a, search, req.GetMerchantId(), req.GetRoleId(), offset, int(take))
	if err != nil {
		return nil, err
	}
	out := &authv1.ListUsersResponse{
		Users: make([]*authv1.ManagedUser, 0, len(res.Users)), TotalCount: res.Total,
		CurrentPage: page, TotalPages: totalPages(res.Total, take),
	}
	for _, u := range res.Users {
		out.Users = append(out.Users, managedUserPB(u))
	}
	return out, nil
}

// totalPages is how many pages of take hold total items.
func totalPages(total int64, take int32) int32 {
	return int32((total + int64(take) - 1) / int64(take))
}

func managedUserPB(u identity.ManagedUser) *authv1.ManagedUser {
	return &authv1.ManagedUser{
		Id: u.ID, Username: u.Username,
		MerchantIds: nonNil(u.MerchantIDs), RoleIds: nonNil(u.RoleIDs), Roles: nonNil(u.Roles),
		IsPaygateAdmin:      slices.Contains(u.Roles, access.RoleAdmin),
		IsMerchantAdmin:     slices.Contains(u.Roles, access.RoleMerchantAdmin),
		IsIpRestricted:      u.IsIPRestricted,
		IsDisabled:          u.IsDisabled,
		IsTemporaryPassword: u.IsTemporaryPassword,
		HasPasskey:          u.HasPasskey,
		HasSecondFactor:     u.HasSecondFactor,
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// AddUser implements authv1.UserServiceServer.
func (s *UserServer) AddUser(ctx context.Context, req *authv1.AddUserRequest) (*authv1.AddUserResponse, error) {
	a, err := actor(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	temporary := true
	if req.IsTemporaryPassword != nil {
		temporary = req.GetIsTemporaryPassword()
	}
	u, err := s.svc.AddUser(ctx, a, identity.NewUserInput{
		Username: req.GetUsername(), Password: req.GetPassword(), RoleID: req.GetRoleId(),
		MerchantIDs: req.GetMerchantIds(), IsIPRestricted: req.GetHasStrictAccessRules(), Temporary: temporary,
	})
	if err != nil {
		return nil, err
	}
	return &authv1.AddUserResponse{User: managedUserPB(u)}, nil
}

// UpdateUser implements authv1.UserServiceServer.
func (s *UserServer) UpdateUser(ctx context.Context, req *authv1.UpdateUserRequest) (*authv1.UpdateUserResponse, error) {
	a, err := actor(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	u, err := s.svc.UpdateUser(ctx, a, identity.UserChanges{
		UserID: req.GetUserId(), Username: req.Username, MerchantIDs: req.GetMerchantIds(),
		RoleIDs: req.GetRoleIds(), IPRestrict: req.IsIpRestricted, Disable: req.IsDisabled,
	})
	if err != nil {
		return nil, err
	}
	return &authv1.UpdateUserResponse{User: managedUserPB(u)}, nil
}

// ChangeUserPassword implements authv1.UserServiceServer.
func (s *UserServer) ChangeUserPassword(ctx context.Context, req *authv1.ChangeUserPasswordRequest) (*authv1.ChangeUserPasswordResponse, error) {
	a, err := actor(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	temporary := true
	if req.IsTemporaryPassword != nil {
		temporary = req.GetIsTemporaryPassword()
	}
	if err := s.svc.ChangeUserPassword(ctx, a, req.GetId(), req.GetUserId(), req.GetNewPassword(), temporary); err != nil {
		return nil, err
	}
	return &authv1.ChangeUserPasswordResponse{}, nil
}

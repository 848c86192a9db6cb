package grpcapi

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	"github.com/paygate/paygate/services/internal/server"
)

// AuthRoutes is the REST of the auth service's user, role, session and
// allowed-IP calls on the gateway's host (spec 02 §7 lists them as gateway calls): they
// are forwarded over gRPC to the auth service, which owns that data and
// checks the caller's token, with the caller's address vouched for by the
// internal token (server.ForwardClientIP). Of AuthService only the own
// password change is a gateway call; sign-in, refresh, logout and token
// validation stay on the auth host.
type AuthRoutes struct {
	conn *grpc.ClientConn
}

// forwardedAuthMethods are the AuthService methods reachable on the gateway
// host.
var forwardedAuthMethods = map[string]bool{
	authv1.AuthService_ChangeOwnPassword_FullMethodName: true,
}

// NewAuthRoutes connects (lazily) to the auth service's gRPC address.
func NewAuthRoutes(addr string, trustedHops int, internalToken string) (*AuthRoutes, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithChainUnaryInterceptor(onlyForwarded, server.ForwardClientIP(trustedHops, internalToken)))
	if err != nil {
		return nil, fmt.Errorf("auth address %q: %w", addr, err)
	}
	return &AuthRoutes{conn: conn}, nil
}

// onlyForwarded refuses the AuthService methods that are not gateway calls,
// as the gateway's own mux refuses an unknown route.
func onlyForwarded(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if strings.HasPrefix(method, "/"+authv1.AuthService_ServiceDesc.ServiceName+"/") && !forwardedAuthMethods[method] {
		return status.Error(codes.NotFound, "This operation is served by the authentication service's host.")
	}
	return invoker(ctx, method, req, reply, cc, opts...)
}

// Register adds the forwarded routes to the gateway's REST mux; its
// signature is server.Server.RegisterGateway's.
func (a *AuthRoutes) Register(ctx context.Context, mux *runtime.ServeMux, _ grpc.ClientConnInterface) error {
	return errors.Join(
		authv1.RegisterUserServiceHandlerClient(ctx, mux, authv1.NewUserServiceClient(a.conn)),
		authv1.RegisterSessionServiceHandlerClient(ctx, mux, authv1.NewSessionServiceClient(a.conn)),
		authv1.RegisterAllowedIpServiceHandlerClient(ctx, mux, authv1.NewAllowedIpServiceClient(a.conn)),
		authv1.RegisterRoleServiceHandlerClient(ctx, mux, authv1.NewRoleServiceClient(a.conn)),
		authv1.RegisterAuthServiceHandlerClient(ctx, mux, authv1.NewAuthServiceClient(a.conn)),
	)
}

// Close closes the connection to the auth service.
func (a *AuthRoutes) Close() error { return a.conn.Close() }

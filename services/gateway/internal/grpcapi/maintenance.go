package grpcapi

import (
	"context"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/maintenance"
)

// maintenanceServer serves MaintenanceService: the gateway's maintenance
// switch (docs/contracts-providers.md).
type maintenanceServer struct {
	gatewayv1.UnimplementedMaintenanceServiceServer
	maintenance *maintenance.Service
}

var _ gatewayv1.MaintenanceServiceServer = (*maintenanceServer)(nil)

// NewMaintenanceServer returns the MaintenanceService implementation.
func NewMaintenanceServer(maint *maintenance.Service) gatewayv1.MaintenanceServiceServer {
	return &maintenanceServer{maintenance: maint}
}

// EnableMaintenanceMode implements gatewayv1.MaintenanceServiceServer.
func (s *maintenanceServer) EnableMaintenanceMode(ctx context.Context, _ *gatewayv1.MaintenanceServiceEnableMaintenanceModeRequest) (*gatewayv1.MaintenanceServiceEnableMaintenanceModeResponse, error) {
	on, err := s.set(ctx, true)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.MaintenanceServiceEnableMaintenanceModeResponse{IsEnabled: on}, nil
}

// DisableMaintenanceMode implements gatewayv1.MaintenanceServiceServer.
func (s *maintenanceServer) DisableMaintenanceMode(ctx context.Context, _ *gatewayv1.MaintenanceServiceDisableMaintenanceModeRequest) (*gatewayv1.MaintenanceServiceDisableMaintenanceModeResponse, error) {
	on, err := s.set(ctx, false)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.MaintenanceServiceDisableMaintenanceModeResponse{IsEnabled: on}, nil
}

// set turns the switch on or off as the caller and returns it afterwards.
func (s *maintenanceServer) set(ctx context.Context, enabled bool) (bool, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return false, err
	}
	return s.maintenance.Set(ctx, actor, enabled)
}

// GetMaintenanceStatus implements gatewayv1.MaintenanceServiceServer.
func (s *maintenanceServer) GetMaintenanceStatus(ctx context.Context, _ *gatewayv1.MaintenanceServiceGetMaintenanceStatusRequest) (*gatewayv1.MaintenanceServiceGetMaintenanceStatusResponse, error) {
	on, err := s.maintenance.Enabled(ctx)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.MaintenanceServiceGetMaintenanceStatusResponse{IsEnabled: on}, nil
}

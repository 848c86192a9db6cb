package grpcapi

import (
	"context"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
)

// CollabService's deprecated maintenance and activity RPCs answer callers of
// the previous release over gRPC (their REST routes are MaintenanceService's
// and ActivityService's). Each hands its request to the new service's
// method, whose messages are field for field its own, and copies the answer
// back.

// EnableMaintenanceMode implements gatewayv1.CollabServiceServer as
// MaintenanceService.EnableMaintenanceMode.
func (s *collabServer) EnableMaintenanceMode(ctx context.Context, _ *gatewayv1.EnableMaintenanceModeRequest) (*gatewayv1.EnableMaintenanceModeResponse, error) {
	resp, err := s.maintenanceRPCs.EnableMaintenanceMode(ctx, &gatewayv1.MaintenanceServiceEnableMaintenanceModeRequest{})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.EnableMaintenanceModeResponse{IsEnabled: resp.GetIsEnabled()}, nil
}

// DisableMaintenanceMode implements gatewayv1.CollabServiceServer as
// MaintenanceService.DisableMaintenanceMode.
func (s *collabServer) DisableMaintenanceMode(ctx context.Context, _ *gatewayv1.DisableMaintenanceModeRequest) (*gatewayv1.DisableMaintenanceModeResponse, error) {
	resp, err := s.maintenanceRPCs.DisableMaintenanceMode(ctx, &gatewayv1.MaintenanceServiceDisableMaintenanceModeRequest{})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.DisableMaintenanceModeResponse{IsEnabled: resp.GetIsEnabled()}, nil
}

// GetMaintenanceStatus implements gatewayv1.CollabServiceServer as
// MaintenanceService.GetMaintenanceStatus.
func (s *collabServer) GetMaintenanceStatus(ctx context.Context, _ *gatewayv1.GetMaintenanceStatusRequest) (*gatewayv1.GetMaintenanceStatusResponse, error) {
	resp, err := s.maintenanceRPCs.GetMaintenanceStatus(ctx, &gatewayv1.MaintenanceServiceGetMaintenanceStatusRequest{})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.GetMaintenanceStatusResponse{IsEnabled: resp.GetIsEnabled()}, nil
}

// ListMerchantCollabActivity implements gatewayv1.CollabServiceServer as
// ActivityService.ListMerchantCollabActivity.
func (s *collabServer) ListMerchantCollabActivity(ctx context.Context, req *gatewayv1.ListMerchantCollabActivityRequest) (*gatewayv1.ListMerchantCollabActivityResponse, error) {
	resp, err := s.activityRPCs.ListMerchantCollabActivity(ctx, &gatewayv1.ActivityServiceListMerchantCollabActivityRequest{
		MerchantId: req.GetMerchantId(), From: req.GetFrom(), To: req.GetTo(), Limit: req.GetLimit(), CollabId: req.CollabId,
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.ListMerchantCollabActivityResponse{Status: resp.GetStatus(), Data: resp.GetData()}, nil
}

// ListCollabActivity implements gatewayv1.CollabServiceServer as
// ActivityService.ListCollabActivity.
func (s *collabServer) ListCollabActivity(ctx context.Context, req *gatewayv1.ListCollabActivityRequest) (*gatewayv1.ListCollabActivityResponse, error) {
	resp, err := s.activityRPCs.ListCollabActivity(ctx, &gatewayv1.ActivityServiceListCollabActivityRequest{
		From: req.GetFrom(), To: req.GetTo(), Limit: req.GetLimit(), CollabId: req.CollabId,
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.ListCollabActivityResponse{Status: resp.GetStatus(), Data: resp.GetData()}, nil
}

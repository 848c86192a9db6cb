package grpcapi

import (
	"context"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/maintenance"
	"github.com/paygate/paygate/services/internal/apperr"
)

// collabServer serves CollabService: providers, collabs, their settings,
// limits and pay types (docs/contracts-providers.md), and the deprecated
// copies of MaintenanceService's and ActivityService's RPCs
// (collab_deprecated.go).
type collabServer struct {
	gatewayv1.UnimplementedCollabServiceServer
	collabs *collab.Service
	// maintenance tells ListCollabs whether maintenance mode is on.
	maintenance *maintenance.Service
	// maintenanceRPCs and activityRPCs answer the deprecated RPCs.
	maintenanceRPCs *maintenanceServer
	activityRPCs    *activityServer
}

var _ gatewayv1.CollabServiceServer = (*collabServer)(nil)

// NewCollabServer returns the CollabService implementation: collabs and
// providers, the collab list's maintenance flag, and the deprecated
// maintenance and activity RPCs, answered as MaintenanceService and
// ActivityService answer them.
func NewCollabServer(collabs *collab.Service, maint *maintenance.Service, log *activity.Log) gatewayv1.CollabServiceServer {
	return &collabServer{collabs: collabs, maintenance: maint,
		maintenanceRPCs: &maintenanceServer{maintenance: maint}, activityRPCs: &activityServer{log: log}}
}

// ListMerchantCollabs implements gatewayv1.CollabServiceServer.
func (s *collabServer) ListMerchantCollabs(ctx context.Context, req *gatewayv1.ListMerchantCollabsRequest) (*gatewayv1.ListMerchantCollabsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetMerchantId() <= 0 {
		return nil, apperr.NotFound("The merchant was not found.")
	}
	cs, err := s.collabs.Collabs(ctx, scope, req.GetMerchantId())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.ListMerchantCollabsResponse{Collabs: collabsToProto(cs)}, nil
}

// ListCollabs implements gatewayv1.CollabServiceServer.
func (s *collabServer) ListCollabs(ctx context.Context, req *gatewayv1.ListCollabsRequest) (*gatewayv1.ListCollabsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	if req.MerchantId != nil && req.GetMerchantId() <= 0 {
		return nil, apperr.Invalid("merchantId must be a positive number.")
	}
	cs, err := s.collabs.Collabs(ctx, scope, req.GetMerchantId())
	if err != nil {
		return nil, err
	}
	on, err := s.maintenance.Enabled(ctx)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.ListCollabsResponse{Collabs: collabsToProto(cs), IsMaintenanceModeEnabled: on}, nil
}

// ListProviders implements gatewayv1.CollabServiceServer.
func (s *collabServer) ListProviders(ctx context.Context, _ *gatewayv1.ListProvidersRequest) (*gatewayv1.ListProvidersResponse, error) {
	ps, err := s.collabs.Providers(ctx)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListProvidersResponse{Providers: make([]*gatewayv1.Provider, 0, len(ps))}
	for _, p := range ps {
		pts := make([]*gatewayv1.ProviderPayType, 0, len(p.PayTypes))
		for _, pt := range p.PayTypes {
			pts = append(pts, &gatewayv1.ProviderPayType{
				Id: pt.ID, Name: pt.Name, Code: pt.Code, CashIn: pt.CashIn, CashOut: pt.CashOut,
				IsCashInEnabled: pt.CashIn, IsCashOutEnabled: pt.CashOut,
			})
		}
		resp.Providers = append(resp.Providers, &gatewayv1.Provider{
			Id: p.ID, Name: p.Name, IsEnabled: p.IsEnabled,
			SupportsCashIn: p.SupportsCashIn, SupportsCashOut: p.SupportsCashOut,
			SupportsPolling: p.SupportsPolling, SupportsBalance: p.SupportsBalance,
			PathSegment: p.PathSegment, PayTypes: pts,
		})
	}
	return resp, nil
}

// ListProviderCollabs implements gatewayv1.CollabServiceServer.
func (s *collabServer) ListProviderCollabs(ctx context.Context, req *gatewayv1.ListProviderCollabsRequest) (*gatewayv1.ListProviderCollabsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := s.collabs.ProviderCollabs(ctx, scope, req.GetProviderId())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.ListProviderCollabsResponse{Collabs: collabsToProto(cs)}, nil
}

// SetProviderActiveness implements gatewayv1.CollabServiceServer.
func (s *collabServer) SetProviderActiveness(ctx context.Context, req *gatewayv1.SetProviderActivenessRequest) (*gatewayv1.SetProviderActivenessResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if req.IsEnabled == nil {
		return nil, apperr.Invalid("Give isEnabled=true or isEnabled=false.")
	}
	if err := s.collabs.SetProviderEnabled(ctx, actor, req.GetProviderId(), req.GetIsEnabled()); err != nil {
		return nil, err
	}
	return &gatewayv1.SetProviderActivenessResponse{}, nil
}

// GetCollab implements gatewayv1.CollabServiceServer.
func (s *collabServer) GetCollab(ctx context.Context, req *gatewayv1.GetCollabRequest) (*gatewayv1.GetCollabResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.collabs.Collab(ctx, scope, req.GetCollabId())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.GetCollabResponse{Collab: collabToProto(c)}, nil
}

// GetCollabSettings implements gatewayv1.CollabServiceServer.
func (s *collabServer) GetCollabSettings(ctx context.Context, req *gatewayv1.GetCollabSettingsRequest) (*gatewayv1.GetCollabSettingsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.collabs.Collab(ctx, scope, req.GetCollabId())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.GetCollabSettingsResponse{CollabSettings: settingsToProto(c)}, nil
}

// UpdateCollabSettings implements gatewayv1.CollabServiceServer.
func (s *collabServer) UpdateCollabSettings(ctx context.Context, req *gatewayv1.UpdateCollabSettingsRequest) (*gatewayv1.UpdateCollabSettingsResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.collabs.UpdateSettings(ctx, actor, collab.SettingsChange{
		CollabID: req.GetCollabId(),
		Settings: req.GetSettings(),
		PayTypes: channelsFromProto(req.GetPayTypeSettings()),
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.UpdateCollabSettingsResponse{CollabSettings: settingsToProto(c)}, nil
}

// SetCollabActiveness implements gatewayv1.CollabServiceServer.
func (s *collabServer) SetCollabActiveness(ctx context.Context, req *gatewayv1.SetCollabActivenessRequest) (*gatewayv1.SetCollabActivenessResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if req.IsEnabled == nil {
		return nil, apperr.Invalid("Give isEnabled=true or isEnabled=false.")
	}
	if _, err := s.collabs.SetCollabEnabled(ctx, actor, req.GetCollabId(), req.GetIsEnabled()); err != nil {
		return nil, err
	}
	return &gatewayv1.SetCollabActivenessResponse{}, nil
}

// GetCollabLimits implements gatewayv1.CollabServiceServer.
func (s *collabServer) GetCollabLimits(ctx context.Context, req *gatewayv1.GetCollabLimitsRequest) (*gatewayv1.GetCollabLimitsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.collabs.Collab(ctx, scope, req.GetCollabId())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.GetCollabLimitsResponse{Limits: limitsToProto(c)}, nil
}

// UpdateCollabLimits implements gatewayv1.CollabServiceServer.
func (s *collabServer) UpdateCollabLimits(ctx context.Context, req *gatewayv1.UpdateCollabLimitsRequest) (*gatewayv1.UpdateCollabLimitsResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.collabs.UpdateLimits(ctx, actor, req.GetCollabId(), collab.LimitsChange{
		MinDeposit: req.MinimalDepositAmount, MaxDeposit: req.MaximalDepositAmount,
		MinWithdraw: req.MinimalWithdrawAmount, MaxWithdraw: req.MaximalWithdrawAmount,
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.UpdateCollabLimitsResponse{Limits: limitsToProto(c)}, nil
}

// UpdateCollabPayTypeLimits implements gatewayv1.CollabServiceServer.
func (s *collabServer) UpdateCollabPayTypeLimits(ctx context.Context, req *gatewayv1.UpdateCollabPayTypeLimitsRequest) (*gatewayv1.UpdateCollabPayTypeLimitsResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.collabs.UpdatePayTypeLimits(ctx, actor, req.GetCollabPayTypeId(), collab.LimitsChange{
		MinDeposit: req.MinimalDepositAmount, MaxDeposit: req.MaximalDepositAmount,
		MinWithdraw: req.MinimalWithdrawAmount, MaxWithdraw: req.MaximalWithdrawAmount,
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.UpdateCollabPayTypeLimitsResponse{Limits: limitsToProto(c)}, nil
}

// InitializeCollab implements gatewayv1.CollabServiceServer.
func (s *collabServer) InitializeCollab(ctx context.Context, req *gatewayv1.InitializeCollabRequest) (*gatewayv1.InitializeCollabResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.collabs.Initialize(ctx, actor, collab.NewCollab{
		ProviderID:      req.GetProviderId(),
		MerchantID:      req.GetMerchantId(),
		PayTypeIDs:      req.GetPayTypeIds(),
		PayTypeSettings: channelsFromProto(req.GetPayTypeSettings()),
		Settings:        req.GetCollabSettings(),
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.InitializeCollabResponse{Collab: collabToProto(c)}, nil
}

// AddCollabPayTypes implements gatewayv1.CollabServiceServer.
func (s *collabServer) AddCollabPayTypes(ctx context.Context, req *gatewayv1.AddCollabPayTypesRequest) (*gatewayv1.AddCollabPayTypesResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	add := make([]collab.NewPayType, 0, len(req.GetPayTypes()))
	for _, p := range req.GetPayTypes() {
		add = append(add, collab.NewPayType{
			PayTypeChannels: collab.PayTypeChannels{PayTypeID: p.GetPayTypeId(), IsCashInEnabled: p.IsCashInEnabled, IsCashOutEnabled: p.IsCashOutEnabled},
			Limits: collab.LimitsChange{
				MinDeposit: p.MinimalDepositAmount, MaxDeposit: p.MaximalDepositAmount,
				MinWithdraw: p.MinimalWithdrawalAmount, MaxWithdraw: p.MaximalWithdrawalAmount,
			},
		})
	}
	c, err := s.collabs.AddPayTypes(ctx, actor, req.GetCollabId(), add)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.AddCollabPayTypesResponse{Collab: collabToProto(c)}, nil
}

// RemoveCollabPayTypes implements gatewayv1.CollabServiceServer.
func (s *collabServer) RemoveCollabPayTypes(ctx context.Context, req *gatewayv1.RemoveCollabPayTypesRequest) (*gatewayv1.RemoveCollabPayTypesResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.collabs.RemovePayTypes(ctx, actor, req.GetCollabId(), req.GetPayTypeIds())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.RemoveCollabPayTypesResponse{Collab: collabToProto(c)}, nil
}

// channelsFromProto maps pay type switches.
func channelsFromProto(in []*gatewayv1.PayTypeChannels) []collab.PayTypeChannels {
	out := make([]collab.PayTypeChannels, 0, len(in))
	for _, p := range in {
		out = append(out, collab.PayTypeChannels{PayTypeID: p.GetPayTypeId(), IsCashInEnabled: p.IsCashInEnabled, IsCashOutEnabled: p.IsCashOutEnabled})
	}
	return out
}

func collabsToProto(cs []collab.Collab) []*gatewayv1.Collab {
	out := make([]*gatewayv1.Collab, 0, len(cs))
	for _, c := range cs {
		out = append(out, collabToProto(c))
	}
	return out
}

func collabToProto(c collab.Collab) *gatewayv1.Collab {
	pts := make([]*gatewayv1.ProviderPayType, 0, len(c.PayTypes))
	for _, pt := range c.PayTypes {
		pts = append(pts, &gatewayv1.ProviderPayType{
			Id: pt.PayType.ID, Name: pt.Name, Code: pt.Code, CashIn: pt.CashIn, CashOut: pt.CashOut,
			IsCashInEnabled: pt.IsCashInEnabled, IsCashOutEnabled: pt.IsCashOutEnabled,
		})
	}
	return &gatewayv1.Collab{
		Id:               c.ID,
		IsEnabled:        c.Settings.IsEnabled,
		IsCashInEnabled:  c.Settings.IsCashInEnabled,
		IsCashOutEnabled: c.Settings.IsCashOutEnabled,
		Merchant:         &gatewayv1.CollabMerchant{Id: c.Merchant.ID, Name: c.Merchant.Name, Disabled: c.Merchant.Disabled},
		Provider: &gatewayv1.CollabProvider{
			Id: c.Provider.ID, Name: c.Provider.Name,
			SupportsCashIn: c.Provider.SupportsCashIn, SupportsCashOut: c.Provider.SupportsCashOut,
			PayTypes: pts,
		},
	}
}

func settingsToProto(c collab.Collab) *gatewayv1.CollabSettings {
	pts := make([]*gatewayv1.CollabPayTypeSettings, 0, len(c.PayTypes))
	for _, pt := range c.PayTypes {
		pts = append(pts, &gatewayv1.CollabPayTypeSettings{
			PayTypeId: pt.PayType.ID, Name: pt.Name, Code: pt.Code, CashIn: pt.CashIn, CashOut: pt.CashOut,
			IsCashInEnabled: pt.IsCashInEnabled, IsCashOutEnabled: pt.IsCashOutEnabled,
		})
	}
	return &gatewayv1.CollabSettings{CollabId: c.ID, Settings: c.Settings.Map(), PayTypeSettings: pts}
}

func limitsToProto(c collab.Collab) *gatewayv1.CollabLimits {
	pts := make([]*gatewayv1.CollabPayTypeLimits, 0, len(c.PayTypes))
	for _, pt := range c.PayTypes {
		pts = append(pts, &gatewayv1.CollabPayTypeLimits{
			CollabPayTypeId:       pt.ID,
			PayTypeId:             pt.PayType.ID,
			PaytypeName:           pt.Name,
			PaytypeCode:           pt.Code,
			SupportsDeposits:      c.PayTypeSupportsDeposits(pt),
			SupportsWithdrawals:   c.PayTypeSupportsWithdrawals(pt),
			MinimalDepositAmount:  pt.Limits.MinDeposit.String(),
			MaximalDepositAmount:  pt.Limits.MaxDeposit.String(),
			MinimalWithdrawAmount: pt.Limits.MinWithdraw.String(),
			MaximalWithdrawAmount: pt.Limits.MaxWithdraw.String(),
		})
	}
	return &gatewayv1.CollabLimits{
		CollabId:              c.ID,
		SupportsDeposits:      c.SupportsDeposits(),
		SupportsWithdrawals:   c.SupportsWithdrawals(),
		MinimalDepositAmount:  c.Limits.MinDeposit.String(),
		MaximalDepositAmount:  c.Limits.MaxDeposit.String(),
		MinimalWithdrawAmount: c.Limits.MinWithdraw.String(),
		MaximalWithdrawAmount: c.Limits.MaxWithdraw.String(),
		CollabPayTypeLimits:   pts,
	}
}

package grpcapi

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/view"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
)

// viewServer serves ViewService: the users' saved views
// (docs/contracts-views.md). Rules admits a caller holding any of the three
// lists' permissions; the service checks the one of each call's list.
type viewServer struct {
	gatewayv1.UnimplementedViewServiceServer
	views *view.Service
}

var _ gatewayv1.ViewServiceServer = (*viewServer)(nil)

// NewViewServer returns the ViewService implementation.
func NewViewServer(s *view.Service) gatewayv1.ViewServiceServer {
	return &viewServer{views: s}
}

// viewCaller is the signed-in caller of a view call: who, their name,
// scope and permissions, from the token.
func viewCaller(ctx context.Context) (view.Caller, error) {
	claims, ok := access.FromContext(ctx)
	if !ok {
		return view.Caller{}, apperr.Unauthenticated("Please sign in to continue.")
	}
	id, err := claims.UserID()
	if err != nil {
		return view.Caller{}, apperr.New(apperr.KindUnauthenticated, err, "Please sign in to continue.")
	}
	return view.Caller{UserID: id, Username: claims.Username, Scope: scopeOf(claims), Permissions: claims.Permissions}, nil
}

func viewToProto(v view.View, reader int64) *gatewayv1.View {
	return &gatewayv1.View{Id: v.ID, List: string(v.List), Name: v.Name, Query: v.Query, Columns: v.Columns, Sort: v.Sort,
		PageSize: v.PageSize, TimeZone: v.TimeZone, Shared: v.Shared, IsDefault: v.IsDefault, Mine: v.Mine(reader),
		OwnerName: v.OwnerName, CreatedUtc: timestamppb.New(v.CreatedAt), UpdatedUtc: timestamppb.New(v.UpdatedAt)}
}

// ListViews implements gatewayv1.ViewServiceServer.
func (s *viewServer) ListViews(ctx context.Context, req *gatewayv1.ListViewsRequest) (*gatewayv1.ListViewsResponse, error) {
	c, err := viewCaller(ctx)
	if err != nil {
		return nil, err
	}
	vs, err := s.views.List(ctx, c, req.GetList())
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListViewsResponse{Views: make([]*gatewayv1.View, 0, len(vs))}
	for _, v := range vs {
		resp.Views = append(resp.Views, viewToProto(v, c.UserID))
	}
	return resp, nil
}

// GetView implements gatewayv1.ViewServiceServer.
func (s *viewServer) GetView(ctx context.Context, req *gatewayv1.GetViewRequest) (*gatewayv1.GetViewResponse, error) {
	c, err := viewCaller(ctx)
	if err != nil {
		return nil, err
	}
	v, dropped, err := s.views.Get(ctx, c, req.GetId())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.GetViewResponse{View: viewToProto(v, c.UserID), DroppedFilters: dropped}, nil
}

// CreateView implements gatewayv1.ViewServiceServer.
func (s *viewServer) CreateView(ctx context.Context, req *gatewayv1.CreateViewRequest) (*gatewayv1.CreateViewResponse, error) {
	c, err := viewCaller(ctx)
	if err != nil {
		return nil, err
	}
	v, err := s.views.Create(ctx, c, view.Input{List: req.GetList(), Name: req.GetName(), Query: req.GetQuery(),
		Columns: req.GetColumns(), Sort: req.GetSort(), PageSize: req.GetPageSize(), TimeZone: req.GetTimeZone(), Shared: req.GetShared()})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.CreateViewResponse{View: viewToProto(v, c.UserID)}, nil
}

// UpdateView implements gatewayv1.ViewServiceServer.
func (s *viewServer) UpdateView(ctx context.Context, req *gatewayv1.UpdateViewRequest) (*gatewayv1.UpdateViewResponse, error) {
	c, err := viewCaller(ctx)
	if err != nil {
		return nil, err
	}
	v, err := s.views.Update(ctx, c, req.GetId(), view.Input{Name: req.GetName(), Query: req.GetQuery(), Columns: req.GetColumns(),
		Sort: req.GetSort(), PageSize: req.GetPageSize(), TimeZone: req.GetTimeZone(), Shared: req.GetShared()})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.UpdateViewResponse{View: viewToProto(v, c.UserID)}, nil
}

// DeleteView implements gatewayv1.ViewServiceServer.
func (s *viewServer) DeleteView(ctx context.Context, req *gatewayv1.DeleteViewRequest) (*gatewayv1.DeleteViewResponse, error) {
	c, err := viewCaller(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.views.Delete(ctx, c, req.GetId()); err != nil {
		return nil, err
	}
	return &gatewayv1.DeleteViewResponse{}, nil
}

// SetDefaultView implements gatewayv1.ViewServiceServer.
func (s *viewServer) SetDefaultView(ctx context.Context, req *gatewayv1.SetDefaultViewRequest) (*gatewayv1.SetDefaultViewResponse, error) {
	c, err := viewCaller(ctx)
	if err != nil {
		return nil, err
	}
	v, ok, err := s.views.SetDefault(ctx, c, req.GetList(), req.GetViewId())
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.SetDefaultViewResponse{}
	if ok {
		resp.View = viewToProto(v, c.UserID)
	}
	return resp, nil
}

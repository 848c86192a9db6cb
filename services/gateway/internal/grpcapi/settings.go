package grpcapi

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/settings"
	"github.com/paygate/paygate/services/internal/apperr"
)

// settingServer serves SettingService: the gateway's live tunables
// (docs/contracts-settings.md).
type settingServer struct {
	gatewayv1.UnimplementedSettingServiceServer
	settings *settings.Service
}

var _ gatewayv1.SettingServiceServer = (*settingServer)(nil)

// NewSettingServer returns the SettingService implementation.
func NewSettingServer(s *settings.Service) gatewayv1.SettingServiceServer {
	return &settingServer{settings: s}
}

// ListSettingKeys implements gatewayv1.SettingServiceServer.
func (s *settingServer) ListSettingKeys(ctx context.Context, _ *gatewayv1.ListSettingKeysRequest) (*gatewayv1.ListSettingKeysResponse, error) {
	all, err := s.settings.List(ctx)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListSettingKeysResponse{Keys: make([]*gatewayv1.SettingKey, 0, len(all))}
	for _, st := range all {
		k, err := settingKeyToProto(st)
		if err != nil {
			return nil, err
		}
		resp.Keys = append(resp.Keys, k)
	}
	return resp, nil
}

// GetSetting implements gatewayv1.SettingServiceServer.
func (s *settingServer) GetSetting(ctx context.Context, req *gatewayv1.GetSettingRequest) (*gatewayv1.GetSettingResponse, error) {
	st, err := s.settings.Get(ctx, req.GetKey())
	if err != nil {
		return nil, err
	}
	v, err := settingValue(st.Value)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.GetSettingResponse{Value: v}, nil
}

// SetSetting implements gatewayv1.SettingServiceServer. A request without a
// value (an empty REST body) is refused: null must be sent as null.
func (s *settingServer) SetSetting(ctx context.Context, req *gatewayv1.SetSettingRequest) (*gatewayv1.SetSettingResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetValue() == nil {
		if _, err := s.settings.Get(ctx, req.GetKey()); err != nil {
			return nil, err
		}
		return nil, apperr.Invalid("The request body must be the new value of %s, as JSON.", req.GetKey())
	}
	st, err := s.settings.Set(ctx, actor, req.GetKey(), req.GetValue().AsInterface())
	if err != nil {
		return nil, err
	}
	v, err := settingValue(st.Value)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.SetSettingResponse{Value: v}, nil
}

func settingKeyToProto(st settings.Setting) (*gatewayv1.SettingKey, error) {
	value, err := settingValue(st.Value)
	if err != nil {
		return nil, err
	}
	def, err := settingValue(st.DefaultJSON)
	if err != nil {
		return nil, err
	}
	k := &gatewayv1.SettingKey{Key: st.Name, Description: st.Description, Schema: schemaToProto(st.Schema),
		DefaultValue: def, Value: value}
	if st.Stored != nil {
		k.Version, k.UpdatedAt, k.UpdatedBy = st.Stored.Version, timestamppb.New(st.Stored.UpdatedAt), st.Stored.UpdatedBy
	}
	return k, nil
}

func schemaToProto(s settings.Schema) *gatewayv1.SettingSchema {
	p := &gatewayv1.SettingSchema{Type: string(s.Type), Minimum: s.Min, Maximum: s.Max, MaxLength: int32(s.MaxLength),
		Nullable: s.Nullable}
	if s.Items != nil {
		p.Items = schemaToProto(*s.Items)
	}
	for _, f := range s.Fields {
		p.Properties = append(p.Properties, &gatewayv1.SettingField{Name: f.Name, Description: f.Description,
			Schema: schemaToProto(f.Schema)})
	}
	return p
}

// settingValue converts stored JSON to a protobuf Value.
func settingValue(raw json.RawMessage) (*structpb.Value, error) {
	v := &structpb.Value{}
	if err := protojson.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("decode setting value: %w", err)
	}
	return v, nil
}

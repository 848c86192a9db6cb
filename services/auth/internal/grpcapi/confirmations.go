package grpcapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/timestamppb"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	"github.com/paygate/paygate/services/auth/internal/confirmation"
	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/apperr/grpcstatus"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/sensitive"
	"github.com/paygate/paygate/services/internal/stepup"
)

// ConfirmationServer implements authv1.ConfirmationServiceServer.
type ConfirmationServer struct {
	authv1.UnimplementedConfirmationServiceServer
	svc *identity.Service
	cfm *confirmation.Service
}

// NewConfirmationServer returns the gRPC face of the confirmations.
func NewConfirmationServer(svc *identity.Service, cfm *confirmation.Service) *ConfirmationServer {
	return &ConfirmationServer{svc: svc, cfm: cfm}
}

// caller resolves the signed-in caller as stored now.
func confirmCaller(ctx context.Context, svc *identity.Service) (confirmation.Caller, error) {
	a, err := actor(ctx, svc)
	if err != nil {
		return confirmation.Caller{}, err
	}
	return confirmation.Caller{ID: a.ID, Username: a.Username, Global: a.Global, Permissions: a.Permissions,
		IP: a.IP, Bearer: authz.BearerToken(ctx)}, nil
}

// BeginConfirmation implements authv1.ConfirmationServiceServer.
func (s *ConfirmationServer) BeginConfirmation(ctx context.Context, req *authv1.BeginConfirmationRequest) (*authv1.BeginConfirmationResponse, error) {
	c, err := confirmCaller(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	b, err := s.cfm.Begin(ctx, c, req.GetAction(), req.GetRequest(), req.GetReason())
	if err != nil {
		return nil, err
	}
	res := &authv1.BeginConfirmationResponse{ConfirmationId: b.ID, Summary: b.Summary, Title: b.Title, Method: b.Method,
		PublicKeyOptions: string(b.PublicKey), ExpiresAt: timestamppb.New(b.ExpiresAt), Digest: b.Digest,
		ReasonRequired: b.ReasonRequired, Approval: &authv1.ApprovalRequirement{}}
	if b.Policy != nil {
		res.Approval = &authv1.ApprovalRequirement{Required: true, ApproverPermission: b.Policy.ApproverPermission, PolicyId: b.Policy.ID}
	}
	return res, nil
}

// FinishConfirmation implements authv1.ConfirmationServiceServer.
func (s *ConfirmationServer) FinishConfirmation(ctx context.Context, req *authv1.FinishConfirmationRequest) (*authv1.FinishConfirmationResponse, error) {
	c, err := confirmCaller(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	f, err := s.cfm.Finish(ctx, c, req.GetConfirmationId(), req.GetAssertion(), req.GetTotpCode())
	if err != nil {
		return nil, err
	}
	res := &authv1.FinishConfirmationResponse{Token: f.Token}
	if f.Request != nil {
		res.ApprovalRequestId = f.Request.ID
	}
	return res, nil
}

// VerifyProof implements authv1.ConfirmationServiceServer.
func (s *ConfirmationServer) VerifyProof(ctx context.Context, req *authv1.VerifyProofRequest) (*authv1.VerifyProofResponse, error) {
	v, err := s.cfm.VerifyProof(ctx, req.GetProof())
	if err != nil {
		return nil, err
	}
	return &authv1.VerifyProofResponse{Valid: v.Valid, Kind: v.Kind, Reason: v.Reason, UserId: v.UserID, Username: v.Username}, nil
}

func actionsPB(in []confirmation.ActionInfo) []*authv1.SensitiveAction {
	out := make([]*authv1.SensitiveAction, len(in))
	for i, a := range in {
		out[i] = &authv1.SensitiveAction{Name: a.Name, Title: a.Title, StepUp: a.StepUp, ReasonRequired: a.ReasonRequired, AlwaysStepUp: a.AlwaysStepUp}
	}
	return out
}

func policyPB(p confirmation.Policy) *authv1.ApprovalPolicy {
	return &authv1.ApprovalPolicy{Id: p.ID, Action: p.Action, ApproverPermission: p.ApproverPermission,
		MinAmount: p.MinAmount, Currency: p.Currency, MinCount: p.MinCount}
}

func policiesPB(in []confirmation.Policy) []*authv1.ApprovalPolicy {
	out := make([]*authv1.ApprovalPolicy, len(in))
	for i, p := range in {
		out[i] = policyPB(p)
	}
	return out
}

// ListSensitiveActions implements authv1.ConfirmationServiceServer.
func (s *ConfirmationServer) ListSensitiveActions(ctx context.Context, _ *authv1.ListSensitiveActionsRequest) (*authv1.ListSensitiveActionsResponse, error) {
	o, err := s.cfm.Overview(ctx)
	if err != nil {
		return nil, err
	}
	return &authv1.ListSensitiveActionsResponse{Actions: actionsPB(o.Actions), StepUpScope: o.Scope, Policies: policiesPB(o.Policies)}, nil
}

// UpdateStepUpSettings implements authv1.ConfirmationServiceServer.
func (s *ConfirmationServer) UpdateStepUpSettings(ctx context.Context, req *authv1.UpdateStepUpSettingsRequest) (*authv1.UpdateStepUpSettingsResponse, error) {
	c, err := confirmCaller(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	o, err := s.cfm.UpdateStepUp(ctx, c, req.GetActions(), req.GetScope())
	if err != nil {
		return nil, err
	}
	return &authv1.UpdateStepUpSettingsResponse{Actions: actionsPB(o.Actions), StepUpScope: o.Scope}, nil
}

// ApprovalServer implements authv1.ApprovalServiceServer.
type ApprovalServer struct {
	authv1.UnimplementedApprovalServiceServer
	svc *identity.Service
	cfm *confirmation.Service
}

// NewApprovalServer returns the gRPC face of the approvals. ApproveRequest
// is a sensitive method that always needs step-up: the stepup guard in
// front of it verifies the approver's confirmation token.
func NewApprovalServer(svc *identity.Service, cfm *confirmation.Service) *ApprovalServer {
	return &ApprovalServer{svc: svc, cfm: cfm}
}

func (s *ApprovalServer) requestPB(c confirmation.Caller, r confirmation.Request) *authv1.ApprovalRequest {
	out := &authv1.ApprovalRequest{Id: r.ID, Action: r.Action, Description: r.Canonical, Digest: r.Digest, Reason: r.Reason,
		Status: r.Status, RequestedBy: r.RequestedBy, RequestedByUsername: r.RequestedByUsername,
		RequestedAt: timestamppb.New(r.CreatedAt), ExpiresAt: timestamppb.New(r.ExpiresAt), ApproverPermission: r.ApproverPermission,
		DecidedBy: r.DecidedBy, DecidedByUsername: r.DecidedByUsername, Outcome: r.Outcome, CanDecide: s.cfm.CanDecide(c, r)}
	if a, ok := sensitive.ByName(r.Action); ok {
		out.Title = a.Title
	}
	if d, err := sensitive.Parse([]byte(r.Canonical)); err == nil {
		out.Summary = confirmation.Summary(d)
	}
	if r.DecidedAt != nil {
		out.DecidedAt = timestamppb.New(*r.DecidedAt)
	}
	for _, p := range []*sensitive.Proof{&r.RequesterProof, r.ApproverProof} {
		if p != nil {
			b, _ := json.Marshal(p)
			out.Proofs = append(out.Proofs, string(b))
		}
	}
	return out
}

// ListApprovalRequests implements authv1.ApprovalServiceServer.
func (s *ApprovalServer) ListApprovalRequests(ctx context.Context, req *authv1.ListApprovalRequestsRequest) (*authv1.ListApprovalRequestsResponse, error) {
	c, err := confirmCaller(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	p, err := s.cfm.List(ctx, c, req.GetStatus(), req.GetAction(), req.GetMine(), int(req.GetPageSize()), req.GetBeforeId())
	if err != nil {
		return nil, err
	}
	res := &authv1.ListApprovalRequestsResponse{NextBeforeId: p.NextBeforeID}
	for _, r := range p.Requests {
		res.Requests = append(res.Requests, s.requestPB(c, r))
	}
	return res, nil
}

// GetApprovalRequest implements authv1.ApprovalServiceServer.
func (s *ApprovalServer) GetApprovalRequest(ctx context.Context, req *authv1.GetApprovalRequestRequest) (*authv1.GetApprovalRequestResponse, error) {
	c, err := confirmCaller(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	r, err := s.cfm.Get(ctx, c, req.GetId())
	if err != nil {
		return nil, err
	}
	return &authv1.GetApprovalRequestResponse{Request: s.requestPB(c, r)}, nil
}

// CountPendingApprovals implements authv1.ApprovalServiceServer.
func (s *ApprovalServer) CountPendingApprovals(ctx context.Context, _ *authv1.CountPendingApprovalsRequest) (*authv1.CountPendingApprovalsResponse, error) {
	c, err := confirmCaller(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	n, err := s.cfm.CountPending(ctx, c)
	if err != nil {
		return nil, err
	}
	return &authv1.CountPendingApprovalsResponse{Count: int32(n)}, nil
}

// approverConfirmation returns the confirmation the stepup guard verified
// for this call (approval.approve always needs one; without the guard in
// the chain the call is refused).
func approverConfirmation(ctx context.Context) (*sensitive.Claims, error) {
	c, ok := stepup.FromContext(ctx)
	if !ok {
		return nil, apperr.FailedPrecondition(confirmation.MsgNeedConfirm)
	}
	return c, nil
}

// ApproveRequest implements authv1.ApprovalServiceServer.
func (s *ApprovalServer) ApproveRequest(ctx context.Context, req *authv1.ApproveRequestRequest) (*authv1.ApproveRequestResponse, error) {
	c, err := confirmCaller(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	claims, err := approverConfirmation(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.cfm.Approve(ctx, c, req.GetId(), claims)
	if err != nil {
		return nil, err
	}
	return &authv1.ApproveRequestResponse{Request: s.requestPB(c, r)}, nil
}

// RejectRequest implements authv1.ApprovalServiceServer.
func (s *ApprovalServer) RejectRequest(ctx context.Context, req *authv1.RejectRequestRequest) (*authv1.RejectRequestResponse, error) {
	c, err := confirmCaller(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	r, err := s.cfm.Reject(ctx, c, req.GetId(), strings.TrimSpace(req.GetReason()))
	if err != nil {
		return nil, err
	}
	return &authv1.RejectRequestResponse{Request: s.requestPB(c, r)}, nil
}

// ListApprovalPolicies implements authv1.ApprovalServiceServer.
func (s *ApprovalServer) ListApprovalPolicies(ctx context.Context, _ *authv1.ListApprovalPoliciesRequest) (*authv1.ListApprovalPoliciesResponse, error) {
	ps, err := s.cfm.Policies(ctx)
	if err != nil {
		return nil, err
	}
	return &authv1.ListApprovalPoliciesResponse{Policies: policiesPB(ps)}, nil
}

func policyIn(p *authv1.ApprovalPolicy) confirmation.Policy {
	return confirmation.Policy{ID: p.GetId(), Action: p.GetAction(), ApproverPermission: p.GetApproverPermission(),
		MinAmount: p.GetMinAmount(), Currency: p.GetCurrency(), MinCount: p.GetMinCount()}
}

// CreateApprovalPolicy implements authv1.ApprovalServiceServer.
func (s *ApprovalServer) CreateApprovalPolicy(ctx context.Context, req *authv1.CreateApprovalPolicyRequest) (*authv1.CreateApprovalPolicyResponse, error) {
	c, err := confirmCaller(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	p, err := s.cfm.CreatePolicy(ctx, c, policyIn(req.GetPolicy()))
	if err != nil {
		return nil, err
	}
	return &authv1.CreateApprovalPolicyResponse{Policy: policyPB(p)}, nil
}

// UpdateApprovalPolicy implements authv1.ApprovalServiceServer.
func (s *ApprovalServer) UpdateApprovalPolicy(ctx context.Context, req *authv1.UpdateApprovalPolicyRequest) (*authv1.UpdateApprovalPolicyResponse, error) {
	c, err := confirmCaller(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	in := policyIn(req.GetPolicy())
	in.ID = req.GetId()
	p, err := s.cfm.UpdatePolicy(ctx, c, in)
	if err != nil {
		return nil, err
	}
	return &authv1.UpdateApprovalPolicyResponse{Policy: policyPB(p)}, nil
}

// DeleteApprovalPolicy implements authv1.ApprovalServiceServer.
func (s *ApprovalServer) DeleteApprovalPolicy(ctx context.Context, req *authv1.DeleteApprovalPolicyRequest) (*authv1.DeleteApprovalPolicyResponse, error) {
	c, err := confirmCaller(ctx, s.svc)
	if err != nil {
		return nil, err
	}
	if err := s.cfm.DeletePolicy(ctx, c, req.GetId()); err != nil {
		return nil, err
	}
	return &authv1.DeleteApprovalPolicyResponse{}, nil
}

// DecodeRequest decodes a method's request bytes into its request message
// (the method's input type, from the registry the gen packages fill).
func DecodeRequest(method string, b []byte) (proto.Message, error) {
	svc, name, ok := strings.Cut(strings.TrimPrefix(method, "/"), "/")
	if !ok {
		return nil, fmt.Errorf("method %q is not /service/method", method)
	}
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(svc))
	if err != nil {
		return nil, err
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, fmt.Errorf("%s is not a service", svc)
	}
	m := sd.Methods().ByName(protoreflect.Name(name))
	if m == nil {
		return nil, fmt.Errorf("%s has no method %s", svc, name)
	}
	mt, err := protoregistry.GlobalTypes.FindMessageByName(m.Input().FullName())
	if err != nil {
		return nil, err
	}
	msg := mt.New().Interface()
	if err := proto.Unmarshal(b, msg); err != nil {
		return nil, err
	}
	return msg, nil
}

// rawCodec passes already-encoded protobuf bytes through, so that auth
// calls any method without per-method code.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }
func (rawCodec) Marshal(v any) ([]byte, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, fmt.Errorf("raw codec: %T", v)
	}
	return *b, nil
}
func (rawCodec) Unmarshal(data []byte, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("raw codec: %T", v)
	}
	*b = append((*b)[:0], data...)
	return nil
}

// NewApplier returns the confirmation.Applier that calls a method on its
// owning service: addr maps the method's package ("paygate.gateway.v1") to a
// gRPC address. The owner's refusal comes back as an apperr error with the
// owner's sentence.
func NewApplier(addr func(pkg string) (string, error)) confirmation.Applier {
	return func(ctx context.Context, method string, request []byte, bearer, token string) error {
		svc, _, _ := strings.Cut(strings.TrimPrefix(method, "/"), "/")
		pkg := svc[:max(strings.LastIndex(svc, "."), 0)]
		target, err := addr(pkg)
		if err != nil {
			return err
		}
		cc, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return fmt.Errorf("dial %s: %w", target, err)
		}
		defer cc.Close()
		ctx = metadata.NewOutgoingContext(ctx, metadata.Pairs("authorization", "Bearer "+bearer, sensitive.Header, token))
		in, out := request, []byte(nil)
		if err := cc.Invoke(ctx, method, &in, &out, grpc.ForceCodec(rawCodec{})); err != nil {
			return grpcstatus.FromError(err)
		}
		return nil
	}
}

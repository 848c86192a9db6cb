package grpcapi

import (
	"context"
	"strconv"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/server"
)

// MerchantVerifier reads the marker of a call whose merchant signature was
// verified (httpapi.MerchantAuth.VerifiedMerchant).
type MerchantVerifier func(markers []string) (int32, bool)

// markerMetadata is httpapi.MarkerMetadata.
const markerMetadata = "paygate-verified-merchant"

// transactionServer serves TransactionService: payments, the transaction
// list and journal, and the operator's corrections
// (docs/contracts-transactions.md).
type transactionServer struct {
	gatewayv1.UnimplementedTransactionServiceServer
	payments *payment.Service
	verifier MerchantVerifier
}

var _ gatewayv1.TransactionServiceServer = (*transactionServer)(nil)

// NewTransactionServer returns the TransactionService implementation;
// verifier reads the marker of merchant-signed payment calls (nil: only
// operators may start payments).
func NewTransactionServer(payments *payment.Service, verifier MerchantVerifier) gatewayv1.TransactionServiceServer {
	return &transactionServer{payments: payments, verifier: verifier}
}

// InitializeTransaction implements gatewayv1.TransactionServiceServer. Its rule
// is public: the caller is either a signed-in user meeting
// access.ReqCreateTransaction (admin-wide, Create Transactions) or a merchant
// whose signature the HTTP middleware verified.
func (s *transactionServer) InitializeTransaction(ctx context.Context, req *gatewayv1.InitializeTransactionRequest) (*gatewayv1.InitializeTransactionResponse, error) {
	ip, ua := server.ClientInfo(ctx)
	who := payment.Initiator{IP: ip, UserAgent: ua}
	md, _ := metadata.FromIncomingContext(ctx)
	if id, ok := s.verifyMerchant(md.Get(markerMetadata)); ok {
		who.MerchantID = id
	} else if claims, ok := access.FromContext(ctx); ok {
		if !access.ReqCreateTransaction.MetBy(claims) {
			return nil, apperr.Forbidden("You do not have permission to do this.")
		}
		who.Operator, who.Username = true, claims.Username
	} else {
		return nil, apperr.Unauthenticated("Sign in, or sign the request with the merchant's API secret.")
	}
	pd, mdata := req.GetPaymentData(), req.GetMerchantData()
	amount, err := amountText(pd.GetAmount())
	if err != nil {
		return nil, err
	}
	t, err := s.payments.Initialize(ctx, who, payment.InitRequest{
		Nonce: pd.GetNonce(), Amount: amount, Currency: pd.GetCurrency(), ProviderID: pd.GetProviderId(),
		PayType: pd.GetPayType(), ProviderTags: pd.GetProviderTags(), MerchantHash: mdata.GetMerchantHash(),
		ClientID: mdata.GetClientId(), AdditionalData: mdata.GetAdditionalData().AsMap(), CashIn: req.GetCashIn(),
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.InitializeTransactionResponse{
		TransactionReferenceId: t.ReferenceID, Id: t.ID, TransactionStatus: int32(t.Status),
		TransactionStatusMessage: t.StatusMessage,
	}, nil
}

func (s *transactionServer) verifyMerchant(markers []string) (int32, bool) {
	if s.verifier == nil || len(markers) == 0 {
		return 0, false
	}
	return s.verifier(markers)
}

// amountText reads the amount as a decimal string or a JSON number.
func amountText(v *structpb.Value) (string, error) {
	switch x := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		return x.StringValue, nil
	case *structpb.Value_NumberValue:
		return strconv.FormatFloat(x.NumberValue, 'f', -1, 64), nil
	case nil:
		return "", nil
	}
	return "", apperr.Invalid("The payment is not valid: paymentData.amount must be an amount such as 150.00.")
}

// GetTransaction implements gatewayv1.TransactionServiceServer.
func (s *transactionServer) GetTransaction(ctx context.Context, req *gatewayv1.GetTransactionRequest) (*gatewayv1.GetTransactionResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.payments.Get(ctx, scope, req.GetId())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.GetTransactionResponse{Transaction: transactionToProto(t)}, nil
}

// SetTransactionStatus implements gatewayv1.TransactionServiceServer.
func (s *transactionServer) SetTransactionStatus(ctx context.Context, req *gatewayv1.SetTransactionStatusRequest) (*gatewayv1.SetTransactionStatusResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if req.TransactionStatus == nil {
		return nil, apperr.Invalid("transactionStatus, the status you saw, is required: ?transactionStatus=<code>.")
	}
	op := payment.Operator{UserID: actor.UserID, Username: actor.Username, IP: actor.IP, UserAgent: actor.UserAgent, Scope: actor.Scope}
	t, err := s.payments.SetStatus(ctx, op, req.GetId(), payment.Status(req.GetStatus()), payment.Status(req.GetTransactionStatus()))
	if err != nil {
		return nil, err
	}
	return &gatewayv1.SetTransactionStatusResponse{Transaction: transactionToProto(t)}, nil
}

// ListTransactionLogs implements gatewayv1.TransactionServiceServer.
func (s *transactionServer) ListTransactionLogs(ctx context.Context, req *gatewayv1.ListTransactionLogsRequest) (*gatewayv1.ListTransactionLogsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	logs, err := s.payments.Logs(ctx, scope, req.GetId())
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListTransactionLogsResponse{Logs: make([]*gatewayv1.TransactionLog, 0, len(logs))}
	for _, e := range logs {
		l := &gatewayv1.TransactionLog{
			Id: e.ID, TransactionId: e.TransactionID, CreatedUtc: timestamppb.New(e.At), Stage: string(e.Stage),
			Level: e.Level, Message: e.Message, SourceContext: e.SourceContext, Application: e.Application,
			TransactionUpdate: jsonValue(e.TransactionUpdate), Content: jsonValue(e.Content), Headers: jsonValue(e.Headers),
			QueryParams: jsonValue(e.QueryParams), AuthData: e.AuthData, WebhookRequest: jsonValue(e.WebhookRequest),
			WebhookResponse: jsonValue(e.WebhookResponse), WebhookHeaders: jsonValue(e.WebhookHeaders),
		}
		if e.Exception != nil {
			l.Exception = &gatewayv1.TransactionLogException{Type: e.Exception.Type, Message: e.Exception.Message, StackTrace: e.Exception.StackTrace}
		}
		resp.Logs = append(resp.Logs, l)
	}
	return resp, nil
}

// jsonValue converts a JSON-shaped value; nil (or anything unconvertible)
// is JSON null.
func jsonValue(v any) *structpb.Value {
	if v == nil {
		return structpb.NewNullValue()
	}
	pv, err := structpb.NewValue(v)
	if err != nil {
		return structpb.NewNullValue()
	}
	return pv
}

func jsonStruct(m map[string]any) *structpb.Struct {
	s, err := structpb.NewStruct(m)
	if err != nil || m == nil {
		return &structpb.Struct{}
	}
	return s
}

func transactionToProto(t payment.Transaction) *gatewayv1.Transaction {
	return &gatewayv1.Transaction{
		Id: t.ID, TransactionReferenceId: t.ReferenceID, ProviderTransactionId: t.ProviderTID,
		MerchantClientId: t.MerchantClientID, Nonce: t.Nonce, Amount: t.Amount.String(), Currency: t.Currency,
		DestinationAmount: t.DestinationAmount.String(), DestinationCurrency: t.DestinationCurrency,
		TransactionType: int32(t.Type), TransactionStatus: int32(t.Status), TransactionStatusMessage: t.StatusMessage,
		CallbackDelivery: strconv.Itoa(int(t.CallbacksDelivered)) + "/" + strconv.Itoa(int(t.CallbacksTotal)), MerchantName: t.MerchantName, ProviderName: t.ProviderName,
		ProviderPayType: t.PayTypeName, CreatedUtc: timestamppb.New(t.CreatedAt), UpdatedUtc: timestamppb.New(t.UpdatedAt),
		ErrorMessage: t.ErrorMessage, AccountData: jsonStruct(t.AccountData), PaymentIpAddress: t.PaymentIP,
		UserAgent: t.UserAgent, PaymentMethodType: int32(t.PaymentMethodType), PaymentMethodValue: t.PaymentMethodValue,
		AppliedFeeId: t.Fee.ID, AppliedFeeType: int32(t.Fee.Type), AppliedFeeValue: feeValue(t.Fee),
		AppliedFeeAmount: t.Fee.Amount.String(), AppliedFeeCurrency: t.Fee.Currency, AppliedFeePayer: int32(t.Fee.Payer),
		PayTypeId: t.PayTypeID, IsCallbackSendingCanceled: t.CallbacksCanceled, CollabId: t.CollabID,
		MerchantId: t.MerchantID, ProviderId: t.ProviderID, ProviderTags: t.ProviderTags,
		ProviderData: jsonStruct(t.ProviderData), PollingAttempts: t.PollAttempts,
	}
}

func feeValue(f payment.AppliedFee) string {
	if f.ID == 0 {
		return ""
	}
	return f.Value.String()
}

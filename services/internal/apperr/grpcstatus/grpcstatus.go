// Package grpcstatus converts apperr errors to gRPC statuses and back.
//
// The kind travels in an errdetails.ErrorInfo (domain ErrorDomain, reason the
// kind's code), so REST and gRPC clients of another service recover the exact
// kind even where two kinds share a gRPC code, and a RetryInfo carries the
// wait of a throttled call.
package grpcstatus

import (
	"context"
	"encoding/base64"
	"errors"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/paygate/paygate/services/internal/apperr"
)

// ErrorDomain is the ErrorInfo domain of statuses made from apperr errors.
const ErrorDomain = "paygate"

// The ErrorInfo metadata keys of a KindConfirmationRequired status: the
// canonical JSON of the described action and the standard base64 of the
// request's protobuf bytes.
const (
	ConfirmationAction  = "action"
	ConfirmationRequest = "request"
)

// Code returns the gRPC code a kind is sent with. Conflict is Aborted and
// FailedPrecondition is FailedPrecondition; REST tells them apart from plain
// gRPC errors through the ErrorInfo detail (409 and 422).
func Code(k apperr.Kind) codes.Code {
	switch k {
	case apperr.KindInvalid:
		return codes.InvalidArgument
	case apperr.KindUnauthenticated:
		return codes.Unauthenticated
	case apperr.KindForbidden:
		return codes.PermissionDenied
	case apperr.KindNotFound:
		return codes.NotFound
	case apperr.KindConflict:
		return codes.Aborted
	case apperr.KindFailedPrecondition, apperr.KindConfirmationRequired:
		return codes.FailedPrecondition
	case apperr.KindTooManyRequests:
		return codes.ResourceExhausted
	default:
		return codes.Internal
	}
}

// KindForCode returns the kind that best describes a gRPC code that carries no
// ErrorInfo (errors raised by gRPC or grpc-gateway themselves).
func KindForCode(c codes.Code) apperr.Kind {
	switch c {
	case codes.InvalidArgument, codes.OutOfRange:
		return apperr.KindInvalid
	case codes.Unauthenticated:
		return apperr.KindUnauthenticated
	case codes.PermissionDenied:
		return apperr.KindForbidden
	case codes.NotFound, codes.Unimplemented:
		return apperr.KindNotFound
	case codes.AlreadyExists, codes.Aborted:
		return apperr.KindConflict
	case codes.FailedPrecondition:
		return apperr.KindFailedPrecondition
	case codes.ResourceExhausted:
		return apperr.KindTooManyRequests
	default:
		return apperr.KindInternal
	}
}

// ToStatus converts err to the status a caller may see. An *apperr.Error
// keeps its kind and public message; a status that already carries our
// ErrorInfo (an error relayed from another Paygate service) and context
// cancellation pass through; anything else becomes Internal with
// apperr.InternalMessage, so no unknown error text reaches a caller.
func ToStatus(err error) *status.Status {
	if err == nil {
		return status.New(codes.OK, "")
	}
	if e := apperr.As(err); e != nil {
		return fromAppErr(e)
	}
	if st, ok := status.FromError(err); ok {
		if _, known := kindFromDetails(st); known {
			return st
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return status.New(codes.Canceled, "The request was cancelled.")
	case errors.Is(err, context.DeadlineExceeded):
		return status.New(codes.DeadlineExceeded, "The request took too long. Please try again.")
	}
	if st, ok := status.FromError(err); ok {
		switch st.Code() {
		case codes.Canceled, codes.DeadlineExceeded, codes.Unavailable:
			return status.New(st.Code(), "The service is temporarily unavailable. Please try again.")
		}
	}
	return fromAppErr(&apperr.Error{Kind: apperr.KindInternal})
}

func fromAppErr(e *apperr.Error) *status.Status {
	kind := e.Kind
	if kind == "" {
		kind = apperr.KindInternal
	}
	st := status.New(Code(kind), e.PublicMessage())
	info := &errdetails.ErrorInfo{Reason: string(kind), Domain: ErrorDomain}
	if kind == apperr.KindConfirmationRequired && e.Confirmation != nil {
		info.Metadata = map[string]string{
			ConfirmationAction:  e.Confirmation.Action,
			ConfirmationRequest: base64.StdEncoding.EncodeToString(e.Confirmation.Request),
		}
	}
	details := []protoadapt.MessageV1{info}
	if kind == apperr.KindTooManyRequests && e.RetryAfter > 0 {
		details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(e.RetryAfter)})
	}
	withDetails, err := st.WithDetails(details...)
	if err != nil {
		return st
	}
	return withDetails
}

// KindOf returns the kind of a status: from its ErrorInfo when it has ours,
// otherwise from its code.
func KindOf(st *status.Status) apperr.Kind {
	if k, ok := kindFromDetails(st); ok {
		return k
	}
	return KindForCode(st.Code())
}

// RetryAfter returns the wait carried by a status's RetryInfo, or 0.
func RetryAfter(st *status.Status) time.Duration {
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok && ri.GetRetryDelay() != nil {
			return ri.GetRetryDelay().AsDuration()
		}
	}
	return 0
}

// FromError turns an error returned by a gRPC client call to another Paygate
// service back into an *apperr.Error with the same kind, message and retry
// wait. Errors without our ErrorInfo become internal errors whose cause is
// the original error.
func FromError(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	if k, known := kindFromDetails(st); known {
		return &apperr.Error{Kind: k, Message: st.Message(), RetryAfter: RetryAfter(st), Confirmation: Confirmation(st), Cause: err}
	}
	return &apperr.Error{Kind: apperr.KindInternal, Message: "call another service", Cause: err}
}

// Confirmation returns the action a KindConfirmationRequired status asks the
// caller to confirm, or nil.
func Confirmation(st *status.Status) *apperr.Confirmation {
	for _, d := range st.Details() {
		info, ok := d.(*errdetails.ErrorInfo)
		if !ok || info.GetDomain() != ErrorDomain || info.GetReason() != string(apperr.KindConfirmationRequired) {
			continue
		}
		md := info.GetMetadata()
		req, err := base64.StdEncoding.DecodeString(md[ConfirmationRequest])
		if err != nil || md[ConfirmationAction] == "" {
			return nil
		}
		return &apperr.Confirmation{Action: md[ConfirmationAction], Request: req}
	}
	return nil
}

// KindFromDetails returns the kind carried by a status's ErrorInfo, and false
// when the status was not made from an apperr error.
func KindFromDetails(st *status.Status) (apperr.Kind, bool) { return kindFromDetails(st) }

func kindFromDetails(st *status.Status) (apperr.Kind, bool) {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == ErrorDomain {
			if k, ok := apperr.ParseKind(info.GetReason()); ok {
				return k, true
			}
		}
	}
	return "", false
}

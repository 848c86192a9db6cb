package grpcstatus_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/apperr/grpcstatus"
)

func TestToStatusAndBack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err     error
		code    codes.Code
		message string
		kind    apperr.Kind
	}{
		{apperr.Invalid("Bad."), codes.InvalidArgument, "Bad.", apperr.KindInvalid},
		{apperr.Unauthenticated("Sign in."), codes.Unauthenticated, "Sign in.", apperr.KindUnauthenticated},
		{apperr.Forbidden("No."), codes.PermissionDenied, "No.", apperr.KindForbidden},
		{apperr.NotFound("Gone."), codes.NotFound, "Gone.", apperr.KindNotFound},
		{apperr.Conflict("Stale."), codes.Aborted, "Stale.", apperr.KindConflict},
		{apperr.FailedPrecondition("Closed."), codes.FailedPrecondition, "Closed.", apperr.KindFailedPrecondition},
		{apperr.TooManyRequests(3*time.Second, "Slow."), codes.ResourceExhausted, "Slow.", apperr.KindTooManyRequests},
		{apperr.ConfirmationRequired(`{"action":"fee.update"}`, []byte{8, 12}), codes.FailedPrecondition,
			apperr.ConfirmationMessage, apperr.KindConfirmationRequired},
		{apperr.Internal("secret detail"), codes.Internal, apperr.InternalMessage, apperr.KindInternal},
		{errors.New("password=hunter2"), codes.Internal, apperr.InternalMessage, apperr.KindInternal},
		{status.Error(codes.NotFound, "downstream detail"), codes.Internal, apperr.InternalMessage, apperr.KindInternal},
		{fmt.Errorf("call: %w", context.Canceled), codes.Canceled, "The request was cancelled.", apperr.KindInternal},
	}
	for _, tt := range tests {
		st := grpcstatus.ToStatus(tt.err)
		if st.Code() != tt.code || st.Message() != tt.message {
			t.Errorf("ToStatus(%v) = %v %q, want %v %q", tt.err, st.Code(), st.Message(), tt.code, tt.message)
		}
		back := grpcstatus.FromError(st.Err())
		if apperr.KindOf(back) != tt.kind {
			t.Errorf("FromError(ToStatus(%v)) kind = %q, want %q", tt.err, apperr.KindOf(back), tt.kind)
		}
		// A status relayed from another Paygate service passes through as is.
		if _, ours := grpcstatus.KindFromDetails(st); ours {
			if again := grpcstatus.ToStatus(st.Err()); again.Code() != st.Code() || again.Message() != st.Message() {
				t.Errorf("relayed status changed: %v", again)
			}
		}
	}
	st := grpcstatus.ToStatus(apperr.ConfirmationRequired(`{"action":"fee.update"}`, []byte{8, 12}))
	var info *errdetails.ErrorInfo
	for _, d := range st.Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok {
			info = i
		}
	}
	if info == nil || info.GetDomain() != "paygate" || info.GetReason() != "confirmation_required" ||
		info.GetMetadata()["action"] != `{"action":"fee.update"}` || info.GetMetadata()["request"] != "CAw=" {
		t.Errorf("confirmation ErrorInfo = %v", info)
	}
	if c := apperr.As(grpcstatus.FromError(st.Err())).Confirmation; c == nil || c.Action != `{"action":"fee.update"}` || string(c.Request) != "\x08\x0c" {
		t.Errorf("FromError confirmation = %+v", c)
	}
	if d := grpcstatus.RetryAfter(grpcstatus.ToStatus(apperr.TooManyRequests(3*time.Second, "Slow."))); d != 3*time.Second {
		t.Errorf("RetryAfter = %v", d)
	}
}

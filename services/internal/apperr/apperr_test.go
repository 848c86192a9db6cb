package apperr_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
)

func TestKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err    error
		kind   apperr.Kind
		status int
	}{
		{apperr.Invalid("Name %q is too long.", "x"), apperr.KindInvalid, 400},
		{apperr.Unauthenticated("Sign in."), apperr.KindUnauthenticated, 401},
		{apperr.Forbidden("No."), apperr.KindForbidden, 403},
		{apperr.NotFound("Gone."), apperr.KindNotFound, 404},
		{apperr.Conflict("Stale."), apperr.KindConflict, 409},
		{apperr.FailedPrecondition("Closed."), apperr.KindFailedPrecondition, 422},
		{apperr.TooManyRequests(time.Second, "Slow down."), apperr.KindTooManyRequests, 429},
		{apperr.ConfirmationRequired(`{"action":"fee.update"}`, []byte{8, 1}), apperr.KindConfirmationRequired, 428},
		{apperr.Internal("db broke"), apperr.KindInternal, 500},
		{errors.New("plain"), apperr.KindInternal, 500},
		{fmt.Errorf("wrapped: %w", apperr.NotFound("Gone.")), apperr.KindNotFound, 404},
	}
	for _, tt := range tests {
		if got := apperr.KindOf(tt.err); got != tt.kind {
			t.Errorf("KindOf(%v) = %q, want %q", tt.err, got, tt.kind)
		}
		if got := tt.kind.HTTPStatus(); got != tt.status {
			t.Errorf("%s.HTTPStatus() = %d, want %d", tt.kind, got, tt.status)
		}
		if k, ok := apperr.ParseKind(string(tt.kind)); !ok || k != tt.kind {
			t.Errorf("ParseKind(%q) = %q, %v", tt.kind, k, ok)
		}
	}
	if apperr.KindOf(nil) != "" {
		t.Error("KindOf(nil) is not empty")
	}
	if msg := apperr.As(apperr.Invalid("Name %q is too long.", "x")).Message; msg != `Name "x" is too long.` {
		t.Errorf("message = %q", msg)
	}
	if msg := apperr.As(apperr.Internal("db broke")).PublicMessage(); msg != apperr.InternalMessage {
		t.Errorf("internal public message = %q", msg)
	}
	cause := errors.New("driver")
	e := apperr.New(apperr.KindConflict, cause, "The %s already exists.", "user")
	if !errors.Is(e, cause) || e.PublicMessage() != "The user already exists." {
		t.Errorf("New = %v", e)
	}
}

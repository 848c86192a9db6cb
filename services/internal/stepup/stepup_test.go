package stepup_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/sensitive"
	"github.com/paygate/paygate/services/internal/stepup"
)

const (
	setStatus = "/paygate.gateway.v1.TransactionService/SetTransactionStatus"
	updateFee = "/paygate.gateway.v1.FeeService/UpdateFee"
	listFees  = "/paygate.gateway.v1.FeeService/ListFees"
	kid       = "k1"
)

// memStore is a Store in memory.
type memStore struct {
	mu   sync.Mutex
	used map[string]stepup.Use
}

func (m *memStore) Record(_ context.Context, u stepup.Use) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.used[u.ID]; ok {
		return stepup.ErrUsed
	}
	m.used[u.ID] = u
	return nil
}

func (m *memStore) Forget(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.used, id)
	return nil
}

type fixture struct {
	key    ed25519.PrivateKey
	guard  *stepup.Guard
	store  *memStore
	status int64 // the transaction's observed status
	calls  int   // handler runs
	fail   error // the handler's answer
	seen   *sensitive.Claims
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{key: priv, store: &memStore{used: map[string]stepup.Use{}}, status: 1}
	verifier := authz.NewKeyConfirmationVerifier(func(k string) (crypto.PublicKey, error) {
		if k != kid {
			return nil, errors.New("unknown key")
		}
		return pub, nil
	})
	f.guard = stepup.New(stepup.Config{Tokens: verifier, Store: f.store})
	f.guard.Observe(setStatus, func(_ context.Context, req proto.Message) (map[string]any, error) {
		return map[string]any{"status": f.status, "amount": "150.00", "currency": "EUR"}, nil
	})
	return f
}

// call runs the interceptor for method as user (cfm confirm) with an optional token.
func (f *fixture) call(method string, user int64, confirm []string, req proto.Message, token string) error {
	ctx := access.NewContext(context.Background(), &access.Claims{
		RegisteredClaims: jwt.RegisteredClaims{Subject: strconv.FormatInt(user, 10)}, Confirm: confirm})
	if token != "" {
		ctx = metadata.NewIncomingContext(ctx, metadata.Pairs(sensitive.Header, token))
	}
	_, err := f.guard.Unary()(ctx, req, &grpc.UnaryServerInfo{FullMethod: method}, func(ctx context.Context, _ any) (any, error) {
		f.calls++
		f.seen, _ = stepup.FromContext(ctx)
		if f.fail != nil {
			return nil, f.fail
		}
		return struct{}{}, nil
	})
	return err
}

// confirmation asks for the confirmation of req (a 428) and signs its action
// with reason for user, as auth would.
func (f *fixture) confirmation(t *testing.T, method string, user int64, req proto.Message, reason, jti string, ttl time.Duration) string {
	t.Helper()
	err := f.call(method, user, []string{"transaction.set_status", "fee.update"}, req, "")
	e := apperr.As(err)
	if e == nil || e.Kind != apperr.KindConfirmationRequired || e.Confirmation == nil {
		t.Fatalf("without a token: %v, want confirmation_required", err)
	}
	d, err := sensitive.Parse([]byte(e.Confirmation.Action))
	if err != nil {
		t.Fatal(err)
	}
	var back gatewayv1.SetTransactionStatusRequest
	if method == setStatus {
		if err := proto.Unmarshal(e.Confirmation.Request, &back); err != nil || !proto.Equal(&back, req) {
			t.Fatalf("request bytes = %v (%v)", &back, err)
		}
	}
	d.Reason = reason
	canonical := d.Canonical()
	now := time.Now()
	tok, err := authz.SignConfirmation(f.key, kid, &sensitive.Claims{
		RegisteredClaims: jwt.RegisteredClaims{Subject: strconv.FormatInt(user, 10), ID: jti,
			IssuedAt: jwt.NewNumericDate(now.Add(-time.Second)), ExpiresAt: jwt.NewNumericDate(now.Add(ttl))},
		Action: string(canonical), Digest: sensitive.Digest(canonical), Proof: sensitive.ProofTOTP,
		Proofs: []sensitive.Proof{{Kind: sensitive.ProofTOTP, Role: sensitive.RoleActor, UserID: user, ConfirmationID: jti}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func statusReq(id int64, to int32) *gatewayv1.SetTransactionStatusRequest {
	seen := int32(1)
	return &gatewayv1.SetTransactionStatusRequest{Id: id, Status: to, TransactionStatus: &seen}
}

func kindOf(err error) apperr.Kind { return apperr.KindOf(err) }

func TestAskDescribesTheCall(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	err := f.call(setStatus, 7, []string{"transaction.set_status"}, statusReq(12, 2), "")
	e := apperr.As(err)
	if e == nil || e.Kind != apperr.KindConfirmationRequired || f.calls != 0 {
		t.Fatalf("err = %v, calls %d", err, f.calls)
	}
	want := `{"action":"transaction.set_status","method":"/paygate.gateway.v1.TransactionService/SetTransactionStatus",` +
		`"targets":{"id":"12"},"values":{"id":"12","status":2,"transactionStatus":1},` +
		`"observed":{"amount":"150.00","currency":"EUR","status":1}}`
	if e.Confirmation.Action != want {
		t.Errorf("action = %s\nwant %s", e.Confirmation.Action, want)
	}
	if base64.StdEncoding.EncodeToString(e.Confirmation.Request) == "" {
		t.Error("no request bytes")
	}
}

func TestConfirmedCallRunsOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	req := statusReq(12, 2)
	tok := f.confirmation(t, setStatus, 7, req, "customer paid by wire", "c1", time.Minute)
	if err := f.call(setStatus, 7, []string{"transaction.set_status"}, req, tok); err != nil {
		t.Fatalf("confirmed call: %v", err)
	}
	if f.calls != 1 || f.seen == nil || f.seen.ID != "c1" || stepup.Reason(f.seen) != "customer paid by wire" {
		t.Fatalf("calls %d, claims %+v", f.calls, f.seen)
	}
	if u := f.store.used["c1"]; u.UserID != 7 || u.Action != "transaction.set_status" || len(u.Proofs) != 1 {
		t.Errorf("recorded use = %+v", u)
	}
	// A second use.
	err := f.call(setStatus, 7, []string{"transaction.set_status"}, req, tok)
	if kindOf(err) != apperr.KindConflict || apperr.As(err).Message != stepup.MsgUsed || f.calls != 1 {
		t.Errorf("second use: %v (calls %d)", err, f.calls)
	}
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	cfm := []string{"transaction.set_status"}
	t.Run("altered request", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		tok := f.confirmation(t, setStatus, 7, statusReq(12, 2), "why", "c1", time.Minute)
		for _, req := range []*gatewayv1.SetTransactionStatusRequest{statusReq(12, 3), statusReq(13, 2)} {
			err := f.call(setStatus, 7, cfm, req, tok)
			if kindOf(err) != apperr.KindForbidden || apperr.As(err).Message != stepup.MsgMismatch {
				t.Errorf("%v: %v", req, err)
			}
		}
		// Another method with the same token.
		if err := f.call(updateFee, 7, nil, &gatewayv1.UpdateFeeRequest{Id: 12}, tok); kindOf(err) != apperr.KindForbidden {
			t.Errorf("another method: %v", err)
		}
		if f.calls != 0 || len(f.store.used) != 0 {
			t.Errorf("calls %d, used %v", f.calls, f.store.used)
		}
	})
	t.Run("expired", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		tok := f.confirmation(t, setStatus, 7, statusReq(12, 2), "why", "c1", -time.Minute)
		if err := f.call(setStatus, 7, cfm, statusReq(12, 2), tok); kindOf(err) != apperr.KindUnauthenticated || f.calls != 0 {
			t.Errorf("expired: %v", err)
		}
	})
	t.Run("garbage token", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		if err := f.call(setStatus, 7, cfm, statusReq(12, 2), "not-a-token"); kindOf(err) != apperr.KindUnauthenticated {
			t.Errorf("garbage: %v", err)
		}
	})
	t.Run("other user", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		tok := f.confirmation(t, setStatus, 7, statusReq(12, 2), "why", "c1", time.Minute)
		err := f.call(setStatus, 8, cfm, statusReq(12, 2), tok)
		if kindOf(err) != apperr.KindForbidden || apperr.As(err).Message != stepup.MsgOtherUser || f.calls != 0 {
			t.Errorf("other user: %v", err)
		}
	})
	t.Run("moved target", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		tok := f.confirmation(t, setStatus, 7, statusReq(12, 2), "why", "c1", time.Minute)
		f.status = 3
		err := f.call(setStatus, 7, cfm, statusReq(12, 2), tok)
		if kindOf(err) != apperr.KindConflict || apperr.As(err).Message != stepup.MsgMoved || f.calls != 0 {
			t.Errorf("moved: %v", err)
		}
		if len(f.store.used) != 0 {
			t.Error("a refused confirmation was recorded")
		}
	})
	t.Run("reason required", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		tok := f.confirmation(t, setStatus, 7, statusReq(12, 2), "", "c1", time.Minute)
		if err := f.call(setStatus, 7, cfm, statusReq(12, 2), tok); kindOf(err) != apperr.KindInvalid || f.calls != 0 {
			t.Errorf("no reason: %v", err)
		}
	})
	t.Run("no caller", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		tok := f.confirmation(t, setStatus, 7, statusReq(12, 2), "why", "c1", time.Minute)
		ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs(sensitive.Header, tok))
		_, err := f.guard.Unary()(ctx, statusReq(12, 2), &grpc.UnaryServerInfo{FullMethod: setStatus},
			func(context.Context, any) (any, error) { return nil, nil })
		if kindOf(err) != apperr.KindUnauthenticated {
			t.Errorf("no caller: %v", err)
		}
	})
}

func TestFailedHandlerFreesTheToken(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	req := &gatewayv1.UpdateFeeRequest{Id: 5, AmountMin: "10"}
	tok := f.confirmation(t, updateFee, 7, req, "", "c9", time.Minute)
	f.fail = apperr.Invalid("amountMin must be below amountMax.")
	if err := f.call(updateFee, 7, []string{"fee.update"}, req, tok); kindOf(err) != apperr.KindInvalid {
		t.Fatalf("failing handler: %v", err)
	}
	if len(f.store.used) != 0 {
		t.Fatal("a failed change kept its confirmation")
	}
	f.fail = nil
	if err := f.call(updateFee, 7, []string{"fee.update"}, req, tok); err != nil || f.calls != 2 {
		t.Fatalf("retry: %v (calls %d)", err, f.calls)
	}
}

func TestPassThrough(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Not a sensitive method, even with cfm listing everything.
	if err := f.call(listFees, 7, sensitive.Names(), &gatewayv1.ListFeesRequest{}, ""); err != nil || f.calls != 1 {
		t.Errorf("non-sensitive: %v", err)
	}
	// A sensitive method whose action the caller need not confirm.
	if err := f.call(setStatus, 7, []string{"fee.update"}, statusReq(12, 2), ""); err != nil || f.calls != 2 || f.seen != nil {
		t.Errorf("not in cfm: %v", err)
	}
	if err := f.call(setStatus, 7, nil, statusReq(12, 2), ""); err != nil || f.calls != 3 {
		t.Errorf("no cfm: %v", err)
	}
	// A confirmation sent anyway is checked.
	if err := f.call(setStatus, 7, nil, statusReq(12, 2), "bogus"); kindOf(err) != apperr.KindUnauthenticated || f.calls != 3 {
		t.Errorf("token without cfm: %v", err)
	}
}

func TestAlwaysStepUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	err := f.call("/paygate.auth.v1.ApprovalService/ApproveRequest", 7, nil, &gatewayv1.UpdateFeeRequest{Id: 1}, "")
	if kindOf(err) != apperr.KindConfirmationRequired || f.calls != 0 {
		t.Errorf("approve without cfm: %v", err)
	}
}

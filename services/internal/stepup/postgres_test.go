package stepup_test

import (
	"context"
	"errors"
	"testing"
	"testing/fstest"
	"time"

	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
	"github.com/paygate/paygate/services/internal/sensitive"
	"github.com/paygate/paygate/services/internal/stepup"
)

func TestPostgresStore(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, fstest.MapFS{"0001_used_confirmations.up.sql": {Data: []byte(stepup.Table)}})
	s := stepup.NewPostgresStore(pool)
	ctx := context.Background()
	u := stepup.Use{ID: "c1", UserID: 7, Action: "fee.update", Canonical: `{"action":"fee.update"}`, Digest: "ab",
		Proof: "webauthn", Proofs: []sensitive.Proof{{Kind: "webauthn", Role: "actor", UserID: 7, Signature: "sig"}},
		ApprovalRequestID: 3, ExpiresAt: time.Now().Add(time.Minute)}
	if err := s.Record(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := s.Record(ctx, u); !errors.Is(err, stepup.ErrUsed) {
		t.Fatalf("second record: %v, want ErrUsed", err)
	}
	var sig string
	if err := pool.QueryRow(ctx, `SELECT proofs->0->>'signature' FROM used_confirmations WHERE id = 'c1'`).Scan(&sig); err != nil || sig != "sig" {
		t.Errorf("stored proofs: %q %v", sig, err)
	}
	if err := s.Forget(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Record(ctx, stepup.Use{ID: "c1", UserID: 7, Action: "fee.update", Canonical: "{}", Digest: "ab"}); err != nil {
		t.Errorf("record after forget: %v", err)
	}
}

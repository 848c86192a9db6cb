package postgres_test

import (
	"context"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestStore(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, _ := pgtest.Schema(t, postgres.Migrations)
	store := postgres.NewStore(pool)

	for range 2 { // seeding is idempotent
		if err := store.SeedDemo(ctx); err != nil {
			t.Fatalf("SeedDemo: %v", err)
		}
	}
	all, err := store.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(all, merchant.Demo()) {
		t.Errorf("All = %v, want the demo merchants", all)
	}

	tests := []struct {
		ids  []int32
		want []int32
	}{
		{[]int32{3, 1}, []int32{1, 3}},
		{[]int32{2, 99}, []int32{2}},
		{[]int32{99}, nil},
	}
	for _, tt := range tests {
		ms, err := store.ByIDs(ctx, tt.ids)
		if err != nil {
			t.Fatal(err)
		}
		var got []int32
		for _, m := range ms {
			got = append(got, m.ID)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ByIDs(%v) = %v, want %v", tt.ids, got, tt.want)
		}
	}
}

func TestOutboxMigrationMatchesBus(t *testing.T) {
	t.Parallel()
	b, err := fs.ReadFile(postgres.Migrations, "0002_outbox.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(b)) != strings.TrimSpace(bus.OutboxDDL) {
		t.Errorf("0002_outbox.up.sql differs from bus.OutboxDDL:\n%s", b)
	}
}

package postgres_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

func TestSeedDemoCatalogAndCollabs(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, _ := pgtest.Schema(t, postgres.Migrations)
	store := postgres.NewStore(pool)
	if err := store.SeedDemo(ctx); err != nil {
		t.Fatal(err)
	}

	// Operators' changes survive a second seeding.
	if _, err := pool.Exec(ctx, `UPDATE providers SET is_enabled = false WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE collabs SET mode = 3 WHERE merchant_id = 1 AND provider_id = 1`); err != nil {
		t.Fatal(err)
	}
	if err := store.SeedDemo(ctx); err != nil {
		t.Fatal(err)
	}

	ps, err := store.Providers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := collab.DemoProviders()
	want[1].IsEnabled = false
	if !reflect.DeepEqual(ps, want) {
		t.Errorf("providers = %+v\nwant %+v", ps, want)
	}

	cs, err := store.Collabs(ctx, collab.CollabFilter{Scope: merchant.Scope{All: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != len(collab.DemoCollabs()) {
		t.Fatalf("%d collabs after seeding twice, want %d", len(cs), len(collab.DemoCollabs()))
	}
	for i, c := range cs {
		d := collab.DemoCollabs()[i]
		if c.Merchant.ID != d.Merchant.ID || c.Provider.ID != d.Provider.ID || c.Limits != d.Limits || len(c.PayTypes) != len(d.PayTypes) {
			t.Errorf("collab %d = %+v, want %+v", i, c, d)
		}
		for j, pt := range c.PayTypes {
			dp := d.PayTypes[j]
			if pt.PayType.ID != dp.PayType.ID || pt.IsCashInEnabled != dp.IsCashInEnabled || pt.IsCashOutEnabled != dp.IsCashOutEnabled || pt.Limits != dp.Limits || pt.ID == 0 || pt.Code == "" {
				t.Errorf("collab %d pay type %d = %+v, want %+v", i, j, pt, dp)
			}
		}
	}
	if cs[0].Settings.Mode != collab.ModeAlwaysFailed || cs[0].Merchant.Name != "Acme Games" || cs[0].Provider.Name != "GoVip" {
		t.Errorf("Acme × GoVip = %+v", cs[0])
	}

	scoped, err := store.Collabs(ctx, collab.CollabFilter{Scope: merchant.Scope{MerchantIDs: []int32{2, 3}}, ProviderID: 19})
	if err != nil || len(scoped) != 1 || scoped[0].Merchant.Name != "Cobalt Travel" {
		t.Errorf("Cobalt's RollingPay collab = %+v, %v", scoped, err)
	}
	if _, err := store.Collab(ctx, 9999); apperr.KindOf(err) != apperr.KindNotFound {
		t.Errorf("Collab(9999) = %v", err)
	}
	if _, err := store.Provider(ctx, 7); apperr.KindOf(err) != apperr.KindNotFound {
		t.Errorf("Provider(7) = %v", err)
	}
	if on, err := store.MaintenanceEnabled(ctx); err != nil || on {
		t.Errorf("maintenance = %v, %v", on, err)
	}
}

// The schema guards the rules the service checks first, so that no code path
// can store a bad collab.
func TestSchemaRefusesBadCollabs(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, _ := pgtest.Schema(t, postgres.Migrations)
	store := postgres.NewStore(pool)
	if err := store.SeedDemo(ctx); err != nil {
		t.Fatal(err)
	}
	var id int32
	if err := pool.QueryRow(ctx, `SELECT id FROM collabs WHERE merchant_id = 1 AND provider_id = 1`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`UPDATE collabs SET minimal_deposit_amount = -1 WHERE id = $1`,
		`UPDATE collabs SET minimal_withdraw_amount = 10, maximal_withdraw_amount = 5 WHERE id = $1`,
		`UPDATE collabs SET mode = 4 WHERE id = $1`,
		`UPDATE collabs SET position = -1 WHERE id = $1`,
		`UPDATE collab_pay_types SET maximal_deposit_amount = -0.01 WHERE collab_id = $1`,
		`UPDATE collab_pay_types SET minimal_deposit_amount = 10, maximal_deposit_amount = 1 WHERE collab_id = $1`,
		// QR Ph is not offered by GoVip.
		`INSERT INTO collab_pay_types (collab_id, provider_id, pay_type_id, is_cash_in_enabled, is_cash_out_enabled) VALUES ($1, 1, 3, true, false)`,
		// A pay type must carry its collab's provider.
		`INSERT INTO collab_pay_types (collab_id, provider_id, pay_type_id, is_cash_in_enabled, is_cash_out_enabled) VALUES ($1, 19, 3, true, false)`,
		`INSERT INTO collab_pay_types (collab_id, provider_id, pay_type_id, is_cash_in_enabled, is_cash_out_enabled) VALUES ($1, 1, 1, true, true)`,
		`INSERT INTO collabs (merchant_id, provider_id, is_enabled, is_cash_in_enabled, is_cash_out_enabled, validate_cash_in,
			validate_cash_out, is_merchant_callback_enabled, is_crediting_to_clients_enabled, is_withdraw_from_clients_enabled,
			expand_by_pay_type, available_only_on_direct_access) SELECT 1, 1, true, true, true, true, true, true, false, false, true, false WHERE $1 > 0`,
	} {
		if _, err := pool.Exec(ctx, sql, id); err == nil {
			t.Errorf("accepted: %s", sql)
		}
	}

	// The store reports a duplicate collab as a conflict.
	c, err := store.Collab(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	err = store.Tx(ctx, func(tx collab.Tx) error {
		_, err := tx.InsertCollab(ctx, c)
		return err
	})
	if apperr.KindOf(err) != apperr.KindConflict {
		t.Errorf("duplicate collab: %v", err)
	}
	// And a pay type already on a collab as a conflict.
	err = store.Tx(ctx, func(tx collab.Tx) error {
		return tx.InsertCollabPayTypes(ctx, id, 1, c.PayTypes[:1])
	})
	if apperr.KindOf(err) != apperr.KindConflict {
		t.Errorf("duplicate pay type: %v", err)
	}
}

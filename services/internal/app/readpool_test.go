package app_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paygate/paygate/services/internal/app"
	"github.com/paygate/paygate/services/internal/config"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// dbConfig embeds config.Common, so that Run opens the database.
type dbConfig struct {
	config.Common
	Schema string `env:"PAYGATE_DATABASE_SCHEMA"`
}

// TestReadPool checks when Run opens a second, read-only pool: only for a
// service that asks for it, and only when PAYGATE_DATABASE_READ_URL names
// another database than PAYGATE_DATABASE_URL; otherwise ReadPool is Pool.
func TestReadPool(t *testing.T) {
	t.Parallel()
	migrations := fstest.MapFS{"0001_t.up.sql": {Data: []byte(`CREATE TABLE t (id int)`)}}
	// Another URL of the same database: a second pool, as a replica's
	// would be.
	readURL := pgtest.URL() + "&application_name=paygate-reads"
	for _, tc := range []struct {
		name     string
		readURL  string
		readPool bool
		separate bool
	}{
		{"unset", "", true, false},
		{"same as the primary", pgtest.URL(), true, false},
		{"another database", readURL, true, true},
		{"a service that does not ask", readURL, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pool, _ := pgtest.Schema(t, nil)
			var schema string
			if err := pool.QueryRow(t.Context(), `SELECT current_schema()`).Scan(&schema); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{
				"PAYGATE_DATABASE_URL": pgtest.URL(), "PAYGATE_DATABASE_READ_URL": tc.readURL,
				"PAYGATE_HTTP_ADDR": "127.0.0.1:0", "PAYGATE_GRPC_ADDR": "127.0.0.1:0",
			}
			var cfg dbConfig
			err := app.Run(t.Context(), func(k string) string { return env[k] }, io.Discard, app.Service{
				Name: "test", Config: &cfg, Defaults: []config.Option{config.Default("PAYGATE_DATABASE_SCHEMA", schema)},
				Migrations: migrations, Schema: &cfg.Schema, ReadPool: tc.readPool, Command: true,
				Wire: func(ctx context.Context, p *app.Parts) error {
					if got := p.ReadPool != p.Pool; got != tc.separate {
						t.Errorf("a pool of its own = %v, want %v", got, tc.separate)
					}
					if _, err := p.Pool.Exec(ctx, `INSERT INTO t VALUES (1)`); err != nil {
						t.Errorf("write through Pool: %v", err)
					}
					var n int
					if err := p.ReadPool.QueryRow(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 1 {
						t.Errorf("read through ReadPool: %d, %v", n, err)
					}
					_, err := p.ReadPool.Exec(ctx, `INSERT INTO t VALUES (2)`)
					var pgErr *pgconn.PgError
					if refused := errors.As(err, &pgErr) && pgErr.Code == "25006"; refused != tc.separate {
						t.Errorf("write through ReadPool: %v (refused %v, want %v)", err, refused, tc.separate)
					}
					return nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

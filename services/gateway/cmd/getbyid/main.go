// Command getbyid times a transaction's read by id on the partitioned
// table loaded by bench/txgen, the two ways the gateway has done it: the
// key's created_at first and then the row in the one partition that holds
// it (two statements, two round trips), and the row with the key's
// created_at in a subquery, pruned at run time (one statement; the
// gateway's since; bench/RESULTS.md, "GET by id"). Both run through pgx's
// statement cache, as the gateway's pool does, on one connection, with
// random ids, alternating by round.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/gateway/internal/postgres"
)

func main() {
	db := flag.String("db", "postgres://postgres@127.0.0.1:5432/paygate?sslmode=disable", "Postgres URL")
	schema := flag.String("schema", "gateway_bench", "gateway schema loaded by bench/txgen")
	n := flag.Int("n", 3000, "reads per way and round")
	rounds := flag.Int("rounds", 3, "rounds")
	flag.Parse()
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(*db)
	if err != nil {
		log.Fatal(err)
	}
	cfg.RuntimeParams["search_path"] = *schema
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)
	var maxID int64
	if err := conn.QueryRow(ctx, `SELECT max(id) FROM transaction_keys`).Scan(&maxID); err != nil {
		log.Fatal(err)
	}
	cols := postgres.TransactionColumns
	read := func(sql string, args ...any) error {
		rows, err := conn.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		rows.Close()
		return rows.Err()
	}
	ways := []struct {
		name string
		read func(id int64) error
	}{
		{"two statements (key, then the row)", func(id int64) error {
			var at time.Time
			if err := conn.QueryRow(ctx, `SELECT created_at FROM transaction_keys WHERE id = $1`, id).Scan(&at); err != nil {
				return err
			}
			return read(`SELECT `+cols+` FROM transactions WHERE id = $1 AND created_at = $2`, id, at)
		}},
		{"one statement (the key in a subquery)", func(id int64) error {
			return read(`SELECT `+cols+` FROM transactions WHERE (id, created_at) = (SELECT id, created_at FROM transaction_keys WHERE id = $1)`, id)
		}},
	}
	fmt.Printf("%d rows; %d random reads per way and round\n\n| round | way | p50 ms | p95 ms |\n|---|---|---|---|\n", maxID, *n)
	for r := range *rounds {
		order := []int{0, 1}
		if r%2 == 1 {
			order = []int{1, 0}
		}
		for _, w := range order {
			ds := make([]time.Duration, 0, *n)
			for range *n {
				id := rand.Int64N(maxID) + 1
				began := time.Now()
				if err := ways[w].read(id); err != nil {
					log.Fatal(err)
				}
				ds = append(ds, time.Since(began))
			}
			slices.Sort(ds)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			fmt.Printf("| %d | %s | %.2f | %.2f |\n", r+1, ways[w].name, ms(ds[len(ds)/2]), ms(ds[len(ds)*95/100]))
		}
	}
}

// Command txgen loads synthetic but realistic transactions into a gateway
// schema for the list benchmark (services/gateway/cmd/listbench). The schema must already
// be migrated and demo-seeded by the gateway itself (see bench/README.md);
// txgen only reads its merchants, collabs, providers and pay types and
// appends rows with COPY, then runs ANALYZE.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

type collabRow struct {
	id, merchantID, providerID int32
	merchantName, providerName string
	payTypes                   []payType
	weight                     float64
}

type payType struct {
	id      int32
	name    string
	cashIn  bool
	cashOut bool
}

func main() {
	dbURL := flag.String("db", "postgres://postgres@127.0.0.1:5432/paygate?sslmode=disable", "Postgres URL")
	schema := flag.String("schema", "gateway_bench", "gateway schema, migrated and demo-seeded by the gateway")
	n := flag.Int("n", 10_000_000, "transactions to insert")
	batch := flag.Int("batch", 100_000, "rows per COPY")
	months := flag.Int("months", 18, "months of created_at, ending now")
	seed := flag.Uint64("seed", 1, "random seed")
	workers := flag.Int("workers", 2, "parallel COPY connections")
	deferIndexes := flag.Bool("defer-indexes", false, "drop the transactions' indexes and unique constraints (not the "+
		"primary key) while loading and build them again afterwards: several times faster for millions of rows, "+
		"but the table has no such indexes meanwhile (their definitions are printed first)")
	flag.Parse()

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, *dbURL)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET search_path TO "+pgx.Identifier{*schema}.Sanitize()); err != nil {
		log.Fatal(err)
	}
	collabs, err := loadCollabs(ctx, conn)
	if err != nil {
		log.Fatal(err)
	}
	if len(collabs) == 0 {
		log.Fatalf("schema %s has no collabs: start the gateway once with PAYGATE_DEMO=true on it", *schema)
	}
	// Serials continue after the highest one written so far (references are
	// PG + 12 zero-padded digits, so the greatest reference holds it; the
	// unique index answers at once). Not max(id): an interrupted run leaves
	// its second worker's serials far above its ids, and references and
	// nonces would repeat.
	var start int64
	if err := conn.QueryRow(ctx, `SELECT coalesce(substr(max(reference_id), 3, 12)::bigint, 0) FROM transactions
		WHERE reference_id >= 'PG0' AND reference_id < 'PG:' AND reference_id ~ '^PG[0-9]{12}'`).Scan(&start); err != nil {
		log.Fatal(err)
	}

	// A partitioned table (gateway migration 0028) gets the monthly
	// partitions of the months loaded first; otherwise they would all land
	// in its default partition.
	var partitioned bool
	if err := conn.QueryRow(ctx, `SELECT relkind = 'p' FROM pg_class WHERE oid = 'transactions'::regclass`).Scan(&partitioned); err != nil {
		log.Fatal(err)
	}
	if partitioned {
		if _, err := conn.Exec(ctx, `SELECT ensure_transaction_partitions(now(), now() - make_interval(months => $1))`, *months); err != nil {
			log.Fatal(err)
		}
	}

	var rebuild []string
	if *deferIndexes {
		if rebuild, err = dropIndexes(ctx, conn); err != nil {
			log.Fatal(err)
		}
	}

	cols := []string{"reference_id", "merchant_id", "collab_id", "provider_id", "pay_type_id",
		"merchant_name", "provider_name", "pay_type_name", "nonce", "merchant_client_id",
		"transaction_type", "status", "status_message", "error_message", "amount", "currency",
		"destination_amount", "destination_currency", "provider_transaction_id",
		"payment_ip_address", "user_agent", "payment_method_type", "payment_method_value",
		"created_at", "updated_at"}
	end := time.Now().UTC()
	var total float64
	for _, c := range collabs {
		total += c.weight
	}
	t0 := time.Now()
	var inserted atomic.Int64
	var wg sync.WaitGroup
	per := (*n + *workers - 1) / *workers
	for w := range *workers {
		todo := min(per, *n-w*per)
		if todo <= 0 {
			break
		}
		g := &gen{
			rng:         rand.New(rand.NewPCG(*seed, uint64(start)+uint64(w))),
			collabs:     collabs,
			totalWeight: total,
			end:         end,
			begin:       end.AddDate(0, -*months, 0),
			serial:      start + int64(w*per),
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			wc, err := pgx.Connect(ctx, *dbURL)
			if err != nil {
				log.Fatal(err)
			}
			defer wc.Close(ctx)
			if _, err := wc.Exec(ctx, "SET search_path TO "+pgx.Identifier{*schema}.Sanitize()+"; SET synchronous_commit TO off"); err != nil {
				log.Fatal(err)
			}
			for done := 0; done < todo; {
				k := min(*batch, todo-done)
				rows := make([][]any, k)
				for i := range rows {
					rows[i] = g.row()
				}
				if _, err := wc.CopyFrom(ctx, pgx.Identifier{"transactions"}, cols, pgx.CopyFromRows(rows)); err != nil {
					log.Fatalf("copy after %d rows: %v", done, err)
				}
				done += k
				all := inserted.Add(int64(k))
				fmt.Fprintf(os.Stderr, "%s %d/%d rows, %.0f rows/s\n", time.Now().Format(time.TimeOnly), all, *n, float64(all)/time.Since(t0).Seconds())
			}
		}()
	}
	wg.Wait()
	fmt.Fprintln(os.Stderr)
	load := time.Since(t0)
	t1 := time.Now()
	if len(rebuild) > 0 {
		if err := createIndexes(ctx, conn, rebuild); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("indexes built again in %s\n", time.Since(t1).Round(time.Second))
		t1 = time.Now()
	}
	// The list's rollups (gateway migration 0010), when the schema has them:
	// the insert trigger appended deltas; fold them (or build the rollups,
	// when this schema's rows predate them).
	var rollups bool
	if err := conn.QueryRow(ctx, "SELECT to_regproc('fold_transaction_totals') IS NOT NULL").Scan(&rollups); err != nil {
		log.Fatal(err)
	}
	if rollups {
		if _, err := conn.Exec(ctx, "SELECT build_transaction_totals(true), fold_transaction_totals()"); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("list rollups folded in %s\n", time.Since(t1).Round(time.Second))
		t1 = time.Now()
	}
	vacuum := "VACUUM (ANALYZE) transactions"
	if partitioned {
		// The keys, which the lookups by id, reference and nonce plan by.
		vacuum += ", transaction_keys"
	}
	if _, err := conn.Exec(ctx, vacuum); err != nil {
		log.Fatal(err)
	}
	var size string
	if err := conn.QueryRow(ctx, "SELECT pg_size_pretty(sum(pg_total_relation_size(relid))) FROM pg_partition_tree('transactions')").Scan(&size); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("inserted %d transactions in %s (%.0f rows/s), vacuum analyze %s; transactions with indexes: %s\n",
		*n, load.Round(time.Second), float64(*n)/load.Seconds(), time.Since(t1).Round(time.Second), size)
}

// dropIndexes drops the transactions' indexes and unique constraints, but
// the primary key, and returns the statements that create them again.
func dropIndexes(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	rows, err := conn.Query(ctx, `
		SELECT 'ALTER TABLE transactions ADD CONSTRAINT ' || quote_ident(conname) || ' ' || pg_get_constraintdef(oid),
			'ALTER TABLE transactions DROP CONSTRAINT ' || quote_ident(conname)
		FROM pg_constraint WHERE conrelid = 'transactions'::regclass AND contype = 'u'
		UNION ALL
		SELECT pg_get_indexdef(i.indexrelid), 'DROP INDEX ' || i.indexrelid::regclass::text
		FROM pg_index i WHERE i.indrelid = 'transactions'::regclass AND NOT i.indisprimary
			AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`)
	if err != nil {
		return nil, fmt.Errorf("read index definitions: %w", err)
	}
	var create, drop []string
	for rows.Next() {
		var c, d string
		if err := rows.Scan(&c, &d); err != nil {
			return nil, err
		}
		// A partitioned table's index is defined ON ONLY the parent; built
		// again, it must cover the partitions too.
		create, drop = append(create, strings.Replace(c, " ON ONLY ", " ON ", 1)), append(drop, d)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "dropping %d indexes while loading; to create them again by hand:\n%s;\n", len(create), strings.Join(create, ";\n"))
	for _, d := range drop {
		if _, err := conn.Exec(ctx, d); err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
	}
	return create, nil
}

// createIndexes runs the statements dropIndexes returned.
func createIndexes(ctx context.Context, conn *pgx.Conn, create []string) error {
	if _, err := conn.Exec(ctx, "SET maintenance_work_mem = '512MB'"); err != nil {
		return err
	}
	for _, c := range create {
		t0 := time.Now()
		if _, err := conn.Exec(ctx, c); err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
		fmt.Fprintf(os.Stderr, "%s %s\n", time.Since(t0).Round(time.Second), c)
	}
	return nil
}

func loadCollabs(ctx context.Context, conn *pgx.Conn) ([]collabRow, error) {
	rows, err := conn.Query(ctx, `SELECT c.id, c.merchant_id, c.provider_id, m.name, p.name
		FROM collabs c JOIN merchants m ON m.id = c.merchant_id JOIN providers p ON p.id = c.provider_id
		ORDER BY c.id`)
	if err != nil {
		return nil, err
	}
	var cs []collabRow
	for rows.Next() {
		var c collabRow
		if err := rows.Scan(&c.id, &c.merchantID, &c.providerID, &c.merchantName, &c.providerName); err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range cs {
		// Bigger collabs first: weights 1, 1/2, 1/3, … (a few collabs carry
		// most of a real gateway's volume).
		cs[i].weight = 1 / float64(i+1)
		prs, err := conn.Query(ctx, `SELECT t.id, t.name, pp.cash_in, pp.cash_out
			FROM provider_pay_types pp JOIN pay_types t ON t.id = pp.pay_type_id
			WHERE pp.provider_id = $1 ORDER BY t.id`, cs[i].providerID)
		if err != nil {
			return nil, err
		}
		for prs.Next() {
			var p payType
			if err := prs.Scan(&p.id, &p.name, &p.cashIn, &p.cashOut); err != nil {
				return nil, err
			}
			cs[i].payTypes = append(cs[i].payTypes, p)
		}
		if err := prs.Err(); err != nil {
			return nil, err
		}
		if len(cs[i].payTypes) == 0 {
			cs[i].payTypes = []payType{{id: 1, name: "GCash", cashIn: true, cashOut: true}}
		}
	}
	return cs, nil
}

type gen struct {
	rng         *rand.Rand
	collabs     []collabRow
	totalWeight float64
	begin, end  time.Time
	serial      int64
}

func (g *gen) collab() *collabRow {
	x := g.rng.Float64() * g.totalWeight
	for i := range g.collabs {
		x -= g.collabs[i].weight
		if x < 0 {
			return &g.collabs[i]
		}
	}
	return &g.collabs[len(g.collabs)-1]
}

// status mixes final and open statuses roughly as a live gateway sees them.
func (g *gen) status() (int16, string, string) {
	x := g.rng.Float64()
	switch {
	case x < 0.78:
		return 4, "Success", ""
	case x < 0.88:
		return -2, "Failed", "The provider declined the payment."
	case x < 0.91:
		return -3, "Failed", "Provider error."
	case x < 0.93:
		return -4, "Failed", "Network error while calling the provider."
	case x < 0.95:
		return -1, "Cancelled", ""
	case x < 0.975:
		return 3, "Pending", ""
	case x < 0.99:
		return 1, "Not Confirmed", ""
	case x < 0.995:
		return -6, "Validation Failed", "The merchant's validation endpoint refused the transaction."
	default:
		return 2, "Scheduled", ""
	}
}

func numeric(cents int64) pgtype.Numeric {
	return pgtype.Numeric{Int: big.NewInt(cents), Exp: -2, Valid: true}
}

func (g *gen) row() []any {
	g.serial++
	c := g.collab()
	deposit := g.rng.Float64() < 0.7
	typ := int16(1)
	if !deposit {
		typ = 2
	}
	var pt *payType
	for range 4 {
		p := &c.payTypes[g.rng.IntN(len(c.payTypes))]
		if (deposit && p.cashIn) || (!deposit && p.cashOut) {
			pt = p
			break
		}
	}
	if pt == nil {
		pt = &c.payTypes[0]
	}
	status, statusMsg, errMsg := g.status()
	currency := "PHP"
	// Log-normal amounts: median ~1,000 PHP, a long tail of large ones.
	mu, sigma := math.Log(1000), 1.1
	if g.rng.Float64() < 0.12 {
		currency = "USD"
		mu = math.Log(40)
	}
	cents := int64(math.Exp(mu+sigma*g.rng.NormFloat64())*100) + 100
	// Created times uniform over the window with slightly more recent volume.
	span := g.end.Sub(g.begin)
	frac := math.Sqrt(g.rng.Float64())
	created := g.begin.Add(time.Duration(frac * float64(span))).Truncate(time.Microsecond)
	updated := created.Add(time.Duration(g.rng.IntN(120_000)) * time.Millisecond)
	ref := fmt.Sprintf("PG%012d%04X", g.serial, g.rng.IntN(1<<16))
	var ptid any
	if status != 1 && status != 2 && status != -6 {
		ptid = fmt.Sprintf("%s-%010d", c.providerName[:min(3, len(c.providerName))], g.serial*7+int64(c.providerID))
	}
	pmType := int16(1)
	pmValue := fmt.Sprintf("09%09d", g.rng.IntN(60_000_000))
	if pt.name == "USDT TRC20" {
		pmType = 2
		pmValue = fmt.Sprintf("T%033d", g.rng.IntN(10_000_000))
	}
	ip := fmt.Sprintf("203.%d.%d.%d", g.rng.IntN(256), g.rng.IntN(256), 1+g.rng.IntN(254))
	return []any{
		ref, c.merchantID, c.id, c.providerID, pt.id,
		c.merchantName, c.providerName, pt.name,
		fmt.Sprintf("n-%d-%d", g.serial, g.rng.IntN(1_000_000)),
		fmt.Sprintf("client-%d", g.rng.IntN(200_000)),
		typ, status, statusMsg, errMsg, numeric(cents), currency,
		numeric(cents), currency, ptid,
		ip, "Mozilla/5.0 (Linux; Android 14) bench", pmType, pmValue,
		created, updated,
	}
}

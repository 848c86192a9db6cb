package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// headersOf returns the custom headers of the callback URLs ids names, in
// order, in one statement; URLs without any are absent.
func headersOf(ctx context.Context, q pgdb.Querier, ids []int64) (map[int64][]callback.Header, error) {
	out := map[int64][]callback.Header{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, `
		SELECT callback_url_id, name, coalesce(value, ''), sealed FROM callback_url_headers
		WHERE callback_url_id = ANY($1) ORDER BY callback_url_id, position`, ids)
	if err != nil {
		return nil, fmt.Errorf("select callback url headers: %w", err)
	}
	var id int64
	var h callback.Header
	if _, err := pgx.ForEachRow(rows, []any{&id, &h.Name, &h.Value, &h.Sealed}, func() error {
		h.Secret = h.Sealed != nil
		out[id] = append(out[id], h)
		h = callback.Header{}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read callback url headers: %w", err)
	}
	return out, nil
}

// headerArrays are the columns of a callback URL's custom headers read with
// it in one statement (headersLateral): names, plain values (NULL for a
// secret one) and sealed values (NULL for a plain one), in order; NULL
// arrays for a URL without any.
const headerArrays = `hh.names, hh.vals, hh.sealed`

// headersLateral aggregates the custom headers of the callback URL whose id
// is urlID (a column of the query it joins) into headerArrays.
func headersLateral(urlID string) string {
	return `LEFT JOIN LATERAL (
		SELECT array_agg(h.name ORDER BY h.position) AS names, array_agg(h.value ORDER BY h.position) AS vals,
			array_agg(h.sealed ORDER BY h.position) AS sealed
		FROM callback_url_headers h WHERE h.callback_url_id = ` + urlID + `) hh ON true`
}

// headersOfArrays are the headers headerArrays were scanned into; nil when
// there are none.
func headersOfArrays(names []string, vals []*string, sealed [][]byte) []callback.Header {
	if len(names) == 0 {
		return nil
	}
	out := make([]callback.Header, len(names))
	for i, n := range names {
		h := callback.Header{Name: n}
		if i < len(sealed) && sealed[i] != nil {
			h.Sealed, h.Secret = sealed[i], true
		} else if i < len(vals) && vals[i] != nil {
			h.Value = *vals[i]
		}
		out[i] = h
	}
	return out
}

// withHeaders sets the custom headers of urls.
func withHeaders(ctx context.Context, q pgdb.Querier, urls []callback.URL) error {
	ids := make([]int64, len(urls))
	for i, u := range urls {
		ids[i] = u.ID
	}
	hs, err := headersOf(ctx, q, ids)
	if err != nil {
		return err
	}
	for i := range urls {
		urls[i].Headers = hs[urls[i].ID]
	}
	return nil
}

// writeHeaders replaces the custom headers of callback URL id with hs.
func writeHeaders(ctx context.Context, tx pgx.Tx, id int64, hs []callback.Header) error {
	if _, err := tx.Exec(ctx, `DELETE FROM callback_url_headers WHERE callback_url_id = $1`, id); err != nil {
		return fmt.Errorf("delete headers of callback url %d: %w", id, err)
	}
	if len(hs) == 0 {
		return nil
	}
	names := make([]string, len(hs))
	values := make([]*string, len(hs))
	sealed := make([][]byte, len(hs))
	for i, h := range hs {
		names[i] = h.Name
		if h.Secret {
			sealed[i] = h.Sealed
		} else {
			v := h.Value
			values[i] = &v
		}
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO callback_url_headers (callback_url_id, position, name, value, sealed)
		SELECT $1, (n - 1)::smallint, name, value, sealed
		FROM unnest($2::text[], $3::text[], $4::bytea[]) WITH ORDINALITY AS h(name, value, sealed, n)`,
		id, names, values, sealed); err != nil {
		return fmt.Errorf("insert headers of callback url %d: %w", id, err)
	}
	return nil
}

// NextURLID implements callback.Store.
func (s *Store) NextURLID(ctx context.Context) (int64, error) {
	var id int64
	if err := s.pool.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('callback_urls', 'id'))`).Scan(&id); err != nil {
		return 0, fmt.Errorf("reserve a callback url id: %w", err)
	}
	return id, nil
}

// SealedHeader is one secret header value as stored, for the reseal job.
type SealedHeader struct {
	CallbackURLID int64
	Name          string
	Sealed        []byte
}

// AllSealedHeaders returns every secret header value (a handful per URL at
// most, of the URLs that have any).
func (s *Store) AllSealedHeaders(ctx context.Context) ([]SealedHeader, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT callback_url_id, name, sealed FROM callback_url_headers WHERE sealed IS NOT NULL ORDER BY callback_url_id, position`)
	if err != nil {
		return nil, fmt.Errorf("select sealed headers: %w", err)
	}
	hs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[SealedHeader])
	if err != nil {
		return nil, fmt.Errorf("read sealed headers: %w", err)
	}
	return hs, nil
}

// ResealHeader stores sealed as a secret header's value when the stored one
// is still old, and reports whether it did (false: changed meanwhile).
func (s *Store) ResealHeader(ctx context.Context, h SealedHeader, sealed []byte) (bool, error) {
	tag, err := s.pool.Exec(ctx, `
		UPDATE callback_url_headers SET sealed = $3 WHERE callback_url_id = $1 AND lower(name) = lower($2) AND sealed = $4`,
		h.CallbackURLID, h.Name, sealed, h.Sealed)
	if err != nil {
		return false, fmt.Errorf("re-seal header of callback url %d: %w", h.CallbackURLID, err)
	}
	return tag.RowsAffected() == 1, nil
}

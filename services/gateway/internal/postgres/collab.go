package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/maintenance"
	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb"
)

var (
	_ collab.Store = (*Store)(nil)
	_ collab.Tx    = (*tx)(nil)
)

// Entities named in not-found and conflict messages.
const (
	entityCollab   = "The collaboration"
	entityProvider = "The provider"
	entityMerchant = "The merchant"
	entityPayType  = "The collaboration pay type"
)

// Providers implements collab.Store.
func (s *Store) Providers(ctx context.Context) ([]collab.Provider, error) {
	return providers(ctx, s.pool, 0, false)
}

// Provider implements collab.Store.
func (s *Store) Provider(ctx context.Context, id int32) (collab.Provider, error) {
	return provider(ctx, s.pool, id, false)
}

// Merchant implements collab.Store.
func (s *Store) Merchant(ctx context.Context, id int32) (collab.MerchantRef, error) {
	return merchantRef(ctx, s.pool, id)
}

// Collabs implements collab.Store.
func (s *Store) Collabs(ctx context.Context, f collab.CollabFilter) ([]collab.Collab, error) {
	where, args := "WHERE true", []any{}
	if !f.Scope.All {
		args = append(args, f.Scope.MerchantIDs)
		where += fmt.Sprintf(" AND c.merchant_id = ANY($%d)", len(args))
	}
	if f.MerchantID != 0 {
		args = append(args, f.MerchantID)
		where += fmt.Sprintf(" AND c.merchant_id = $%d", len(args))
	}
	if f.ProviderID != 0 {
		args = append(args, f.ProviderID)
		where += fmt.Sprintf(" AND c.provider_id = $%d", len(args))
	}
	return collabs(ctx, s.pool, where+" ORDER BY c.id", args...)
}

// Collab implements collab.Store.
func (s *Store) Collab(ctx context.Context, id int32) (collab.Collab, error) {
	return oneCollab(ctx, s.pool, id, false)
}

// MaintenanceEnabled implements collab.Store.
func (s *Store) MaintenanceEnabled(ctx context.Context) (bool, error) {
	var on bool
	if err := s.pool.QueryRow(ctx, `SELECT is_enabled FROM maintenance`).Scan(&on); err != nil {
		return false, fmt.Errorf("read maintenance: %w", err)
	}
	return on, nil
}

// Tx implements collab.Store.
func (s *Store) Tx(ctx context.Context, fn func(collab.Tx) error) error {
	return pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error { return fn(&tx{t: t}) })
}

// tx implements collab.Tx.
type tx struct {
	t pgx.Tx
}

func (x *tx) Merchant(ctx context.Context, id int32) (collab.MerchantRef, error) {
	return merchantRef(ctx, x.t, id)
}

func (x *tx) Provider(ctx context.Context, id int32) (collab.Provider, error) {
	return provider(ctx, x.t, id, false)
}

func (x *tx) ProviderForUpdate(ctx context.Context, id int32) (collab.Provider, error) {
	return provider(ctx, x.t, id, true)
}

func (x *tx) CollabForUpdate(ctx context.Context, id int32) (collab.Collab, error) {
	return oneCollab(ctx, x.t, id, true)
}

func (x *tx) CollabIDOfPayType(ctx context.Context, collabPayTypeID int32) (int32, error) {
	var id int32
	err := x.t.QueryRow(ctx, `SELECT collab_id FROM collab_pay_types WHERE id = $1`, collabPayTypeID).Scan(&id)
	if err != nil {
		return 0, pgdb.Translate(fmt.Errorf("find collab pay type %d: %w", collabPayTypeID, err), entityPayType)
	}
	return id, nil
}

func (x *tx) InsertCollab(ctx context.Context, c collab.Collab) (int32, error) {
	return insertCollab(ctx, x.t, c, false)
}

// insertCollab inserts c; with skipExisting, a collab of the same merchant
// and provider is left alone and 0 returned.
func insertCollab(ctx context.Context, q pgdb.Querier, c collab.Collab, skipExisting bool) (int32, error) {
	s := c.Settings
	conflict := ""
	if skipExisting {
		conflict = "ON CONFLICT (merchant_id, provider_id) DO NOTHING"
	}
	var id int32
	err := q.QueryRow(ctx, `
		INSERT INTO collabs (merchant_id, provider_id, is_enabled, is_cash_in_enabled, is_cash_out_enabled,
			validate_cash_in, validate_cash_out, is_merchant_callback_enabled, is_crediting_to_clients_enabled,
			is_withdraw_from_clients_enabled, expand_by_pay_type, available_only_on_direct_access, position, mode,
			minimal_deposit_amount, maximal_deposit_amount, minimal_withdraw_amount, maximal_withdraw_amount)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
			$15::text::numeric, $16::text::numeric, $17::text::numeric, $18::text::numeric)
		`+conflict+`
		RETURNING id`,
		c.Merchant.ID, c.Provider.ID, s.IsEnabled, s.IsCashInEnabled, s.IsCashOutEnabled,
		s.ValidateCashIn, s.ValidateCashOut, s.IsMerchantCallbackEnabled, s.IsCreditingToClientsEnabled,
		s.IsWithdrawFromClientsEnabled, s.ExpandByPayType, s.AvailableOnlyOnDirectAccess, s.Position, int16(s.Mode),
		amountArg(c.Limits.MinDeposit), amountArg(c.Limits.MaxDeposit), amountArg(c.Limits.MinWithdraw), amountArg(c.Limits.MaxWithdraw),
	).Scan(&id)
	if skipExisting && errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, translateWrite(fmt.Errorf("insert collab of merchant %d with provider %d: %w", c.Merchant.ID, c.Provider.ID, err), entityCollab)
	}
	return id, nil
}

func (x *tx) UpdateCollab(ctx context.Context, c collab.Collab) error {
	s := c.Settings
	tag, err := x.t.Exec(ctx, `
		UPDATE collabs SET is_enabled = $2, is_cash_in_enabled = $3, is_cash_out_enabled = $4,
			validate_cash_in = $5, validate_cash_out = $6, is_merchant_callback_enabled = $7,
			is_crediting_to_clients_enabled = $8, is_withdraw_from_clients_enabled = $9,
			expand_by_pay_type = $10, available_only_on_direct_access = $11, position = $12, mode = $13,
			minimal_deposit_amount = $14::text::numeric, maximal_deposit_amount = $15::text::numeric,
			minimal_withdraw_amount = $16::text::numeric, maximal_withdraw_amount = $17::text::numeric,
			updated_at = now()
		WHERE id = $1`,
		c.ID, s.IsEnabled, s.IsCashInEnabled, s.IsCashOutEnabled,
		s.ValidateCashIn, s.ValidateCashOut, s.IsMerchantCallbackEnabled,
		s.IsCreditingToClientsEnabled, s.IsWithdrawFromClientsEnabled,
		s.ExpandByPayType, s.AvailableOnlyOnDirectAccess, s.Position, int16(s.Mode),
		amountArg(c.Limits.MinDeposit), amountArg(c.Limits.MaxDeposit), amountArg(c.Limits.MinWithdraw), amountArg(c.Limits.MaxWithdraw))
	if err != nil {
		return translateWrite(fmt.Errorf("update collab %d: %w", c.ID, err), entityCollab)
	}
	if tag.RowsAffected() == 0 {
		return apperr.NotFound("The collaboration was not found.")
	}
	return nil
}

func (x *tx) InsertCollabPayTypes(ctx context.Context, collabID, providerID int32, pts []collab.CollabPayType) error {
	return insertCollabPayTypes(ctx, x.t, collabID, providerID, pts)
}

func insertCollabPayTypes(ctx context.Context, q pgdb.Querier, collabID, providerID int32, pts []collab.CollabPayType) error {
	for _, pt := range pts {
		_, err := q.Exec(ctx, `
			INSERT INTO collab_pay_types (collab_id, provider_id, pay_type_id, is_cash_in_enabled, is_cash_out_enabled,
				minimal_deposit_amount, maximal_deposit_amount, minimal_withdraw_amount, maximal_withdraw_amount)
			VALUES ($1, $2, $3, $4, $5, $6::text::numeric, $7::text::numeric, $8::text::numeric, $9::text::numeric)`,
			collabID, providerID, pt.PayType.ID, pt.IsCashInEnabled, pt.IsCashOutEnabled,
			amountArg(pt.Limits.MinDeposit), amountArg(pt.Limits.MaxDeposit), amountArg(pt.Limits.MinWithdraw), amountArg(pt.Limits.MaxWithdraw))
		if err != nil {
			return translateWrite(fmt.Errorf("add pay type %d to collab %d: %w", pt.PayType.ID, collabID, err), entityPayType)
		}
	}
	return nil
}

func (x *tx) UpdateCollabPayType(ctx context.Context, pt collab.CollabPayType) error {
	tag, err := x.t.Exec(ctx, `
		UPDATE collab_pay_types SET is_cash_in_enabled = $2, is_cash_out_enabled = $3,
			minimal_deposit_amount = $4::text::numeric, maximal_deposit_amount = $5::text::numeric,
			minimal_withdraw_amount = $6::text::numeric, maximal_withdraw_amount = $7::text::numeric,
			updated_at = now()
		WHERE id = $1`,
		pt.ID, pt.IsCashInEnabled, pt.IsCashOutEnabled,
		amountArg(pt.Limits.MinDeposit), amountArg(pt.Limits.MaxDeposit), amountArg(pt.Limits.MinWithdraw), amountArg(pt.Limits.MaxWithdraw))
	if err != nil {
		return translateWrite(fmt.Errorf("update collab pay type %d: %w", pt.ID, err), entityPayType)
	}
	if tag.RowsAffected() == 0 {
		return apperr.NotFound("The collaboration pay type was not found.")
	}
	return nil
}

func (x *tx) DeleteCollabPayTypes(ctx context.Context, collabID int32, payTypeIDs []int32) error {
	if _, err := x.t.Exec(ctx, `DELETE FROM collab_pay_types WHERE collab_id = $1 AND pay_type_id = ANY($2)`, collabID, payTypeIDs); err != nil {
		return fmt.Errorf("remove pay types %v from collab %d: %w", payTypeIDs, collabID, err)
	}
	return nil
}

func (x *tx) SetProviderEnabled(ctx context.Context, id int32, enabled bool) error {
	tag, err := x.t.Exec(ctx, `UPDATE providers SET is_enabled = $2, updated_at = now() WHERE id = $1`, id, enabled)
	if err != nil {
		return fmt.Errorf("set provider %d enabled: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.NotFound("The provider was not found.")
	}
	return nil
}

func (x *tx) MaintenanceForUpdate(ctx context.Context) (bool, error) {
	var on bool
	if err := x.t.QueryRow(ctx, `SELECT is_enabled FROM maintenance FOR UPDATE`).Scan(&on); err != nil {
		return false, fmt.Errorf("lock maintenance: %w", err)
	}
	return on, nil
}

func (x *tx) SetMaintenance(ctx context.Context, enabled bool, by int64, at time.Time) error {
	_, err := x.t.Exec(ctx, `UPDATE maintenance SET is_enabled = $1, changed_by = NULLIF($2::bigint, 0), changed_at = $3`, enabled, by, at)
	if err != nil {
		return fmt.Errorf("set maintenance: %w", err)
	}
	return nil
}

func (x *tx) Publish(ctx context.Context, event proto.Message) error {
	if _, err := bus.Enqueue(ctx, x.t, bus.Subject(event), event); err != nil {
		return fmt.Errorf("enqueue %s: %w", proto.MessageName(event), err)
	}
	return nil
}

// translateWrite maps a unique violation to a conflict and a check
// violation (the limits' ranges, which the domain checks first) to invalid.
func translateWrite(err error, entity string) error {
	if code, constraint, ok := pgdb.ConstraintViolation(err); ok && code == "23514" {
		return apperr.New(apperr.KindInvalid, err, "The change breaks the rule %s.", constraint)
	}
	return pgdb.Translate(err, entity)
}

// amountArg returns an amount as a query argument: its decimal text, or nil
// for none.
func amountArg(a money.Amount) any {
	if !a.IsSet() {
		return nil
	}
	return a.String()
}

// amountOf reads an amount selected as text.
func amountOf(s *string) (money.Amount, error) {
	if s == nil {
		return money.Amount{}, nil
	}
	a, err := money.Parse("amount", *s)
	if err != nil {
		return money.Amount{}, fmt.Errorf("stored amount %q: %w", *s, err)
	}
	return a, nil
}

func merchantRef(ctx context.Context, q pgdb.Querier, id int32) (collab.MerchantRef, error) {
	m := collab.MerchantRef{ID: id}
	if err := q.QueryRow(ctx, `SELECT name FROM merchants WHERE id = $1`, id).Scan(&m.Name); err != nil {
		return m, pgdb.Translate(fmt.Errorf("select merchant %d: %w", id, err), entityMerchant)
	}
	return m, nil
}

// providers returns the providers (one when id is not 0, locked when
// forUpdate) with their pay types.
func providers(ctx context.Context, q pgdb.Querier, id int32, forUpdate bool) ([]collab.Provider, error) {
	sql := `SELECT id, name, is_enabled, supports_cash_in, supports_cash_out, supports_polling, supports_balance, path_segment
		FROM providers WHERE $1 = 0 OR id = $1 ORDER BY id`
	if forUpdate {
		sql += " FOR UPDATE"
	}
	rows, err := q.Query(ctx, sql, id)
	if err != nil {
		return nil, fmt.Errorf("select providers: %w", err)
	}
	ps, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (collab.Provider, error) {
		var p collab.Provider
		err := row.Scan(&p.ID, &p.Name, &p.IsEnabled, &p.SupportsCashIn, &p.SupportsCashOut, &p.SupportsPolling, &p.SupportsBalance, &p.PathSegment)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("read providers: %w", err)
	}
	rows, err = q.Query(ctx, `
		SELECT ppt.provider_id, pt.id, pt.name, pt.code, ppt.cash_in, ppt.cash_out
		FROM provider_pay_types ppt JOIN pay_types pt ON pt.id = ppt.pay_type_id
		WHERE $1 = 0 OR ppt.provider_id = $1
		ORDER BY ppt.provider_id, pt.id`, id)
	if err != nil {
		return nil, fmt.Errorf("select provider pay types: %w", err)
	}
	byProvider := map[int32][]collab.ProviderPayType{}
	var providerID int32
	var pt collab.ProviderPayType
	_, err = pgx.ForEachRow(rows, []any{&providerID, &pt.ID, &pt.Name, &pt.Code, &pt.CashIn, &pt.CashOut}, func() error {
		byProvider[providerID] = append(byProvider[providerID], pt)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read provider pay types: %w", err)
	}
	for i := range ps {
		ps[i].PayTypes = byProvider[ps[i].ID]
		if ps[i].PayTypes == nil {
			ps[i].PayTypes = []collab.ProviderPayType{}
		}
	}
	return ps, nil
}

func provider(ctx context.Context, q pgdb.Querier, id int32, forUpdate bool) (collab.Provider, error) {
	if id <= 0 {
		return collab.Provider{}, apperr.NotFound("The provider was not found.")
	}
	ps, err := providers(ctx, q, id, forUpdate)
	if err != nil {
		return collab.Provider{}, err
	}
	if len(ps) == 0 {
		return collab.Provider{}, apperr.NotFound("The provider was not found.")
	}
	return ps[0], nil
}

const collabColumns = `
	c.id, c.merchant_id, m.name, m.disabled, c.provider_id, p.name, p.is_enabled, p.supports_cash_in, p.supports_cash_out,
	c.is_enabled, c.is_cash_in_enabled, c.is_cash_out_enabled, c.validate_cash_in, c.validate_cash_out,
	c.is_merchant_callback_enabled, c.is_crediting_to_clients_enabled, c.is_withdraw_from_clients_enabled,
	c.expand_by_pay_type, c.available_only_on_direct_access, c.position, c.mode,
	c.minimal_deposit_amount::text, c.maximal_deposit_amount::text, c.minimal_withdraw_amount::text, c.maximal_withdraw_amount::text`

const collabFrom = `
	FROM collabs c JOIN merchants m ON m.id = c.merchant_id JOIN providers p ON p.id = c.provider_id `

// collabs returns the collabs the where clause (and its ordering) selects,
// with their pay types.
func collabs(ctx context.Context, q pgdb.Querier, where string, args ...any) ([]collab.Collab, error) {
	rows, err := q.Query(ctx, `SELECT `+collabColumns+collabFrom+where, args...)
	if err != nil {
		return nil, fmt.Errorf("select collabs: %w", err)
	}
	cs, err := pgx.CollectRows(rows, scanCollab)
	if err != nil {
		return nil, fmt.Errorf("read collabs: %w", err)
	}
	if err := attachPayTypes(ctx, q, cs); err != nil {
		return nil, err
	}
	return cs, nil
}

func oneCollab(ctx context.Context, q pgdb.Querier, id int32, forUpdate bool) (collab.Collab, error) {
	where := "WHERE c.id = $1"
	if forUpdate {
		where += " FOR UPDATE OF c"
	}
	cs, err := collabs(ctx, q, where, id)
	if err != nil {
		return collab.Collab{}, err
	}
	if len(cs) == 0 {
		return collab.Collab{}, apperr.NotFound("The collaboration was not found.")
	}
	return cs[0], nil
}

func scanCollab(row pgx.CollectableRow) (collab.Collab, error) {
	var c collab.Collab
	s := &c.Settings
	var mode int16
	var amounts [4]*string
	err := row.Scan(&c.ID, &c.Merchant.ID, &c.Merchant.Name, &c.Merchant.Disabled, &c.Provider.ID, &c.Provider.Name, &c.Provider.IsEnabled,
		&c.Provider.SupportsCashIn, &c.Provider.SupportsCashOut,
		&s.IsEnabled, &s.IsCashInEnabled, &s.IsCashOutEnabled, &s.ValidateCashIn, &s.ValidateCashOut,
		&s.IsMerchantCallbackEnabled, &s.IsCreditingToClientsEnabled, &s.IsWithdrawFromClientsEnabled,
		&s.ExpandByPayType, &s.AvailableOnlyOnDirectAccess, &s.Position, &mode,
		&amounts[0], &amounts[1], &amounts[2], &amounts[3])
	if err != nil {
		return c, err
	}
	s.Mode = collab.Mode(mode)
	c.Limits, err = limitsOf(amounts)
	c.PayTypes = []collab.CollabPayType{}
	return c, err
}

func limitsOf(amounts [4]*string) (collab.Limits, error) {
	var l collab.Limits
	for i, dst := range []*money.Amount{&l.MinDeposit, &l.MaxDeposit, &l.MinWithdraw, &l.MaxWithdraw} {
		a, err := amountOf(amounts[i])
		if err != nil {
			return l, err
		}
		*dst = a
	}
	return l, nil
}

// attachPayTypes reads the pay types of cs.
func attachPayTypes(ctx context.Context, q pgdb.Querier, cs []collab.Collab) error {
	if len(cs) == 0 {
		return nil
	}
	ids := make([]int32, len(cs))
	index := make(map[int32]int, len(cs))
	for i, c := range cs {
		ids[i], index[c.ID] = c.ID, i
	}
	rows, err := q.Query(ctx, `
		SELECT cpt.id, cpt.collab_id, pt.id, pt.name, pt.code, ppt.cash_in, ppt.cash_out,
			cpt.is_cash_in_enabled, cpt.is_cash_out_enabled,
			cpt.minimal_deposit_amount::text, cpt.maximal_deposit_amount::text,
			cpt.minimal_withdraw_amount::text, cpt.maximal_withdraw_amount::text
		FROM collab_pay_types cpt
		JOIN pay_types pt ON pt.id = cpt.pay_type_id
		JOIN provider_pay_types ppt ON ppt.provider_id = cpt.provider_id AND ppt.pay_type_id = cpt.pay_type_id
		WHERE cpt.collab_id = ANY($1)
		ORDER BY cpt.collab_id, pt.id`, ids)
	if err != nil {
		return fmt.Errorf("select collab pay types: %w", err)
	}
	var (
		pt       collab.CollabPayType
		collabID int32
		amounts  [4]*string
	)
	_, err = pgx.ForEachRow(rows, []any{&pt.ID, &collabID, &pt.PayType.ID, &pt.Name, &pt.Code, &pt.CashIn, &pt.CashOut,
		&pt.IsCashInEnabled, &pt.IsCashOutEnabled, &amounts[0], &amounts[1], &amounts[2], &amounts[3]}, func() error {
		l, err := limitsOf(amounts)
		if err != nil {
			return err
		}
		pt.Limits = l
		i := index[collabID]
		cs[i].PayTypes = append(cs[i].PayTypes, pt)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read collab pay types: %w", err)
	}
	return nil
}

// Maintenance is the maintenance switch's store (maintenance.Store): its
// reads from reads (the Store, or the configuration cache, which caches
// them for the payment path), its changes in a Store transaction, which
// holds the switch and the activity log.
type Maintenance struct {
	reads interface {
		MaintenanceEnabled(ctx context.Context) (bool, error)
	}
	store *Store
}

var _ maintenance.Store = Maintenance{}

// NewMaintenance returns the switch's store reading from reads and writing
// through store.
func NewMaintenance(reads interface {
	MaintenanceEnabled(ctx context.Context) (bool, error)
}, store *Store) Maintenance {
	return Maintenance{reads: reads, store: store}
}

// MaintenanceEnabled implements maintenance.Store.
func (m Maintenance) MaintenanceEnabled(ctx context.Context) (bool, error) {
	return m.reads.MaintenanceEnabled(ctx)
}

// Tx implements maintenance.Store.
func (m Maintenance) Tx(ctx context.Context, fn func(maintenance.Tx) error) error {
	return pgdb.InTx(ctx, m.store.pool, func(t pgx.Tx) error { return fn(&tx{t: t}) })
}

// MerchantExists implements activity.LogStore.
func (s *Store) MerchantExists(ctx context.Context, id int32) (bool, error) {
	_, err := merchantRef(ctx, s.pool, id)
	if e := apperr.As(err); e != nil && e.Kind == apperr.KindNotFound {
		return false, nil
	}
	return err == nil, err
}

var _ activity.LogStore = (*Store)(nil)

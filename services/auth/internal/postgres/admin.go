package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/sync/errgroup"

	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
)

var (
	_ identity.AdminStore = (*Store)(nil)
	_ identity.AdminTx    = (*tx)(nil)
)

// managedColumns select a identity.ManagedUser from users u; roles and
// merchants are aggregated per row, in the same query.
const managedColumns = `
	u.id, u.username, u.is_ip_restricted, u.is_disabled, u.is_temporary_password,
	coalesce((SELECT array_agg(um.merchant_id ORDER BY um.merchant_id)
	          FROM user_merchants um WHERE um.user_id = u.id), '{}'),
	coalesce((SELECT array_agg(ur.role_id::integer ORDER BY ur.role_id)
	          FROM user_roles ur WHERE ur.user_id = u.id), '{}'),
	coalesce((SELECT array_agg(r.name ORDER BY r.id)
	          FROM user_roles ur JOIN roles r ON r.id = ur.role_id
	          WHERE ur.user_id = u.id), '{}'),
	EXISTS (SELECT 1 FROM webauthn_credentials wc WHERE wc.user_id = u.id),
	EXISTS (SELECT 1 FROM user_roles ur JOIN roles r ON r.id = ur.role_id
	        WHERE ur.user_id = u.id AND r.global_scope),
	coalesce((SELECT array_agg(p.name ORDER BY p.id)
	          FROM permissions p
	          WHERE p.id IN (SELECT rp.permission_id
	                         FROM user_roles ur JOIN role_permissions rp ON rp.role_id = ur.role_id
	                         WHERE ur.user_id = u.id)), '{}'),
	EXISTS (SELECT 1 FROM user_totp t WHERE t.user_id = u.id AND t.confirmed_at IS NOT NULL)`

func scanManaged(row pgx.Row) (identity.ManagedUser, error) {
	var u identity.ManagedUser
	err := row.Scan(&u.ID, &u.Username, &u.IsIPRestricted, &u.IsDisabled, &u.IsTemporaryPassword,
		&u.MerchantIDs, &u.RoleIDs, &u.Roles, &u.HasPasskey, &u.Global, &u.Permissions, &u.HasSecondFactor)
	if errors.Is(err, pgx.ErrNoRows) {
		return identity.ManagedUser{}, apperr.NotFound(identity.MsgUserNotFound)
	}
	return u, err
}

// roleColumns select an identity.Role from roles r.
const roleColumns = `r.id::integer, r.name, r.built_in, r.global_scope,
	coalesce((SELECT array_agg(p.name ORDER BY p.id)
	          FROM role_permissions rp JOIN permissions p ON p.id = rp.permission_id
	          WHERE rp.role_id = r.id), '{}')`

func scanRole(row pgx.Row) (identity.Role, error) {
	var role identity.Role
	err := row.Scan(&role.ID, &role.Name, &role.BuiltIn, &role.Global, &role.Permissions)
	if errors.Is(err, pgx.ErrNoRows) {
		return role, apperr.NotFound(identity.MsgRoleNotFound)
	}
	return role, err
}

// Roles implements identity.AdminStore.
func (s *Store) Roles(ctx context.Context) ([]identity.Role, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+roleColumns+` FROM roles r ORDER BY r.id`)
	if err != nil {
		return nil, fmt.Errorf("select roles: %w", err)
	}
	roles, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (identity.Role, error) { return scanRole(r) })
	if err != nil {
		return nil, fmt.Errorf("select roles: %w", err)
	}
	return roles, nil
}

// CountRoleHolders implements identity.AdminStore.
func (s *Store) CountRoleHolders(ctx context.Context, sc identity.Scope) (map[int32]int64, error) {
	var a args
	rows, err := s.pool.Query(ctx, `SELECT ur.role_id::integer, count(*) FROM user_roles ur
		WHERE `+scopeSQL(sc, "ur.user_id", &a)+` GROUP BY ur.role_id`, a...)
	if err != nil {
		return nil, fmt.Errorf("count role holders: %w", err)
	}
	counts := map[int32]int64{}
	var (
		id int32
		n  int64
	)
	if _, err := pgx.ForEachRow(rows, []any{&id, &n}, func() error { counts[id] = n; return nil }); err != nil {
		return nil, fmt.Errorf("count role holders: %w", err)
	}
	return counts, nil
}

// ManagedUserByID implements identity.AdminStore.
func (s *Store) ManagedUserByID(ctx context.Context, id int64) (identity.ManagedUser, error) {
	u, err := scanManaged(s.pool.QueryRow(ctx, `SELECT `+managedColumns+` FROM users u WHERE u.id = $1`, id))
	if err != nil && apperr.KindOf(err) != apperr.KindNotFound {
		return u, fmt.Errorf("select user %d: %w", id, err)
	}
	return u, err
}

// args collects the positional arguments of a statement being built.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// scopeSQL is the condition that the user id col lies in scope sc. The
// users in a merchant scope are found from the scope's merchants first (a
// few), so that a long list filtered by them never tests its rows one by
// one.
func scopeSQL(sc identity.Scope, col string, a *args) string {
	if sc.All && sc.Within == nil {
		return "true"
	}
	// within is the condition that user id c holds no permission outside
	// sc.Within.
	within := func(c string) string {
		if sc.Within == nil {
			return ""
		}
		return ` AND NOT EXISTS (SELECT 1 FROM user_roles wr JOIN role_permissions wp ON wp.role_id = wr.role_id
			                      JOIN permissions wn ON wn.id = wp.permission_id
			                      WHERE wr.user_id = ` + c + ` AND wn.name <> ALL (` + a.add(sc.Within) + `::text[]))`
	}
	var sets []string
	switch {
	case sc.All:
		sets = append(sets, `SELECT w.id FROM users w WHERE true`+within("w.id"))
	case sc.ByMerchants:
		merchants := sc.MerchantIDs
		if merchants == nil {
			merchants = []int32{}
		}
		m := a.add(merchants)
		sets = append(sets, `SELECT c.user_id FROM user_merchants c
			WHERE c.merchant_id = ANY (`+m+`::integer[])
			  AND NOT EXISTS (SELECT 1 FROM user_merchants o WHERE o.user_id = c.user_id AND o.merchant_id <> ALL (`+m+`::integer[]))
			  AND NOT EXISTS (SELECT 1 FROM user_roles r JOIN roles ro ON ro.id = r.role_id
			                  WHERE r.user_id = c.user_id AND ro.global_scope)`+within("c.user_id"))
	}
	if sc.UserID != 0 {
		if len(sets) == 0 {
			return col + " = " + a.add(sc.UserID)
		}
		sets = append(sets, "SELECT "+a.add(sc.UserID)+"::bigint")
	}
	if len(sets) == 0 {
		return "false"
	}
	return col + " IN (" + strings.Join(sets, " UNION ALL ") + ")"
}

// sessionSearchKey is the expression of sessions_live_search_idx (migration
// 0011): a session's IP and user agent, lower-cased, on two lines.
const sessionSearchKey = `lower(s.ip || E'\n' || s.user_agent)`

// likePattern is a "contains" ILIKE pattern for text, its wildcards escaped.
func likePattern(text string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(text) + "%"
}

// merchantSQL is the condition that the user id col belongs to merchant id.
func merchantSQL(id int32, col string, a *args) string {
	return col + ` IN (SELECT fm.user_id FROM user_merchants fm WHERE fm.merchant_id = ` + a.add(id) + `)`
}

// ListUsers implements identity.AdminStore.
func (s *Store) ListUsers(ctx context.Context, q identity.UserQuery) (identity.UserPage, error) {
	var a args
	conds := []string{scopeSQL(q.Scope, "u.id", &a)}
	if q.Search != "" {
		conds = append(conds, "u.username ILIKE "+a.add(likePattern(q.Search)))
	}
	if q.MerchantID != 0 {
		conds = append(conds, merchantSQL(q.MerchantID, "u.id", &a))
	}
	if q.RoleID != 0 {
		conds = append(conds, "u.id IN (SELECT fr.user_id FROM user_roles fr WHERE fr.role_id = "+a.add(q.RoleID)+")")
	}
	where := strings.Join(conds, " AND ")
	var page identity.UserPage
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM users u WHERE `+where, a...).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("count users: %w", err)
	}
	limit, offset := a.add(q.Limit), a.add(q.Offset)
	rows, err := s.pool.Query(ctx, `SELECT `+managedColumns+` FROM users u WHERE `+where+
		` ORDER BY u.id LIMIT `+limit+` OFFSET `+offset, a...)
	if err != nil {
		return page, fmt.Errorf("select users: %w", err)
	}
	page.Users, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (identity.ManagedUser, error) { return scanManaged(r) })
	if err != nil {
		return page, fmt.Errorf("select users: %w", err)
	}
	return page, nil
}

// ListSessions implements identity.AdminStore. The page's session ids are
// picked from the live-session indexes first and only those rows are read;
// the count runs beside it and joins users only to search usernames.
// Counts of bigCount or more are kept for countTTL (cachedCount).
func (s *Store) ListSessions(ctx context.Context, q identity.SessionQuery) (identity.SessionPage, error) {
	var a args
	conds := []string{"s.revoked_at IS NULL", "s.refresh_expires_at > " + a.add(q.Now)}
	if !q.Scope.All || q.Scope.Within != nil {
		conds = append(conds, scopeSQL(q.Scope, "s.user_id", &a))
	}
	if q.MerchantID != 0 {
		conds = append(conds, merchantSQL(q.MerchantID, "s.user_id", &a))
	}
	if q.OnlyID != "" {
		conds = append(conds, "s.id = "+a.add(q.OnlyID)+"::uuid")
	}
	if q.ExceptID != "" {
		conds = append(conds, "s.id <> "+a.add(q.ExceptID)+"::uuid")
	}
	from := "sessions s"
	if q.Search != "" {
		// Usernames through the users they name (sessions_live_user_idx);
		// the IP and user agent through the trigram index of migration 0011
		// on the same expression (lower-cased, so LIKE is ILIKE).
		user := a.add(likePattern(q.Search))
		text := a.add(likePattern(strings.ToLower(q.Search)))
		conds = append(conds, "(s.user_id = ANY (ARRAY(SELECT su.id FROM users su WHERE su.username ILIKE "+user+")) OR "+
			sessionSearchKey+" LIKE "+text+")")
	}
	where := strings.Join(conds, " AND ")
	countArgs := a
	pageArgs := append(args{}, a...)
	limit, offset := pageArgs.add(q.Limit), pageArgs.add(q.Offset)
	// The count's key leaves out the time ($1), which every call moves.
	countKey := where + fmt.Sprintf("%#v", []any(countArgs[1:]))

	var page identity.SessionPage
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if n, ok := s.cachedCount(countKey, q.Now); ok {
			page.Total = n
			return nil
		}
		if err := s.pool.QueryRow(gctx, `SELECT count(*) FROM `+from+` WHERE `+where, countArgs...).Scan(&page.Total); err != nil {
			return fmt.Errorf("count sessions: %w", err)
		}
		s.keepCount(countKey, page.Total, q.Now)
		return nil
	})
	g.Go(func() error {
		rows, err := s.pool.Query(gctx, `
			WITH page AS (
				SELECT s.id, s.created_at FROM `+from+` WHERE `+where+`
				ORDER BY s.created_at DESC, s.id DESC
				LIMIT `+limit+` OFFSET `+offset+`
			)
			SELECT s.id::text, s.user_id, u.username, s.ip, s.user_agent, s.created_at, s.last_seen_at, s.refresh_expires_at
			FROM page p JOIN sessions s ON s.id = p.id JOIN users u ON u.id = s.user_id
			ORDER BY p.created_at DESC, p.id DESC`, pageArgs...)
		if err != nil {
			return fmt.Errorf("select sessions: %w", err)
		}
		page.Sessions, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (identity.ActiveSession, error) {
			var x identity.ActiveSession
			err := r.Scan(&x.ID, &x.UserID, &x.Username, &x.IP, &x.UserAgent, &x.CreatedAt, &x.LastSeenAt, &x.RefreshExpiresAt)
			return x, err
		})
		if err != nil {
			return fmt.Errorf("select sessions: %w", err)
		}
		return nil
	})
	return page, g.Wait()
}

// Counts of the session list: below bigCount a count is always exact;
// from bigCount up a count (tens of milliseconds over 100,000 sessions) is
// reused for countTTL, when paging through more than 100 pages cannot tell.
const (
	bigCount = 10_000
	countTTL = 5 * time.Second
	maxCount = 1_000
)

// countEntry is a large count of a session list and when it was made.
type countEntry struct {
	n  int64
	at time.Time
}

// cachedCount is the count kept for key, unless it is older than countTTL
// at now (or from after now).
func (s *Store) cachedCount(key string, now time.Time) (int64, bool) {
	e, ok := s.counts.Get(key)
	if !ok || now.Sub(e.at) >= countTTL || now.Before(e.at) {
		return 0, false
	}
	return e.n, true
}

// keepCount keeps n for key when it is large (at most maxCount keys, least
// recently used dropped first), and forgets key's count otherwise.
func (s *Store) keepCount(key string, n int64, now time.Time) {
	if n < bigCount {
		s.counts.Remove(key)
		return
	}
	s.counts.Add(key, countEntry{n: n, at: now})
}

const allowedIPColumns = `id, user_id, name, host(from_ip), host(to_ip)`

func scanAllowedIP(row pgx.Row) (identity.AllowedIP, error) {
	var (
		ip       identity.AllowedIP
		from, to string
	)
	if err := row.Scan(&ip.ID, &ip.UserID, &ip.Name, &from, &to); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return ip, apperr.NotFound(identity.MsgAllowedIPNotFound)
		}
		return ip, err
	}
	var err1, err2 error
	ip.From, err1 = netip.ParseAddr(from)
	ip.To, err2 = netip.ParseAddr(to)
	if err := errors.Join(err1, err2); err != nil {
		return ip, fmt.Errorf("parse allowed ip %d: %w", ip.ID, err)
	}
	return ip, nil
}

// AllowedIPs implements identity.AdminStore.
func (s *Store) AllowedIPs(ctx context.Context, userID int64) ([]identity.AllowedIP, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+allowedIPColumns+` FROM user_allowed_ips WHERE user_id = $1 ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("select allowed ips of user %d: %w", userID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (identity.AllowedIP, error) { return scanAllowedIP(r) })
	if err != nil {
		return nil, fmt.Errorf("select allowed ips of user %d: %w", userID, err)
	}
	return out, nil
}

func (x *tx) LockUserAdministration(ctx context.Context) error {
	if _, err := x.t.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.user-administration'))`); err != nil {
		return fmt.Errorf("lock user administration: %w", err)
	}
	return nil
}

// ManagedUser implements identity.AdminTx.
func (x *tx) ManagedUser(ctx context.Context, id int64) (identity.ManagedUser, error) {
	u, err := scanManaged(x.t.QueryRow(ctx, `SELECT `+managedColumns+` FROM users u WHERE u.id = $1`, id))
	if err != nil && apperr.KindOf(err) != apperr.KindNotFound {
		return u, fmt.Errorf("select user %d: %w", id, err)
	}
	return u, err
}

// ManagedUserForUpdate implements identity.AdminTx.
func (x *tx) ManagedUserForUpdate(ctx context.Context, id int64) (identity.ManagedUser, error) {
	u, err := scanManaged(x.t.QueryRow(ctx, `SELECT `+managedColumns+` FROM users u WHERE u.id = $1 FOR UPDATE OF u`, id))
	if err != nil && apperr.KindOf(err) != apperr.KindNotFound {
		return u, fmt.Errorf("select user %d for update: %w", id, err)
	}
	return u, err
}

// isUniqueViolation reports a duplicate key.
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

func (x *tx) InsertUser(ctx context.Context, u identity.ManagedUser, passwordHash string, at time.Time) (int64, error) {
	var id int64
	err := x.t.QueryRow(ctx, `
		INSERT INTO users (username, password_hash, is_temporary_password, is_ip_restricted, is_disabled,
		                   created_at, updated_at, password_changed_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6, $6)
		RETURNING id`, u.Username, passwordHash, u.IsTemporaryPassword, u.IsIPRestricted, u.IsDisabled, at).Scan(&id)
	if isUniqueViolation(err) {
		return 0, apperr.Conflict("A user named %s already exists.", u.Username)
	}
	if err != nil {
		return 0, fmt.Errorf("insert user: %w", err)
	}
	if err := x.replaceRolesAndMerchants(ctx, id, u); err != nil {
		return 0, err
	}
	return id, nil
}

func (x *tx) replaceRolesAndMerchants(ctx context.Context, id int64, u identity.ManagedUser) error {
	if _, err := x.t.Exec(ctx, `DELETE FROM user_roles WHERE user_id = $1`, id); err != nil {
		return fmt.Errorf("clear roles of user %d: %w", id, err)
	}
	if _, err := x.t.Exec(ctx, `INSERT INTO user_roles (user_id, role_id) SELECT $1, unnest($2::smallint[])`, id, u.RoleIDs); err != nil {
		return fmt.Errorf("insert roles of user %d: %w", id, err)
	}
	if _, err := x.t.Exec(ctx, `DELETE FROM user_merchants WHERE user_id = $1`, id); err != nil {
		return fmt.Errorf("clear merchants of user %d: %w", id, err)
	}
	if _, err := x.t.Exec(ctx, `INSERT INTO user_merchants (user_id, merchant_id) SELECT $1, unnest($2::integer[])`, id, u.MerchantIDs); err != nil {
		return fmt.Errorf("insert merchants of user %d: %w", id, err)
	}
	return nil
}

func (x *tx) UpdateUser(ctx context.Context, u identity.ManagedUser, at time.Time) error {
	tag, err := x.t.Exec(ctx, `
		UPDATE users SET username = $2, is_ip_restricted = $3, is_disabled = $4, updated_at = $5
		WHERE id = $1`, u.ID, u.Username, u.IsIPRestricted, u.IsDisabled, at)
	if isUniqueViolation(err) {
		return apperr.Conflict("A user named %s already exists.", u.Username)
	}
	if err != nil {
		return fmt.Errorf("update user %d: %w", u.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.NotFound(identity.MsgUserNotFound)
	}
	return x.replaceRolesAndMerchants(ctx, u.ID, u)
}

func (x *tx) EnabledFullAdmins(ctx context.Context) ([]int64, error) {
	return enabledFullAdmins(ctx, x.t)
}

// fullAdminRolesSQL selects the ids of the roles of a full administrator:
// admin-wide, holding every permission.
const fullAdminRolesSQL = `SELECT r.id FROM roles r WHERE r.global_scope
	AND (SELECT count(*) FROM role_permissions rp WHERE rp.role_id = r.id) = (SELECT count(*) FROM permissions)`

// enabledFullAdmins lists the enabled users holding a full administrator's
// role.
func enabledFullAdmins(ctx context.Context, t pgdb.Querier) ([]int64, error) {
	rows, err := t.Query(ctx, `
		SELECT DISTINCT u.id FROM users u
		JOIN user_roles ur ON ur.user_id = u.id
		WHERE ur.role_id IN (`+fullAdminRolesSQL+`) AND NOT u.is_disabled
		ORDER BY u.id`)
	if err != nil {
		return nil, fmt.Errorf("select enabled full administrators: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("select enabled full administrators: %w", err)
	}
	return ids, nil
}

func (x *tx) RevokeUserSessions(ctx context.Context, userID int64, reason string, at time.Time) ([]string, error) {
	rows, err := x.t.Query(ctx, `
		UPDATE sessions SET revoked_at = $2, revoked_reason = $3
		WHERE user_id = $1 AND revoked_at IS NULL
		RETURNING id::text`, userID, at, reason)
	if err != nil {
		return nil, fmt.Errorf("revoke sessions of user %d: %w", userID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("revoke sessions of user %d: %w", userID, err)
	}
	return ids, nil
}

func (x *tx) AllowedIPForUpdate(ctx context.Context, id int64) (identity.AllowedIP, error) {
	ip, err := scanAllowedIP(x.t.QueryRow(ctx, `SELECT `+allowedIPColumns+` FROM user_allowed_ips WHERE id = $1 FOR UPDATE`, id))
	if err != nil && apperr.KindOf(err) != apperr.KindNotFound {
		return ip, fmt.Errorf("select allowed ip %d: %w", id, err)
	}
	return ip, err
}

func (x *tx) InsertAllowedIP(ctx context.Context, ip identity.AllowedIP, at time.Time) (int64, error) {
	var id int64
	if err := x.t.QueryRow(ctx, `
		INSERT INTO user_allowed_ips (user_id, name, from_ip, to_ip, created_at)
		VALUES ($1, $2, $3::inet, $4::inet, $5) RETURNING id`,
		ip.UserID, ip.Name, ip.From.String(), ip.To.String(), at).Scan(&id); err != nil {
		return 0, fmt.Errorf("insert allowed ip: %w", err)
	}
	return id, nil
}

func (x *tx) UpdateAllowedIP(ctx context.Context, ip identity.AllowedIP) error {
	if _, err := x.t.Exec(ctx, `
		UPDATE user_allowed_ips SET name = $2, from_ip = $3::inet, to_ip = $4::inet WHERE id = $1`,
		ip.ID, ip.Name, ip.From.String(), ip.To.String()); err != nil {
		return fmt.Errorf("update allowed ip %d: %w", ip.ID, err)
	}
	return nil
}

func (x *tx) DeleteAllowedIP(ctx context.Context, id int64) error {
	if _, err := x.t.Exec(ctx, `DELETE FROM user_allowed_ips WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete allowed ip %d: %w", id, err)
	}
	return nil
}

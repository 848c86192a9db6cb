package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/auth/internal/postgres"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// claimsFromSources computes a user's claims from the tables they come
// from, as the store read them before migration 0012 kept them on the row.
const claimsFromSources = `
	coalesce((SELECT array_agg(r.name ORDER BY r.id)
	          FROM user_roles ur JOIN roles r ON r.id = ur.role_id
	          WHERE ur.user_id = u.id), '{}'),
	coalesce((SELECT array_agg(p.name ORDER BY p.id)
	          FROM permissions p
	          WHERE p.id IN (SELECT rp.permission_id
	                         FROM user_roles ur JOIN role_permissions rp ON rp.role_id = ur.role_id
	                         WHERE ur.user_id = u.id)), '{}'),
	coalesce((SELECT array_agg(um.merchant_id ORDER BY um.merchant_id)
	          FROM user_merchants um WHERE um.user_id = u.id), '{}'),
	EXISTS (SELECT 1 FROM user_roles ur JOIN roles r ON r.id = ur.role_id
	        WHERE ur.user_id = u.id AND r.global_scope)`

type claims struct {
	Roles, Permissions []string
	Merchants          []int32
	Global             bool
}

// checkClaims fails unless every user's stored claims equal the computed
// ones; it returns the stored claims by username.
func checkClaims(t *testing.T, ctx context.Context, pool *pgxpool.Pool, step string) map[string]claims {
	t.Helper()
	rows, err := pool.Query(ctx, `SELECT u.username, u.claim_roles, u.claim_permissions, u.claim_merchant_ids, u.claim_global, `+
		claimsFromSources+` FROM users u ORDER BY u.id`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]claims{}
	for rows.Next() {
		var name string
		var got, want claims
		if err := rows.Scan(&name, &got.Roles, &got.Permissions, &got.Merchants, &got.Global,
			&want.Roles, &want.Permissions, &want.Merchants, &want.Global); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Roles, want.Roles) || !slices.Equal(got.Permissions, want.Permissions) ||
			!slices.Equal(got.Merchants, want.Merchants) || got.Global != want.Global {
			t.Errorf("%s: user %s holds claims %+v, its roles and merchants give %+v", step, name, got, want)
		}
		out[name] = got
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUserClaimsFollowTheirSources: after every kind of change to the tables
// a user's claims come from — grants and revocations of roles and merchants,
// a role's permissions, name and scope, a permission's name, a role or user
// deleted — the claims on every user's row are the ones computed from those
// tables, and the store reads them.
func TestUserClaimsFollowTheirSources(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, postgres.Migrations())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var adminRole, otherRole, perm1, perm2, perm3 int
	if err := pool.QueryRow(ctx, `SELECT
		(SELECT id FROM roles WHERE global_scope ORDER BY id LIMIT 1),
		(SELECT id FROM roles WHERE NOT global_scope ORDER BY id LIMIT 1),
		(SELECT id FROM permissions ORDER BY id LIMIT 1),
		(SELECT id FROM permissions ORDER BY id LIMIT 1 OFFSET 1),
		(SELECT id FROM permissions ORDER BY id LIMIT 1 OFFSET 2)`).Scan(&adminRole, &otherRole, &perm1, &perm2, &perm3); err != nil {
		t.Fatal(err)
	}
	steps := []struct{ name, sql string }{
		{"users inserted", `INSERT INTO users (username, password_hash) VALUES ('ann', 'x'), ('bob', 'x'), ('cid', 'x')`},
		{"roles granted", fmt.Sprintf(`INSERT INTO user_roles (user_id, role_id) SELECT id, CASE username WHEN 'ann' THEN %d ELSE %d END FROM users WHERE username IN ('ann', 'bob')`, adminRole, otherRole)},
		{"merchants granted", `INSERT INTO user_merchants (user_id, merchant_id) SELECT id, m FROM users, unnest('{5,2}'::int[]) m WHERE username = 'bob'`},
		{"custom role created", fmt.Sprintf(`WITH r AS (INSERT INTO roles (id, name) VALUES (101, 'Ops') RETURNING id)
			INSERT INTO role_permissions (role_id, permission_id) SELECT id, p FROM r, unnest(ARRAY[%d, %d]::smallint[]) p`, perm1, perm2)},
		{"custom role granted to two", `INSERT INTO user_roles (user_id, role_id) SELECT id, 101 FROM users WHERE username IN ('bob', 'cid')`},
		{"permission added to the role", fmt.Sprintf(`INSERT INTO role_permissions (role_id, permission_id) VALUES (101, %d)`, perm3)},
		{"permission removed from the role", fmt.Sprintf(`DELETE FROM role_permissions WHERE role_id = 101 AND permission_id = %d`, perm1)},
		{"role permission changed in place", fmt.Sprintf(`UPDATE role_permissions SET permission_id = %d WHERE role_id = 101 AND permission_id = %d`, perm1, perm2)},
		{"role renamed", `UPDATE roles SET name = 'Operations' WHERE id = 101`},
		{"role made global", `UPDATE roles SET global_scope = true WHERE id = 101`},
		{"role touched without a claim change", `UPDATE roles SET updated_at = now() WHERE id = 101`},
		{"permission renamed", fmt.Sprintf(`UPDATE permissions SET name = name || ' (renamed)' WHERE id = %d`, perm1)},
		{"grant moved to another role", fmt.Sprintf(`UPDATE user_roles SET role_id = %d WHERE role_id = 101 AND user_id = (SELECT id FROM users WHERE username = 'cid')`, adminRole)},
		{"merchant changed in place", `UPDATE user_merchants SET merchant_id = 9 WHERE merchant_id = 2`},
		{"merchant revoked", `DELETE FROM user_merchants WHERE merchant_id = 5`},
		{"role revoked", `DELETE FROM user_roles WHERE role_id = 101`},
		{"role deleted", `DELETE FROM roles WHERE id = 101`},
		{"permission deleted", fmt.Sprintf(`DELETE FROM permissions WHERE id = %d`, perm3)},
		{"merchant grant moved to another user", `UPDATE user_merchants SET user_id = (SELECT id FROM users WHERE username = 'cid')
			WHERE user_id = (SELECT id FROM users WHERE username = 'bob')`},
		{"user deleted", `DELETE FROM users WHERE username = 'ann'`},
	}
	var seen []map[string]claims
	for _, st := range steps {
		if _, err := pool.Exec(ctx, st.sql); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		seen = append(seen, checkClaims(t, ctx, pool, st.name))
	}
	// The steps did change claims (a check that compares nothing passes).
	if c := seen[1]["ann"]; !c.Global || len(c.Roles) != 1 || len(c.Permissions) == 0 {
		t.Errorf("ann after the grant: %+v", c)
	}
	if c := seen[4]["cid"]; !slices.Equal(c.Roles, []string{"Ops"}) || len(c.Permissions) != 2 || c.Global {
		t.Errorf("cid with the custom role: %+v", c)
	}
	if c := seen[9]["cid"]; !slices.Equal(c.Roles, []string{"Operations"}) || !c.Global {
		t.Errorf("cid after the rename and scope change: %+v", c)
	}
	if c := seen[13]["bob"]; !slices.Equal(c.Merchants, []int32{5, 9}) {
		t.Errorf("bob's merchants after the change in place: %+v", c)
	}

	// The store reads the stored claims.
	var bobID int64
	if err := pool.QueryRow(ctx, `SELECT id FROM users WHERE username = 'bob'`).Scan(&bobID); err != nil {
		t.Fatal(err)
	}
	u, err := postgres.New(pool).UserByID(ctx, bobID)
	if err != nil {
		t.Fatal(err)
	}
	last := seen[len(seen)-1]["bob"]
	if !slices.Equal(u.Roles, last.Roles) || !slices.Equal(u.Permissions, last.Permissions) ||
		!slices.Equal(u.MerchantIDs, last.Merchants) || u.Global != last.Global || len(u.Roles) != 1 {
		t.Errorf("UserByID read %v %v %v %v, the row holds %+v", u.Roles, u.Permissions, u.MerchantIDs, u.Global, last)
	}
}

// TestUserClaimsUnderConcurrentChanges: two transactions changing the
// sources of one user's claims at once both reach the user, whichever takes
// its locks first — a permission added to a role while the role is granted,
// and two roles granted to one user. (Under READ COMMITTED a trigger
// reading without those locks misses the other transaction's row, or
// recomputes from a snapshot older than the row it then overwrites.)
func TestUserClaimsUnderConcurrentChanges(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, postgres.Migrations())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var perm int
	if err := pool.QueryRow(ctx, `SELECT id FROM permissions ORDER BY id LIMIT 1`).Scan(&perm); err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		name   string
		first  string
		second string
		// want checks the user's claims once both committed.
		want func(claims) bool
	}{
		{"a permission added, then the role granted", `INSERT INTO role_permissions (role_id, permission_id) VALUES ($role, $perm)`,
			`INSERT INTO user_roles (user_id, role_id) VALUES ($user, $role)`,
			func(c claims) bool { return len(c.Permissions) == 1 }},
		{"the role granted, then a permission added", `INSERT INTO user_roles (user_id, role_id) VALUES ($user, $role)`,
			`INSERT INTO role_permissions (role_id, permission_id) VALUES ($role, $perm)`,
			func(c claims) bool { return len(c.Permissions) == 1 }},
		{"two roles granted to one user", `INSERT INTO user_roles (user_id, role_id) VALUES ($user, $role)`,
			`INSERT INTO user_roles (user_id, role_id) VALUES ($user, $role2)`,
			func(c claims) bool { return len(c.Roles) == 2 }},
		{"two merchants granted to one user", `INSERT INTO user_merchants (user_id, merchant_id) VALUES ($user, 1)`,
			`INSERT INTO user_merchants (user_id, merchant_id) VALUES ($user, 2)`,
			func(c claims) bool { return len(c.Merchants) == 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			role, role2 := 101+2*i, 102+2*i
			user := fmt.Sprintf("user-%d", i)
			var uid int64
			if err := pool.QueryRow(ctx, fmt.Sprintf(`WITH r AS (INSERT INTO roles (id, name) VALUES (%d, 'Role %d'), (%d, 'Role %d'))
				INSERT INTO users (username, password_hash) VALUES ('%s', 'x') RETURNING id`, role, role, role2, role2, user)).Scan(&uid); err != nil {
				t.Fatal(err)
			}
			expand := strings.NewReplacer("$role2", fmt.Sprint(role2), "$role", fmt.Sprint(role), "$perm", fmt.Sprint(perm), "$user", fmt.Sprint(uid))
			t1, err := pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = t1.Rollback(context.WithoutCancel(ctx)) }()
			if _, err := t1.Exec(ctx, expand.Replace(tc.first)); err != nil {
				t.Fatal(err)
			}
			// The second transaction's statement waits for the first's locks.
			done := make(chan error, 1)
			go func() {
				done <- pgx.BeginFunc(ctx, pool, func(t2 pgx.Tx) error {
					_, err := t2.Exec(ctx, expand.Replace(tc.second))
					return err
				})
			}()
			waited := true
			select {
			case err := <-done:
				waited = false
				t.Errorf("the second transaction did not wait for the first (err %v)", err)
			case <-time.After(300 * time.Millisecond):
			}
			if err := t1.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if waited {
				if err := <-done; err != nil {
					t.Fatal(err)
				}
			}
			if got := checkClaims(t, ctx, pool, tc.name)[user]; !tc.want(got) {
				t.Errorf("%s holds %+v: one transaction's change is missing", user, got)
			}
		})
	}
}

// TestUserClaimsRoleEditBesideUserEdit: an administrator replacing a user's
// roles (the user's row updated, the grants deleted and inserted again)
// while another adds a permission to one of those roles: both commit, none
// is chosen as a deadlock victim, and the user holds the permission. (With
// the role locked before its holders' rows, the role edit waited for the
// user's row while the user edit's grant waited for the role.)
func TestUserClaimsRoleEditBesideUserEdit(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, postgres.Migrations())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var uid int64
	var perm int
	if err := pool.QueryRow(ctx, `WITH r AS (INSERT INTO roles (id, name) VALUES (101, 'Ops')),
			u AS (INSERT INTO users (username, password_hash) VALUES ('edited', 'x') RETURNING id),
			g AS (INSERT INTO user_roles (user_id, role_id) SELECT id, 101 FROM u)
		SELECT (SELECT id FROM u), (SELECT id FROM permissions ORDER BY id LIMIT 1)`).Scan(&uid, &perm); err != nil {
		t.Fatal(err)
	}
	userEdit, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = userEdit.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := userEdit.Exec(ctx, `UPDATE users SET updated_at = now() WHERE id = $1`, uid); err != nil {
		t.Fatal(err)
	}
	roleEdit := make(chan error, 1)
	go func() {
		roleEdit <- pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO role_permissions (role_id, permission_id) VALUES (101, $1)`, perm)
			return err
		})
	}()
	// Let the role edit reach its locks, then finish the user edit.
	time.Sleep(300 * time.Millisecond)
	for _, q := range []string{`DELETE FROM user_roles WHERE user_id = $1`, `INSERT INTO user_roles (user_id, role_id) VALUES ($1, 101)`} {
		if _, err := userEdit.Exec(ctx, q, uid); err != nil {
			t.Fatalf("the user edit: %v", err)
		}
	}
	if err := userEdit.Commit(ctx); err != nil {
		t.Fatalf("the user edit: %v", err)
	}
	if err := <-roleEdit; err != nil {
		t.Fatalf("the role edit: %v", err)
	}
	if got := checkClaims(t, ctx, pool, "after both edits")["edited"]; len(got.Permissions) != 1 || len(got.Roles) != 1 {
		t.Errorf("the user holds %+v, want the role and its one permission", got)
	}
}

package identity

import (
	"context"
	"fmt"

	"github.com/paygate/paygate/services/internal/access"
)

// NewUser describes a user to create.
type NewUser struct {
	Username    string
	Password    string
	Temporary   bool
	Roles       []string
	MerchantIDs []int32
}

// DemoPassword is the password of every demo user but the newcomer.
const DemoPassword = "paygate-demo"

// DemoUsers are the logins `make run` creates: one per role, plus a newcomer
// who must replace a temporary password. They are listed in the README.
var DemoUsers = []NewUser{
	{Username: "admin", Password: DemoPassword, Roles: []string{access.RoleAdmin}},
	{Username: "support", Password: DemoPassword, Roles: []string{access.RoleSupport}, MerchantIDs: []int32{1, 2, 3}},
	{Username: "merchant", Password: DemoPassword, Roles: []string{access.RoleMerchant}, MerchantIDs: []int32{1}},
	{Username: "merchant-admin", Password: DemoPassword, Roles: []string{access.RoleMerchantAdmin}, MerchantIDs: []int32{1, 2}},
	{Username: "merchant-finance-manager", Password: DemoPassword, Roles: []string{access.RoleMerchantFinanceManager}, MerchantIDs: []int32{1}},
	{Username: "merchant-support", Password: DemoPassword, Roles: []string{access.RoleMerchantSupport}, MerchantIDs: []int32{2}},
	{Username: "newcomer", Password: "paygate-temp", Temporary: true, Roles: []string{access.RoleMerchantAdmin}, MerchantIDs: []int32{1}},
}

// Seeder is the storage a Service needs to create users at start-up.
type Seeder interface {
	// CountUsers returns how many users exist.
	CountUsers(ctx context.Context) (int, error)
	// CreateUserIfMissing creates u with the given password hash unless a user
	// with that username exists; it reports whether it created one.
	CreateUserIfMissing(ctx context.Context, u NewUser, passwordHash string) (bool, error)
}

// EnsureUsers creates each of users that does not exist yet. Existing users
// are left as they are, so a restart never resets a changed password.
func EnsureUsers(ctx context.Context, seeder Seeder, users []NewUser, p Argon2Params) (created int, err error) {
	for _, u := range users {
		hash, err := HashPassword(u.Password, p)
		if err != nil {
			return created, err
		}
		ok, err := seeder.CreateUserIfMissing(ctx, u, hash)
		if err != nil {
			return created, fmt.Errorf("create user %s: %w", u.Username, err)
		}
		if ok {
			created++
		}
	}
	return created, nil
}

// BootstrapAdmin creates the first admin, with a temporary password, when
// there are no users at all. It is how a production deployment starts.
func BootstrapAdmin(ctx context.Context, seeder Seeder, password string, p Argon2Params) (bool, error) {
	n, err := seeder.CountUsers(ctx)
	if err != nil {
		return false, err
	}
	if n > 0 {
		return false, nil
	}
	if len(password) < MinPasswordLen {
		return false, fmt.Errorf("no users exist: set PAYGATE_ADMIN_PASSWORD (at least %d characters) to create the first admin", MinPasswordLen)
	}
	created, err := EnsureUsers(ctx, seeder, []NewUser{{
		Username: "admin", Password: password, Temporary: true, Roles: []string{access.RoleAdmin},
	}}, p)
	return created == 1, err
}

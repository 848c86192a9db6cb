package postgres

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/credential"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/validation"
)

// ConfigCache keeps in memory the configuration every payment reads
// (merchants and their API secrets, collabs, provider connections, fees,
// validation endpoints, maintenance), labelled with the configuration
// version of migration 0011 that was current when it was read.
//
// Freshness: a payment's reads come from one view (View), and the payment
// is created only while the view's version is still the database's (the
// insert compares them, payment.ErrStaleView otherwise); a refusal made on a
// view is confirmed by reading the version again (Current). So the payment
// path acts on every change committed before it started, as when it read
// the tables. Reads outside a view (the merchant signature check, webhooks)
// use a view confirmed within MaxAge.
type ConfigCache struct {
	pool *pgxpool.Pool
	pay  *Payments
	col  *Store
	val  *Validations
	cred *Credentials

	// MaxAge is how old a view's last confirmation may be before a read
	// outside a fresh view confirms it again (1 s by default).
	MaxAge time.Duration

	gen        atomic.Pointer[configGen]
	refreshing atomic.Bool
}

// configGen is what was cached under one configuration version.
type configGen struct {
	version int64
	// checked is when (unix nanoseconds) the version was last read as the
	// current one.
	checked atomic.Int64
	entries sync.Map
}

// Keys of the cached entries.
type (
	merchantKey    struct{ hash string }
	secretKey      struct{ hash string }
	secretByIDKey  struct{ merchantID int32 }
	collabKey      struct{ merchantID, providerID int32 }
	connectionKey  struct{ providerID int32 }
	segmentKey     struct{ segment string }
	feesKey        struct{ currency string }
	endpointsKey   struct{ collabID int32 }
	maintenanceKey struct{}
	credentialsKey struct{ collabID int32 }
)

// sealedCredentials is a collab's sealed credentials entry; ok is false
// when it has none (kept too: most collabs of a sandbox have none).
type sealedCredentials struct {
	sealed credential.Sealed
	ok     bool
}

type secretEntry struct {
	id      int32
	secrets []payment.SealedSecret
}

// NewConfigCache returns an empty cache over the stores of pool.
func NewConfigCache(pool *pgxpool.Pool) *ConfigCache {
	return &ConfigCache{pool: pool, pay: NewPayments(pool), col: NewStore(pool), val: NewValidations(pool),
		cred: NewCredentials(pool), MaxAge: time.Second}
}

type viewKey struct{}

// viewOf returns the view ctx carries, if any.
func viewOf(ctx context.Context) *configGen {
	g, _ := ctx.Value(viewKey{}).(*configGen)
	return g
}

// View returns ctx carrying one view of the configuration: the reads made
// under it are of one version or newer. fresh reads the version first;
// otherwise a view confirmed within MaxAge is used as it is.
func (c *ConfigCache) View(ctx context.Context, fresh bool) (context.Context, error) {
	g, err := c.current(ctx, fresh)
	if err != nil {
		return ctx, err
	}
	return context.WithValue(ctx, viewKey{}, g), nil
}

// Current reports whether the view ctx carries is still of the database's
// configuration version (true without a view).
func (c *ConfigCache) Current(ctx context.Context) (bool, error) {
	g := viewOf(ctx)
	if g == nil {
		return true, nil
	}
	now, err := c.refresh(ctx)
	if err != nil {
		return false, err
	}
	return now.version <= g.version, nil
}

// current returns the newest view, reading the version first when fresh or
// when the view was not confirmed within MaxAge.
func (c *ConfigCache) current(ctx context.Context, fresh bool) (*configGen, error) {
	g := c.gen.Load()
	if fresh || g == nil {
		return c.refresh(ctx)
	}
	if time.Since(time.Unix(0, g.checked.Load())) > c.MaxAge {
		// One caller confirms; the others go on with the view meanwhile.
		if c.refreshing.CompareAndSwap(false, true) {
			defer c.refreshing.Store(false)
			return c.refresh(ctx)
		}
	}
	return g, nil
}

// refresh reads the configuration version and returns the view of it: the
// current one when the version did not move, an empty one otherwise.
func (c *ConfigCache) refresh(ctx context.Context) (*configGen, error) {
	began := time.Now().UnixNano()
	var v int64
	if err := c.pool.QueryRow(ctx, `SELECT version FROM config_version`).Scan(&v); err != nil {
		return nil, fmt.Errorf("read configuration version: %w", err)
	}
	for {
		g := c.gen.Load()
		if g != nil && g.version >= v {
			if g.checked.Load() < began {
				g.checked.Store(began)
			}
			return g, nil
		}
		next := &configGen{version: v}
		next.checked.Store(began)
		if c.gen.CompareAndSwap(g, next) {
			return next, nil
		}
	}
}

// cached returns the entry of key from ctx's view (or the current one),
// loading and keeping it when missing. Errors, not-found included, are not
// kept: a row added later is seen at once.
func cached[T any](ctx context.Context, c *ConfigCache, key any, load func(context.Context) (T, error)) (T, error) {
	g := viewOf(ctx)
	if g == nil {
		var err error
		if g, err = c.current(ctx, false); err != nil {
			var zero T
			return zero, err
		}
	}
	if v, ok := g.entries.Load(key); ok {
		return v.(T), nil
	}
	v, err := load(ctx)
	if err != nil {
		return v, err
	}
	// Read after the view's version: as new as the view or newer.
	g.entries.Store(key, v)
	return v, nil
}

// MerchantByHash is Payments.MerchantByHash from the cache.
func (c *ConfigCache) MerchantByHash(ctx context.Context, hash string) (merchant.Merchant, error) {
	return cached(ctx, c, merchantKey{hash}, func(ctx context.Context) (merchant.Merchant, error) {
		return c.pay.MerchantByHash(ctx, hash)
	})
}

// MerchantSecret is Payments.MerchantSecret from the cache. fresh reads the
// database (a signature that the cached secrets do not verify may be made
// with a secret changed since). The cached secrets may have expired since
// they were read: the caller compares ExpiresAt with its clock.
func (c *ConfigCache) MerchantSecret(ctx context.Context, hash string, fresh bool) (int32, []payment.SealedSecret, error) {
	if fresh {
		var err error
		if ctx, err = c.View(ctx, true); err != nil {
			return 0, nil, err
		}
	}
	e, err := cached(ctx, c, secretKey{hash}, func(ctx context.Context) (secretEntry, error) {
		id, secrets, err := c.pay.MerchantSecret(ctx, hash)
		return secretEntry{id, secrets}, err
	})
	return e.id, e.secrets, err
}

// MerchantSecretByID is Payments.MerchantSecretByID from the cache (the key
// validation requests are signed with).
func (c *ConfigCache) MerchantSecretByID(ctx context.Context, merchantID int32) ([]byte, error) {
	return cached(ctx, c, secretByIDKey{merchantID}, func(ctx context.Context) ([]byte, error) {
		return c.pay.MerchantSecretByID(ctx, merchantID)
	})
}

// MerchantCollab is Payments.MerchantCollab from the cache; the collab's
// pay types are shared, read-only.
func (c *ConfigCache) MerchantCollab(ctx context.Context, merchantID, providerID int32) (payment.Collab, error) {
	return cached(ctx, c, collabKey{merchantID, providerID}, func(ctx context.Context) (payment.Collab, error) {
		return c.pay.MerchantCollab(ctx, merchantID, providerID)
	})
}

// Connection is Payments.Connection from the cache.
func (c *ConfigCache) Connection(ctx context.Context, providerID int32) (payment.Connection, error) {
	return cached(ctx, c, connectionKey{providerID}, func(ctx context.Context) (payment.Connection, error) {
		return c.pay.Connection(ctx, providerID)
	})
}

// ConnectionBySegment is Payments.ConnectionBySegment from the cache.
func (c *ConfigCache) ConnectionBySegment(ctx context.Context, segment string) (payment.Connection, error) {
	return cached(ctx, c, segmentKey{segment}, func(ctx context.Context) (payment.Connection, error) {
		return c.pay.ConnectionBySegment(ctx, segment)
	})
}

// Fees is Payments.Fees from the cache; the slice is shared, read-only.
func (c *ConfigCache) Fees(ctx context.Context, currency string) ([]payment.Fee, error) {
	return cached(ctx, c, feesKey{currency}, func(ctx context.Context) ([]payment.Fee, error) {
		return c.pay.Fees(ctx, currency)
	})
}

// Endpoints is Validations.Endpoints from the cache; the slice is shared,
// read-only.
func (c *ConfigCache) Endpoints(ctx context.Context, collabID int32) ([]validation.Endpoint, error) {
	return cached(ctx, c, endpointsKey{collabID}, func(ctx context.Context) ([]validation.Endpoint, error) {
		return c.val.Endpoints(ctx, collabID)
	})
}

// MaintenanceEnabled is Store.MaintenanceEnabled from the cache.
func (c *ConfigCache) MaintenanceEnabled(ctx context.Context) (bool, error) {
	return cached(ctx, c, maintenanceKey{}, c.col.MaintenanceEnabled)
}

// SealedCredentials is Credentials.Sealed from the cache: a collab's
// credentials, still sealed (they are opened on each use). Since migration
// 0037 a change to them moves the configuration version.
func (c *ConfigCache) SealedCredentials(ctx context.Context, collabID int32) (credential.Sealed, bool, error) {
	e, err := cached(ctx, c, credentialsKey{collabID}, func(ctx context.Context) (sealedCredentials, error) {
		s, ok, err := c.cred.Sealed(ctx, collabID)
		return sealedCredentials{sealed: s, ok: ok}, err
	})
	return e.sealed, e.ok, err
}

// Credentials returns s with its sealed reads served by c: the payment
// path's credentials (the console's and the writes go to s itself).
func (c *ConfigCache) Credentials(s *Credentials) credential.Store {
	return &cachedCredentials{Credentials: s, cache: c}
}

type cachedCredentials struct {
	*Credentials
	cache *ConfigCache
}

func (s *cachedCredentials) Sealed(ctx context.Context, collabID int32) (credential.Sealed, bool, error) {
	return s.cache.SealedCredentials(ctx, collabID)
}

// Payments returns p with its configuration reads served by c, and the
// views (payment.Views) that make them consistent.
func (c *ConfigCache) Payments(p *Payments) payment.Store {
	return &cachedPayments{Payments: p, cache: c}
}

// Validations returns v with its endpoints read from c.
func (c *ConfigCache) Validations(v *Validations) payment.ValidationStore {
	return &cachedValidations{Validations: v, cache: c}
}

// Collabs returns s with the maintenance switch read from c.
func (c *ConfigCache) Collabs(s *Store) collab.Store { return &cachedCollabs{Store: s, cache: c} }

type cachedPayments struct {
	*Payments
	cache *ConfigCache
}

var (
	_ payment.Store = (*cachedPayments)(nil)
	_ payment.Views = (*cachedPayments)(nil)
)

func (p *cachedPayments) MerchantByHash(ctx context.Context, hash string) (merchant.Merchant, error) {
	return p.cache.MerchantByHash(ctx, hash)
}

func (p *cachedPayments) MerchantCollab(ctx context.Context, merchantID, providerID int32) (payment.Collab, error) {
	return p.cache.MerchantCollab(ctx, merchantID, providerID)
}

func (p *cachedPayments) Connection(ctx context.Context, providerID int32) (payment.Connection, error) {
	return p.cache.Connection(ctx, providerID)
}

func (p *cachedPayments) ConnectionBySegment(ctx context.Context, segment string) (payment.Connection, error) {
	return p.cache.ConnectionBySegment(ctx, segment)
}

func (p *cachedPayments) Fees(ctx context.Context, currency string) ([]payment.Fee, error) {
	return p.cache.Fees(ctx, currency)
}

func (p *cachedPayments) View(ctx context.Context, fresh bool) (context.Context, error) {
	return p.cache.View(ctx, fresh)
}

func (p *cachedPayments) Current(ctx context.Context) (bool, error) { return p.cache.Current(ctx) }

type cachedValidations struct {
	*Validations
	cache *ConfigCache
}

func (v *cachedValidations) Endpoints(ctx context.Context, collabID int32) ([]validation.Endpoint, error) {
	return v.cache.Endpoints(ctx, collabID)
}

type cachedCollabs struct {
	*Store
	cache *ConfigCache
}

func (s *cachedCollabs) MaintenanceEnabled(ctx context.Context) (bool, error) {
	return s.cache.MaintenanceEnabled(ctx)
}

// viewVersion is the configuration version of ctx's view, 0 without one.
func viewVersion(ctx context.Context) int64 {
	if g := viewOf(ctx); g != nil {
		return g.version
	}
	return 0
}

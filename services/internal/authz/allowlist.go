package authz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
)

// IP restrictions (docs/contracts-security.md): a user flagged IP-restricted
// carries the flag in its access token (Claims.IPRestricted), and every
// service checks the caller's address against the user's allowed ranges on
// every call. The auth service owns the ranges (Postgres) and mirrors each
// restricted user's list into Redis on every change, sign-in and refresh;
// verifiers read it from there and keep it for at most AllowListCacheTTL, so
// a changed list applies within a minute without a new sign-in.

// AllowListCacheTTL is how long a verifier keeps a user's list in memory.
const AllowListCacheTTL = 30 * time.Second

// AllowListKey returns the Redis key holding userID's allowed ranges.
func AllowListKey(userID int64) string {
	return "paygate:allowed-ips:" + strconv.FormatInt(userID, 10)
}

// ErrAllowListUnknown is returned by AllowLists.Ranges when no list is
// mirrored for the user (Redis lost it): the caller should renew its
// session, whose refresh mirrors the list again.
var ErrAllowListUnknown = errors.New("allowed IP list not known")

// AllowLists reads the allowed ranges of IP-restricted users.
type AllowLists interface {
	// Ranges returns userID's ranges, ErrAllowListUnknown when none are
	// mirrored, or an internal error.
	Ranges(ctx context.Context, userID int64) ([]access.IPRange, error)
}

// RedisAllowLists mirrors allowed ranges in Redis (AllowListKey) and caches
// reads in memory for AllowListCacheTTL.
type RedisAllowLists struct {
	rdb *redis.Client
	ttl time.Duration
	now func() time.Time

	mu    sync.Mutex
	cache map[int64]cachedList
}

type cachedList struct {
	ranges  []access.IPRange
	unknown bool
	at      time.Time
}

var _ AllowLists = (*RedisAllowLists)(nil)

// NewRedisAllowLists returns allow-lists stored in rdb.
func NewRedisAllowLists(rdb *redis.Client) *RedisAllowLists {
	return &RedisAllowLists{rdb: rdb, ttl: AllowListCacheTTL, now: time.Now, cache: map[int64]cachedList{}}
}

// maxCached bounds the in-memory cache; past it the cache starts over.
const maxCached = 100_000

// Ranges implements AllowLists.
func (a *RedisAllowLists) Ranges(ctx context.Context, userID int64) ([]access.IPRange, error) {
	now := a.now()
	a.mu.Lock()
	c, ok := a.cache[userID]
	a.mu.Unlock()
	if ok && now.Sub(c.at) < a.ttl {
		if c.unknown {
			return nil, ErrAllowListUnknown
		}
		return c.ranges, nil
	}
	raw, err := a.rdb.Get(ctx, AllowListKey(userID)).Bytes()
	entry := cachedList{at: now}
	switch {
	case errors.Is(err, redis.Nil):
		entry.unknown = true
	case err != nil:
		return nil, fmt.Errorf("read allowed IPs of user %d: %w", userID, err)
	default:
		if err := json.Unmarshal(raw, &entry.ranges); err != nil {
			return nil, fmt.Errorf("decode allowed IPs of user %d: %w", userID, err)
		}
	}
	a.mu.Lock()
	if len(a.cache) >= maxCached {
		a.cache = map[int64]cachedList{}
	}
	// An unknown list is not cached: the refresh that follows mirrors it.
	if !entry.unknown {
		a.cache[userID] = entry
	}
	a.mu.Unlock()
	if entry.unknown {
		return nil, ErrAllowListUnknown
	}
	return entry.ranges, nil
}

// Store mirrors userID's ranges (the auth service calls it on every change,
// sign-in and refresh of a restricted user). The key has no expiry: it is
// replaced, never left stale.
func (a *RedisAllowLists) Store(ctx context.Context, userID int64, ranges []access.IPRange) error {
	if ranges == nil {
		ranges = []access.IPRange{}
	}
	b, err := json.Marshal(ranges)
	if err != nil {
		return fmt.Errorf("encode allowed IPs of user %d: %w", userID, err)
	}
	if err := a.rdb.Set(ctx, AllowListKey(userID), b, 0).Err(); err != nil {
		return fmt.Errorf("mirror allowed IPs of user %d: %w", userID, err)
	}
	a.mu.Lock()
	delete(a.cache, userID)
	a.mu.Unlock()
	return nil
}

// Messages shown to callers refused by their allow-list.
const (
	// MsgIPNotAllowed is the refusal of a call (or sign-in) from an address
	// outside the user's allowed ranges.
	MsgIPNotAllowed = "Access from this IP address is not allowed for this user."
	msgRenew        = "Your session must be renewed. Please sign in again."
)

// WithAllowLists makes the interceptors check the callers whose token is
// IP-restricted against lists, with clientIP giving the caller's address
// (server.ClientInfo). Outside the ranges a call is forbidden; when no list
// is known the call is unauthenticated, so that the console refreshes and the
// auth service checks the address and mirrors the list again.
func WithAllowLists(lists AllowLists, clientIP func(ctx context.Context) string) Option {
	return func(o *options) {
		o.allowLists = lists
		o.clientIP = clientIP
	}
}

func (o options) checkAllowList(ctx context.Context, c *access.Claims) error {
	if o.allowLists == nil {
		return nil
	}
	ip := ""
	if o.clientIP != nil {
		ip = o.clientIP(ctx)
	}
	return CheckAllowList(ctx, o.allowLists, c, ip)
}

// CheckAllowList holds an IP-restricted caller (c.IPRestricted) to its
// allowed ranges: nil when c is not restricted or ip is inside them,
// forbidden outside them, unauthenticated when no list is known (so that
// the console refreshes and the auth service mirrors the list again). The
// interceptors call it (WithAllowLists); so do handlers outside them, such
// as the gateway's transaction stream.
func CheckAllowList(ctx context.Context, l AllowLists, c *access.Claims, ip string) error {
	if !c.IPRestricted || l == nil {
		return nil
	}
	id, err := c.UserID()
	if err != nil {
		return apperr.Unauthenticated(msgRenew)
	}
	ranges, err := l.Ranges(ctx, id)
	if errors.Is(err, ErrAllowListUnknown) {
		return apperr.Unauthenticated(msgRenew)
	}
	if err != nil {
		return fmt.Errorf("authorize: %w", err)
	}
	if !access.IPAllowed(ip, ranges) {
		return apperr.Forbidden(MsgIPNotAllowed)
	}
	return nil
}

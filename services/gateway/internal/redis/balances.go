// Package redis keeps the gateway's short-lived data in Redis: the cached
// provider balances (balance.Cache).
package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/paygate/paygate/services/gateway/internal/balance"
)

// BalanceCache is balance.Cache in Redis: one key per collab,
// "paygate:balance:<schema>:<collab id>", expiring with its TTL.
type BalanceCache struct {
	rdb    *goredis.Client
	prefix string
}

var _ balance.Cache = (*BalanceCache)(nil)

// NewBalanceCache returns the cache in rdb for the gateway of schema (tests
// and deployments sharing a Redis keep their collabs apart).
func NewBalanceCache(rdb *goredis.Client, schema string) *BalanceCache {
	return &BalanceCache{rdb: rdb, prefix: "paygate:balance:" + schema + ":"}
}

// Get implements balance.Cache.
func (c *BalanceCache) Get(ctx context.Context, key string) (balance.Item, bool, error) {
	raw, err := c.rdb.Get(ctx, c.prefix+key).Bytes()
	if errors.Is(err, goredis.Nil) {
		return balance.Item{}, false, nil
	}
	if err != nil {
		return balance.Item{}, false, fmt.Errorf("get cached balance %s: %w", key, err)
	}
	var it balance.Item
	if err := json.Unmarshal(raw, &it); err != nil {
		return balance.Item{}, false, fmt.Errorf("decode cached balance %s: %w", key, err)
	}
	return it, true, nil
}

// Set implements balance.Cache.
func (c *BalanceCache) Set(ctx context.Context, key string, it balance.Item, ttl time.Duration) error {
	raw, err := json.Marshal(it)
	if err != nil {
		return fmt.Errorf("encode balance %s: %w", key, err)
	}
	if err := c.rdb.Set(ctx, c.prefix+key, raw, ttl).Err(); err != nil {
		return fmt.Errorf("cache balance %s: %w", key, err)
	}
	return nil
}

// Delete implements balance.Cache.
func (c *BalanceCache) Delete(ctx context.Context, key string) error {
	if err := c.rdb.Del(ctx, c.prefix+key).Err(); err != nil {
		return fmt.Errorf("drop cached balance %s: %w", key, err)
	}
	return nil
}

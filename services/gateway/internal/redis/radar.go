package redis

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/paygate/paygate/services/gateway/internal/radar"
)

// RadarCache is radar.Cache in Redis: one key per transaction,
// "paygate:radar:<schema>:<transaction id>", expiring with its TTL.
type RadarCache struct {
	rdb    *goredis.Client
	prefix string
}

var _ radar.Cache = (*RadarCache)(nil)

// NewRadarCache returns the cache in rdb for the gateway of schema.
func NewRadarCache(rdb *goredis.Client, schema string) *RadarCache {
	return &RadarCache{rdb: rdb, prefix: "paygate:radar:" + schema + ":"}
}

// Get implements radar.Cache with one MGET for the page.
func (c *RadarCache) Get(ctx context.Context, ids []int64) (map[int64]radar.ProviderStatus, error) {
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = c.prefix + strconv.FormatInt(id, 10)
	}
	vals, err := c.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, fmt.Errorf("get cached provider statuses: %w", err)
	}
	out := make(map[int64]radar.ProviderStatus, len(ids))
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue
		}
		var p radar.ProviderStatus
		if err := json.Unmarshal([]byte(s), &p); err != nil {
			continue // an unreadable entry is asked again
		}
		out[ids[i]] = p
	}
	return out, nil
}

// Set implements radar.Cache.
func (c *RadarCache) Set(ctx context.Context, id int64, p radar.ProviderStatus, ttl time.Duration) error {
	raw, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode provider status %d: %w", id, err)
	}
	if err := c.rdb.Set(ctx, c.prefix+strconv.FormatInt(id, 10), raw, ttl).Err(); err != nil {
		return fmt.Errorf("cache provider status %d: %w", id, err)
	}
	return nil
}

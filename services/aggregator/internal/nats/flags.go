package nats

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/paygate/paygate/services/aggregator/internal/jobstats"
)

// FlagsBucket is the KV bucket of the jobs' on/off flags: key = job name,
// value "off" = switched off; "on" or no key = on. The jobs package of every
// service reads it before each run.
const FlagsBucket = "paygate_jobs"

// Flags is jobstats.Flags in the KV bucket.
type Flags struct {
	kv jetstream.KeyValue
}

var _ jobstats.Flags = (*Flags)(nil)

// OpenFlags opens the bucket, making it when it does not exist.
func OpenFlags(ctx context.Context, js jetstream.JetStream) (*Flags, error) {
	kv, err := js.KeyValue(ctx, FlagsBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		kv, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket: FlagsBucket, Description: "Background jobs switched off (value off) by an admin.",
			Storage: jetstream.FileStorage,
		})
		if errors.Is(err, jetstream.ErrBucketExists) {
			kv, err = js.KeyValue(ctx, FlagsBucket)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open kv bucket %s: %w", FlagsBucket, err)
	}
	return &Flags{kv: kv}, nil
}

// Disabled implements jobstats.Flags.
func (f *Flags) Disabled(ctx context.Context) (map[string]bool, error) {
	lister, err := f.kv.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("list job flags: %w", err)
	}
	defer func() { _ = lister.Stop() }()
	off := map[string]bool{}
	for key := range lister.Keys() {
		e, err := f.kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read job flag %s: %w", key, err)
		}
		if string(e.Value()) == "off" {
			off[key] = true
		}
	}
	return off, nil
}

// Set implements jobstats.Flags.
func (f *Flags) Set(ctx context.Context, name string, enabled bool) error {
	v := "off"
	if enabled {
		v = "on"
	}
	if _, err := f.kv.PutString(ctx, name, v); err != nil {
		return fmt.Errorf("write job flag %s: %w", name, err)
	}
	return nil
}

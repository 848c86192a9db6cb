package nats

import (
	"context"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/paygate/paygate/services/aggregator/internal/jobstats"
	"github.com/paygate/paygate/services/internal/jobs"
)

// FlagsBucket is the KV bucket of the jobs' on/off flags (services/internal/jobs
// owns its layout: key = job name, value "off" = switched off; "on" or no key
// = on). Every service's job runner watches it.
const FlagsBucket = jobs.BucketName

// Flags is jobstats.Flags in the jobs package's KV bucket.
type Flags struct {
	js jetstream.JetStream
}

var _ jobstats.Flags = (*Flags)(nil)

// OpenFlags opens the bucket, making it when it does not exist.
func OpenFlags(ctx context.Context, js jetstream.JetStream) (*Flags, error) {
	if _, err := jobs.Bucket(ctx, js); err != nil {
		return nil, err
	}
	return &Flags{js: js}, nil
}

// Disabled implements jobstats.Flags.
func (f *Flags) Disabled(ctx context.Context) (map[string]bool, error) {
	enabled, err := jobs.EnabledFlags(ctx, f.js)
	if err != nil {
		return nil, err
	}
	off := map[string]bool{}
	for name, on := range enabled {
		if !on {
			off[name] = true
		}
	}
	return off, nil
}

// Set implements jobstats.Flags.
func (f *Flags) Set(ctx context.Context, name string, enabled bool) error {
	return jobs.SetEnabled(ctx, f.js, name, enabled)
}

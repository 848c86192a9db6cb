package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/paygate/paygate/services/internal/jobs/job"
)

// BucketName is the JetStream key-value bucket of the jobs' enabled flags:
// key = job name, value "off" = disabled, "on" or no key = enabled.
const BucketName = "paygate_jobs"

// Flag values.
const (
	flagOn  = "on"
	flagOff = "off"
)

// Bucket returns the flags bucket, creating it (file storage, one value per
// key) when it is missing.
func Bucket(ctx context.Context, js jetstream.JetStream) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, BucketName)
	if err == nil {
		return kv, nil
	}
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, fmt.Errorf("open bucket %s: %w", BucketName, err)
	}
	kv, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      BucketName,
		Description: "Enabled flags of Paygate's background jobs: key = job name, value on or off.",
		History:     1,
		Storage:     jetstream.FileStorage,
	})
	if errors.Is(err, jetstream.ErrBucketExists) {
		// Another process made it meanwhile.
		kv, err = js.KeyValue(ctx, BucketName)
	}
	if err != nil {
		return nil, fmt.Errorf("create bucket %s: %w", BucketName, err)
	}
	return kv, nil
}

// SetEnabled turns job name on or off on every replica: runs already going
// finish (continuous ones are asked to stop), and no new run starts while it
// is off.
func SetEnabled(ctx context.Context, js jetstream.JetStream, name string, enabled bool) error {
	if !job.ValidName(name) {
		return fmt.Errorf("job name %q is not <service>.<kebab-case name>", name)
	}
	kv, err := Bucket(ctx, js)
	if err != nil {
		return err
	}
	value := flagOn
	if !enabled {
		value = flagOff
	}
	if _, err := kv.PutString(ctx, name, value); err != nil {
		return fmt.Errorf("set flag of job %s: %w", name, err)
	}
	return nil
}

// EnabledFlags returns the flag of every job that has one (true when
// enabled). A job missing from the map is enabled.
func EnabledFlags(ctx context.Context, js jetstream.JetStream) (map[string]bool, error) {
	kv, err := Bucket(ctx, js)
	if err != nil {
		return nil, err
	}
	w, err := kv.WatchAll(ctx)
	if err != nil {
		return nil, fmt.Errorf("read job flags: %w", err)
	}
	defer func() { _ = w.Stop() }()
	flags := map[string]bool{}
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("read job flags: %w", ctx.Err())
		case e, ok := <-w.Updates():
			if !ok {
				return nil, errors.New("read job flags: the watch ended early")
			}
			if e == nil { // every current value was delivered
				return flags, nil
			}
			if e.Operation() == jetstream.KeyValuePut {
				flags[e.Key()] = !isOff(e.Value())
			} else {
				delete(flags, e.Key())
			}
		}
	}
}

func isOff(v []byte) bool { return strings.EqualFold(strings.TrimSpace(string(v)), flagOff) }

// flags is the runner's copy of the bucket, kept current by watch.
type flags struct {
	mu      sync.Mutex
	off     map[string]bool
	changed chan struct{} // closed and replaced on every change
}

func newFlags() *flags { return &flags{off: map[string]bool{}, changed: make(chan struct{})} }

// enabled reports whether job name is enabled, and returns a channel closed
// at the next change of any flag.
func (f *flags) enabled(name string) (bool, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.off[name], f.changed
}

func (f *flags) replace(off map[string]bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.off = off
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *flags) set(name string, off bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.off[name] == off {
		return
	}
	if off {
		f.off[name] = true
	} else {
		delete(f.off, name)
	}
	close(f.changed)
	f.changed = make(chan struct{})
}

// watch keeps f equal to the bucket until ctx ends, watching it again after
// a watch breaks. ready is closed once the first full read is in f.
func (f *flags) watch(ctx context.Context, kv jetstream.KeyValue, ready chan<- struct{}, retry time.Duration, log *slog.Logger) {
	first := true
	for ctx.Err() == nil {
		err := f.watchOnce(ctx, kv, func() {
			if first {
				close(ready)
				first = false
			}
		})
		if ctx.Err() != nil {
			return
		}
		log.WarnContext(ctx, "watch job flags; the last values read stay in force", "error", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(retry):
		}
	}
}

func (f *flags) watchOnce(ctx context.Context, kv jetstream.KeyValue, loaded func()) error {
	w, err := kv.WatchAll(ctx)
	if err != nil {
		return fmt.Errorf("watch bucket %s: %w", BucketName, err)
	}
	defer func() { _ = w.Stop() }()
	// The watch first delivers every current value, then nil, then changes:
	// the first values replace the copy as a whole, so that a key deleted
	// while no watch was running is dropped too.
	initial := map[string]bool{}
	for {
		var e jetstream.KeyValueEntry
		var ok bool
		select {
		case <-ctx.Done():
			return nil
		case e, ok = <-w.Updates():
		}
		if !ok {
			return errors.New("the watch ended")
		}
		if e == nil {
			if initial != nil {
				f.replace(initial)
				initial = nil
				loaded()
			}
			continue
		}
		off := e.Operation() == jetstream.KeyValuePut && isOff(e.Value())
		if initial != nil {
			if off {
				initial[e.Key()] = true
			}
			continue
		}
		f.set(e.Key(), off)
	}
}

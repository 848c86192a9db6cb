package callback

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Secrets hands out merchants' signing keys, sealed at rest. A merchant's key
// is made on first use: in demo mode DemoKey, otherwise 32 random bytes.
type Secrets struct {
	store  SecretStore
	sealer Sealer
	demo   bool
	now    func() time.Time
}

// NewSecrets returns the secrets kept in store, sealed by sealer; demo makes
// first keys with DemoKey.
func NewSecrets(store SecretStore, sealer Sealer, demo bool, now func() time.Time) *Secrets {
	return &Secrets{store: store, sealer: sealer, demo: demo, now: now}
}

// Owner is the additional data that binds a merchant's sealed signing key
// to the merchant, so a sealed value moved to another row does not open.
func Owner(merchantID int32) string { return "merchant:" + strconv.FormatInt(int64(merchantID), 10) }

// Keys returns the signing keys of merchantIDs, making the missing ones.
func (s *Secrets) Keys(ctx context.Context, merchantIDs []int32) (map[int32][]byte, error) {
	ids := slices.Clone(merchantIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	sealed, err := s.store.SealedKeys(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("signing keys: %w", err)
	}
	keys := make(map[int32][]byte, len(ids))
	for _, id := range ids {
		sk, ok := sealed[id]
		if !ok {
			if sk, err = s.create(ctx, id); err != nil {
				return nil, err
			}
		}
		k, err := s.sealer.Open(sk, Owner(id))
		if err != nil {
			return nil, fmt.Errorf("open signing key of merchant %d: %w", id, err)
		}
		keys[id] = k
	}
	return keys, nil
}

// Key returns one merchant's signing key, making it when missing.
func (s *Secrets) Key(ctx context.Context, merchantID int32) ([]byte, error) {
	keys, err := s.Keys(ctx, []int32{merchantID})
	if err != nil {
		return nil, err
	}
	return keys[merchantID], nil
}

// SigningKeys returns, per merchant of merchantIDs, the keys deliveries are
// signed with: the current one (made when missing) and, during a
// rotation's overlap, the one it replaced, both read at once. A replaced
// key that no longer opens (its encryption key left the keyring) is left
// out.
func (s *Secrets) SigningKeys(ctx context.Context, merchantIDs []int32) (map[int32][][]byte, error) {
	ids := slices.Clone(merchantIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	cur, prev, err := s.store.SigningSealedKeys(ctx, ids, s.now())
	if err != nil {
		return nil, fmt.Errorf("signing keys: %w", err)
	}
	out := make(map[int32][][]byte, len(ids))
	for _, id := range ids {
		sk, ok := cur[id]
		if !ok {
			if sk, err = s.create(ctx, id); err != nil {
				return nil, err
			}
		}
		k, err := s.sealer.Open(sk, Owner(id))
		if err != nil {
			return nil, fmt.Errorf("open signing key of merchant %d: %w", id, err)
		}
		out[id] = [][]byte{k}
		if sealed, ok := prev[id]; ok {
			if p, err := s.sealer.Open(sealed, Owner(id)); err == nil {
				out[id] = append(out[id], p)
			}
		}
	}
	return out, nil
}

// Rotate replaces a merchant's signing key with a random one and returns
// it; the replaced key still signs, beside it, for overlap.
func (s *Secrets) Rotate(ctx context.Context, merchantID int32, overlap time.Duration) ([]byte, error) {
	k, err := RandomKey()
	if err != nil {
		return nil, err
	}
	sealed, err := s.sealer.Seal(k, Owner(merchantID))
	if err != nil {
		return nil, fmt.Errorf("seal signing key of merchant %d: %w", merchantID, err)
	}
	now := s.now()
	if err := s.store.ReplaceSealedKey(ctx, merchantID, sealed, now, now.Add(overlap)); err != nil {
		return nil, fmt.Errorf("rotate signing key of merchant %d: %w", merchantID, err)
	}
	return k, nil
}

func (s *Secrets) create(ctx context.Context, merchantID int32) ([]byte, error) {
	k := DemoKey(merchantID)
	if !s.demo {
		var err error
		if k, err = RandomKey(); err != nil {
			return nil, err
		}
	}
	sealed, err := s.sealer.Seal(k, Owner(merchantID))
	if err != nil {
		return nil, fmt.Errorf("seal signing key of merchant %d: %w", merchantID, err)
	}
	stored, err := s.store.AddSealedKey(ctx, merchantID, sealed, s.now())
	if err != nil {
		return nil, fmt.Errorf("add signing key of merchant %d: %w", merchantID, err)
	}
	return stored, nil
}

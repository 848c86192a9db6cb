// Package merchant holds the gateway's merchants: the businesses that take
// payments through Paygate, and the scope rule that decides which of them a
// caller may see.
package merchant

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
)

// Merchant is a business that takes payments through the gateway.
type Merchant struct {
	// ID is the merchant's numeric id.
	ID int32
	// Name is the display name.
	Name string
	// Hash is the public hash that identifies the merchant to the payment API.
	Hash string
	// ContactName and ContactEmail reach the merchant's contact ("" for none).
	ContactName, ContactEmail string
	// Disabled is true when the merchant's payments are refused.
	Disabled bool
}

// Scope is the set of merchants a caller may see.
type Scope struct {
	// All is true for global roles (Admin, Support).
	All bool
	// MerchantIDs are the caller's own merchants when All is false.
	MerchantIDs []int32
}

// Includes reports whether the scope allows merchant id.
func (s Scope) Includes(id int32) bool {
	return s.All || slices.Contains(s.MerchantIDs, id)
}

// Store reads merchants.
type Store interface {
	// All returns every merchant, ordered by id.
	All(ctx context.Context) ([]Merchant, error)
	// ByIDs returns the merchants with the given ids, ordered by id; unknown
	// ids are skipped.
	ByIDs(ctx context.Context, ids []int32) ([]Merchant, error)
}

// Service answers questions about merchants within a caller's scope.
type Service struct {
	store Store
}

// NewService returns a service reading from store.
func NewService(store Store) *Service {
	return &Service{store: store}
}

// List returns the merchants scope allows, ordered by id: all of them for a
// global scope, the caller's own otherwise (none when the caller has none).
func (s *Service) List(ctx context.Context, scope Scope) ([]Merchant, error) {
	if scope.All {
		ms, err := s.store.All(ctx)
		if err != nil {
			return nil, fmt.Errorf("list merchants: %w", err)
		}
		return ms, nil
	}
	if len(scope.MerchantIDs) == 0 {
		return []Merchant{}, nil
	}
	ms, err := s.store.ByIDs(ctx, scope.MerchantIDs)
	if err != nil {
		return nil, fmt.Errorf("list merchants %v: %w", scope.MerchantIDs, err)
	}
	return ms, nil
}

// Demo returns the demo merchants of docs/contracts.md. Their hashes look
// random but are derived from the ids, so every seeding gives the same ones.
func Demo() []Merchant {
	names := []string{"Acme Games", "Blue Harbor Shop", "Cobalt Travel"}
	ms := make([]Merchant, len(names))
	for i, name := range names {
		id := int32(i + 1)
		ms[i] = Merchant{ID: id, Name: name, Hash: demoHash(id)}
	}
	return ms
}

func demoHash(id int32) string {
	sum := sha256.Sum256([]byte("paygate demo merchant " + strconv.Itoa(int(id))))
	return hex.EncodeToString(sum[:16])
}

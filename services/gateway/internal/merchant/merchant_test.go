package merchant_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
)

// store is a Store fake with function fields.
type store struct {
	all   func(ctx context.Context) ([]merchant.Merchant, error)
	byIDs func(ctx context.Context, ids []int32) ([]merchant.Merchant, error)
}

func (s store) All(ctx context.Context) ([]merchant.Merchant, error) { return s.all(ctx) }
func (s store) ByIDs(ctx context.Context, ids []int32) ([]merchant.Merchant, error) {
	return s.byIDs(ctx, ids)
}

func TestList(t *testing.T) {
	t.Parallel()
	demo := merchant.Demo()
	fake := store{
		all: func(context.Context) ([]merchant.Merchant, error) { return demo, nil },
		byIDs: func(_ context.Context, ids []int32) ([]merchant.Merchant, error) {
			var out []merchant.Merchant
			for _, m := range demo {
				if slices.Contains(ids, m.ID) {
					out = append(out, m)
				}
			}
			return out, nil
		},
	}
	tests := []struct {
		name  string
		scope merchant.Scope
		want  []int32
	}{
		{"global", merchant.Scope{All: true}, []int32{1, 2, 3}},
		{"own", merchant.Scope{MerchantIDs: []int32{2, 3}}, []int32{2, 3}},
		{"none", merchant.Scope{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ms, err := merchant.NewService(fake).List(context.Background(), tt.scope)
			if err != nil {
				t.Fatal(err)
			}
			var got []int32
			for _, m := range ms {
				got = append(got, m.ID)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ids = %v, want %v", got, tt.want)
			}
		})
	}

	errDown := errors.New("down")
	failing := store{all: func(context.Context) ([]merchant.Merchant, error) { return nil, errDown }}
	if _, err := merchant.NewService(failing).List(context.Background(), merchant.Scope{All: true}); !errors.Is(err, errDown) {
		t.Errorf("List error = %v", err)
	}
}

func TestDemoIsStable(t *testing.T) {
	t.Parallel()
	a, b := merchant.Demo(), merchant.Demo()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("Demo differs between calls")
	}
	if a[0].Name != "Acme Games" || a[1].Name != "Blue Harbor Shop" || a[2].Name != "Cobalt Travel" {
		t.Errorf("names = %v", a)
	}
	seen := map[string]bool{}
	for _, m := range a {
		if len(m.Hash) != 32 || seen[m.Hash] {
			t.Errorf("hash %q is not a unique 32-character hash", m.Hash)
		}
		seen[m.Hash] = true
	}
}

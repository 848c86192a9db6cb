package balance_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/balance"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
)

func TestRead(t *testing.T) {
	t.Parallel()
	const now = "2026-01-01T00:00:00Z"
	tests := []struct {
		name, body                                     string
		amount, currency, status, account, accountType string
		live                                           bool
		additional                                     map[string]string
	}{
		{name: "flat", body: `{"success":true,"balance":"10.50","currency":"usd","accountId":"A1","isLive":true}`,
			amount: "10.50", currency: "USD", status: "success", account: "A1", accountType: "Standard", live: true},
		{name: "nested wallet", body: `{"success":true,"data":{"merchantAccount":{"accountId":"F1","accountType":"Gold","mode":"sandbox"},"wallet":{"availableBalance":"250000.00","currency":"PHP","pendingBalance":"1250.00"}}}`,
			amount: "250000.00", currency: "PHP", status: "success", account: "F1", accountType: "Gold",
			additional: map[string]string{"pendingBalance": "1250.00"}},
		{name: "number kept exact", body: `{"result":{"balance":{"amount":12345678901234.57}}}`,
			amount: "12345678901234.57", currency: "PHP", status: "success", accountType: "Standard"},
		{name: "list of assets", body: `{"data":{"assets":[{"availableBalance":"15000.00","currency":"USDT"}]}}`,
			amount: "15000.00", currency: "USDT", status: "success", accountType: "Standard"},
		{name: "too deep", body: `{"a":{"b":{"c":{"balance":"1.00"}}}}`, currency: "PHP", status: "unknown", accountType: "Standard"},
		{name: "failure marker", body: `{"success":false,"balance":"1.00"}`, currency: "PHP", status: "error", accountType: "Standard"},
		{name: "sandbox flag", body: `{"balance":"2","sandbox":true}`, amount: "2", currency: "PHP", status: "success", accountType: "Standard"},
		{name: "not json", body: `<html>`, currency: "PHP", status: "unknown", accountType: "Standard"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			it := balance.Read([]byte(tt.body), now)
			if it.Amount != tt.amount || it.Currency != tt.currency || it.Status != tt.status || it.AccountID != tt.account ||
				it.AccountType != tt.accountType || it.IsLive != tt.live {
				t.Errorf("Read(%s) = %+v", tt.body, it)
			}
			for k, v := range tt.additional {
				if it.AdditionalBalances[k] != v {
					t.Errorf("additional %s = %q, want %q (%v)", k, it.AdditionalBalances[k], v, it.AdditionalBalances)
				}
			}
			if it.UpdatedAt != now {
				t.Errorf("updatedAt = %q", it.UpdatedAt)
			}
		})
	}
}

type fakeStore map[int32]balance.Target

func (f fakeStore) BalanceTarget(_ context.Context, id int32) (balance.Target, error) {
	tg, ok := f[id]
	if !ok {
		return tg, apperr.NotFound("no collab")
	}
	return tg, nil
}

func (f fakeStore) BalanceCollabs(context.Context, merchant.Scope, int) ([]balance.Listed, error) {
	return nil, nil
}

type fakeProvider struct {
	calls atomic.Int32
	fn    func(ctx context.Context) (balance.Answer, error)
}

func (p *fakeProvider) Balance(ctx context.Context, _ string, _ map[string]any) (balance.Answer, error) {
	p.calls.Add(1)
	return p.fn(ctx)
}

type memCache struct {
	mu    sync.Mutex
	items map[string]balance.Item
}

func (c *memCache) Get(_ context.Context, key string) (balance.Item, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.items[key]
	return it, ok, nil
}

func (c *memCache) Set(_ context.Context, key string, it balance.Item, _ time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items[key] = it
	return nil
}

func (c *memCache) Delete(_ context.Context, key string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.items, key)
	return nil
}

func TestGetCollapsesAndFails(t *testing.T) {
	t.Parallel()
	store := fakeStore{
		1: {CollabID: 1, MerchantID: 7, PathSegment: "fbpay", SupportsBalance: true, BaseURL: "http://x", ProviderName: "FbPay"},
		2: {CollabID: 2, MerchantID: 7, PathSegment: "govip", BaseURL: "http://x", ProviderName: "GoVip"},
		3: {CollabID: 3, MerchantID: 7, PathSegment: "humpas", SupportsBalance: true, BaseURL: "http://x", ProviderName: "HumPas"},
	}
	release := make(chan struct{})
	p := &fakeProvider{fn: func(ctx context.Context) (balance.Answer, error) {
		select {
		case <-release:
		case <-ctx.Done():
			return balance.Answer{}, ctx.Err()
		}
		return balance.Answer{StatusCode: 200, Body: []byte(`{"balance":"5.00"}`)}, nil
	}}
	creds := func(context.Context, int32) (map[string]any, error) { return nil, nil }
	s := balance.NewService(store, creds, p, &memCache{items: map[string]balance.Item{}}, balance.Options{Timeout: 2 * time.Second})
	scope := merchant.Scope{MerchantIDs: []int32{7}}

	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			it, err := s.Get(context.Background(), scope, "fbpay", 1)
			if err != nil || it.Amount != "5.00" {
				t.Errorf("Get = %+v, %v", it, err)
			}
		})
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if _, err := s.Get(context.Background(), scope, "fbpay", 1); err != nil || p.calls.Load() != 1 {
		t.Errorf("provider called %d times, want 1 (%v)", p.calls.Load(), err)
	}

	if _, err := s.Get(context.Background(), merchant.Scope{MerchantIDs: []int32{8}}, "fbpay", 1); apperr.KindOf(err) != apperr.KindNotFound {
		t.Errorf("out of scope: %v", err)
	}
	if _, err := s.Get(context.Background(), scope, "humpas", 1); apperr.KindOf(err) != apperr.KindNotFound {
		t.Errorf("wrong provider: %v", err)
	}
	if _, err := s.Get(context.Background(), scope, "govip", 2); apperr.KindOf(err) != apperr.KindInvalid {
		t.Errorf("no balance: %v", err)
	}

	p.fn = func(context.Context) (balance.Answer, error) { return balance.Answer{}, errors.New("dial: refused") }
	it, err := s.Get(context.Background(), scope, "humpas", 3)
	if err != nil || it.Status != balance.StatusError || it.Amount != "" || it.Currency != "PHP" {
		t.Errorf("failing provider = %+v, %v", it, err)
	}
}

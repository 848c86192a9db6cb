package main

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/access"
)

// The balance tests (docs/contracts-balances.md) ask the real sandbox,
// behind a wrapper that counts its balance calls, records the credentials
// header it received and can make a provider fail or stall.

type balanceJSON struct {
	CollabID            int32             `json:"collabId"`
	ProviderPathSegment string            `json:"providerPathSegment"`
	Amount              string            `json:"amount"`
	Currency            string            `json:"currency"`
	UpdatedAt           string            `json:"updatedAt"`
	IsLive              bool              `json:"isLive"`
	AccountID           string            `json:"accountId"`
	AccountType         string            `json:"accountType"`
	AdditionalBalances  map[string]string `json:"additionalBalances"`
	Status              string            `json:"status"`
	RawData             json.RawMessage   `json:"rawData"`
	Message             string            `json:"message"`
}

// balanceSpy counts the sandbox's balance calls per provider and keeps the
// last credentials header; stall makes a provider's balance hang.
type balanceSpy struct {
	mu      sync.Mutex
	calls   map[string]int
	headers map[string]string
	stall   map[string]bool
}

func (s *balanceSpy) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		segment, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/"), "/balance")
		if !ok || r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		s.mu.Lock()
		s.calls[segment]++
		s.headers[segment] = r.Header.Get("X-Paygate-Credentials")
		stall := s.stall[segment]
		s.mu.Unlock()
		if stall {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *balanceSpy) count(segment string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[segment]
}

func balancePath(segment string, collabID int32) string {
	return "/api/v1/providers/" + segment + "/balance?collabId=" + strconv.Itoa(int(collabID))
}

func TestBalances(t *testing.T) {
	t.Parallel()
	spy := &balanceSpy{calls: map[string]int{}, headers: map[string]string{}, stall: map[string]bool{"rollingpay": true}}
	e := newPayEnvWith(t, payEnvOptions{wrapSandbox: spy.wrap, env: map[string]string{"PAYGATE_PROVIDER_TIMEOUT": "1s"}})
	admin := e.admin
	fbpay := e.testGateway.initialize(t, admin, e.merchantID, 3)
	humpas := e.testGateway.initialize(t, admin, e.merchantID, 4)
	crypto := e.testGateway.initialize(t, admin, e.merchantID, 5)
	rolling := e.testGateway.initialize(t, admin, e.merchantID, 19)

	admin.must(t, http.StatusOK, http.MethodPost, credentialsPath(fbpay), map[string]any{"merchantId": "FB-42", "apiKey": "k-1"}, nil)

	// The provider is asked with the collab's credentials; the nested answer
	// is read.
	var b balanceJSON
	admin.must(t, http.StatusOK, http.MethodGet, balancePath("fbpay", fbpay), nil, &b)
	if b.Status != "success" || b.Amount != "250000.00" || b.Currency != "PHP" || b.AccountID != "FB-42" ||
		b.AccountType != "Standard" || b.IsLive || b.CollabID != fbpay || b.ProviderPathSegment != "fbpay" ||
		b.AdditionalBalances["pendingBalance"] != "1250.00" || b.UpdatedAt == "" {
		t.Errorf("fbpay balance = %+v", b)
	}
	var raw struct {
		Data struct {
			AuthenticatedWith []string `json:"authenticatedWith"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b.RawData, &raw); err != nil || strings.Join(raw.Data.AuthenticatedWith, ",") != "apiKey,merchantId" {
		t.Errorf("rawData = %s (%v)", b.RawData, err)
	}
	header, _ := base64.RawURLEncoding.DecodeString(spy.headers["fbpay"])
	if !strings.Contains(string(header), `"apiKey":"k-1"`) {
		t.Errorf("credentials header = %q", header)
	}

	// Cached: a second ask does not reach the provider.
	admin.must(t, http.StatusOK, http.MethodGet, balancePath("fbpay", fbpay), nil, &b)
	if n := spy.count("fbpay"); n != 1 || b.Amount != "250000.00" {
		t.Errorf("fbpay asked %d times, want 1 (%+v)", n, b)
	}

	// New credentials drop the cached answer: the provider is asked with them.
	admin.must(t, http.StatusOK, http.MethodPost, credentialsPath(fbpay), map[string]any{"merchantId": "FB-43", "apiKey": "k-1"}, nil)
	admin.must(t, http.StatusOK, http.MethodGet, balancePath("fbpay", fbpay), nil, &b)
	if n := spy.count("fbpay"); n != 2 || b.AccountID != "FB-43" {
		t.Errorf("after new credentials: fbpay asked %d times, want 2 (%+v)", n, b)
	}

	// Concurrent misses share one call.
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			var x balanceJSON
			admin.must(t, http.StatusOK, http.MethodGet, balancePath("humpas", humpas), nil, &x)
			if x.Amount != "98000.50" || x.Status != "success" {
				t.Errorf("humpas balance = %+v", x)
			}
		})
	}
	wg.Wait()
	if n := spy.count("humpas"); n != 1 {
		t.Errorf("humpas asked %d times by concurrent callers, want 1", n)
	}

	admin.must(t, http.StatusOK, http.MethodGet, balancePath("crypto-manager", crypto), nil, &b)
	if b.Amount != "15000.00" || b.Currency != "USDT" || b.Status != "success" {
		t.Errorf("crypto-manager balance = %+v", b)
	}

	// A provider that does not answer in time: an error item, not a 500.
	start := time.Now()
	admin.must(t, http.StatusOK, http.MethodGet, balancePath("rollingpay", rolling), nil, &b)
	if b.Status != "error" || b.Amount != "" || b.Currency != "PHP" || !strings.Contains(b.Message, "did not answer") {
		t.Errorf("stalled rollingpay = %+v", b)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("a stalled provider held the call %s", d)
	}

	// A provider that refuses the credentials: an error item.
	other := e.newMerchant(t)
	refusing := e.testGateway.initialize(t, admin, other, 4)
	admin.must(t, http.StatusOK, http.MethodPost, credentialsPath(refusing), map[string]any{"apiKey": "invalid-key"}, nil)
	admin.must(t, http.StatusOK, http.MethodGet, balancePath("humpas", refusing), nil, &b)
	if b.Status != "error" || b.Amount != "" || !strings.Contains(b.Message, "401") {
		t.Errorf("refused credentials = %+v", b)
	}

	// Who may ask.
	for _, role := range []string{access.RoleMerchant, access.RoleMerchantAdmin, access.RoleMerchantFinanceManager} {
		u := e.user(t, role, e.merchantID)
		u.must(t, http.StatusOK, http.MethodGet, balancePath("fbpay", fbpay), nil, &b)
		if b.Amount != "250000.00" || spy.count("fbpay") != 2 {
			t.Errorf("%s reads %+v", role, b)
		}
		stranger := e.user(t, role, other)
		stranger.must(t, http.StatusNotFound, http.MethodGet, balancePath("fbpay", fbpay), nil, nil)
	}
	for _, role := range []string{access.RoleSupport, access.RoleMerchantSupport} {
		e.user(t, role, e.merchantID).must(t, http.StatusForbidden, http.MethodGet, balancePath("fbpay", fbpay), nil, nil)
	}

	// The page's rows: the balance-supporting collabs in scope.
	type listedJSON struct {
		CollabID            int32  `json:"collabId"`
		MerchantID          int32  `json:"merchantId"`
		MerchantName        string `json:"merchantName"`
		ProviderName        string `json:"providerName"`
		ProviderPathSegment string `json:"providerPathSegment"`
	}
	var listed []listedJSON
	e.user(t, access.RoleMerchantFinanceManager, e.merchantID).must(t, http.StatusOK, http.MethodGet, "/api/v1/balances/collabs", nil, &listed)
	var segments []string
	for _, l := range listed {
		if l.MerchantID != e.merchantID {
			t.Errorf("listed another merchant's collab %+v", l)
		}
		segments = append(segments, l.ProviderPathSegment)
	}
	if strings.Join(segments, ",") != "crypto-manager,fbpay,humpas,rollingpay" {
		t.Errorf("balance collabs = %v", listed)
	}
	e.user(t, access.RoleSupport, e.merchantID).must(t, http.StatusForbidden, http.MethodGet, "/api/v1/balances/collabs", nil, nil)

	// Bad asks.
	var msg struct{ Message string }
	admin.must(t, http.StatusBadRequest, http.MethodGet, balancePath("govip", e.govip), nil, &msg)
	if !strings.Contains(msg.Message, "does not report balances") {
		t.Errorf("govip: %q", msg.Message)
	}
	admin.must(t, http.StatusNotFound, http.MethodGet, balancePath("humpas", fbpay), nil, &msg)
	if !strings.Contains(msg.Message, "not a collaboration of provider") {
		t.Errorf("wrong provider: %q", msg.Message)
	}
	admin.must(t, http.StatusNotFound, http.MethodGet, balancePath("fbpay", 999999), nil, nil)
	admin.must(t, http.StatusBadRequest, http.MethodGet, "/api/v1/providers/fbpay/balance", nil, &msg)
	if !strings.Contains(msg.Message, "collabId") {
		t.Errorf("without collabId: %q", msg.Message)
	}
	if strings.Contains(e.Logs(), "k-1") {
		t.Error("the gateway logged a credential value")
	}
}

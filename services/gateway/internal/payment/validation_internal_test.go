package payment

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/validation"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/stdwebhooks"
)

// fakeValidations is a ValidationStore in memory.
type fakeValidations struct {
	mu        sync.Mutex
	endpoints []validation.Endpoint
	results   []validation.Result
	answers   []Answer
}

func (f *fakeValidations) Endpoints(context.Context, int32) ([]validation.Endpoint, error) {
	return f.endpoints, nil
}

func (f *fakeValidations) CreateResults(_ context.Context, txID int64, rs []validation.Result, at time.Time, _ []LogEntry) ([]validation.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range rs {
		r.ID, r.TransactionID, r.CreatedAt, r.UpdatedAt = int64(len(f.results)+1), txID, at, at
		f.results = append(f.results, r)
	}
	return slices.Clone(f.results), nil
}

func (f *fakeValidations) Results(context.Context, int64) ([]validation.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.results), nil
}

func (f *fakeValidations) Result(_ context.Context, id int64) (validation.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.results[id-1], nil
}

func (f *fakeValidations) RecordAnswer(_ context.Context, a Answer) (validation.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers = append(f.answers, a)
	r := &f.results[a.ResultID-1]
	r.Attempts++
	if !a.OnlyPending || r.Status == validation.StatusPending {
		r.Status, r.ResponseCode, r.Message = a.Status, a.ResponseCode, a.Message
	}
	return *r, nil
}

func (f *fakeValidations) SetResultStatus(_ context.Context, id int64, status validation.Status, _ time.Time, _ []LogEntry) (validation.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.results[id-1].Status = status
	return f.results[id-1], nil
}

// fakeCaller answers each URL with a fixed exchange and records the order
// of the calls.
type fakeCaller struct {
	mu      sync.Mutex
	answers map[string]validation.Exchange
	calls   []string
	// bodies and headers are each call's.
	bodies  [][]byte
	headers []map[string]string
	// during, when set, runs during each call.
	during func(url string)
}

func (c *fakeCaller) Call(_ context.Context, url string, body []byte, headers map[string]string) validation.Exchange {
	if c.during != nil {
		c.during(url)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls, c.bodies, c.headers = append(c.calls, url), append(c.bodies, body), append(c.headers, headers)
	return c.answers[url]
}

// changeStore records status changes; the rest of Store is not used.
type changeStore struct {
	Store
	changes []StatusChange
}

// MerchantCollab answers a collab with the merchant callbacks on.
func (s *changeStore) MerchantCollab(context.Context, int32, int32) (Collab, error) {
	return Collab{Callbacks: true}, nil
}

func (s *changeStore) ChangeStatus(_ context.Context, c StatusChange) (Transaction, error) {
	s.changes = append(s.changes, c)
	return Transaction{ID: c.ID, Status: c.To}, nil
}

var (
	approved = validation.Exchange{StatusCode: 200, ResponseBody: []byte(`{"approved":true}`)}
	vetoed   = validation.Exchange{StatusCode: 200, ResponseBody: []byte(`{"approved":false,"reason":"No."}`)}
)

func newValidating(vs *fakeValidations, caller *fakeCaller) (*Service, *changeStore) {
	store := &changeStore{}
	return NewService(store, nil, nil, nil, nil, Options{Validation: Validation{Store: vs, Caller: caller, Timeout: time.Second}}), store
}

var validatingCollab = Collab{ID: 3, ValidateDeposits: true}

func TestValidateNewStopsAtTheFirstVeto(t *testing.T) {
	t.Parallel()
	vs := &fakeValidations{endpoints: []validation.Endpoint{
		{ID: 1, URL: "https://told", Priority: 1, ForCashIn: true},
		{ID: 2, URL: "https://second", Priority: 9, Awaitable: true, ForCashIn: true},
		{ID: 3, URL: "https://first", Priority: 2, Awaitable: true, ForCashIn: true},
		{ID: 4, URL: "https://vetoes", Priority: 5, Awaitable: true, ForCashIn: true},
	}}
	caller := &fakeCaller{answers: map[string]validation.Exchange{"https://first": approved, "https://vetoes": vetoed, "https://second": approved, "https://told": approved}}
	s, store := newValidating(vs, caller)
	tx := Transaction{ID: 7, Type: TypeDeposit, Status: StatusNotConfirmed}

	after, proceed, err := s.validateNew(context.Background(), tx, validatingCollab)
	s.Wait()
	if err != nil || proceed {
		t.Fatalf("validateNew = %v, %v; want a stop", proceed, err)
	}
	if !slices.Equal(caller.calls, []string{"https://first", "https://vetoes"}) {
		t.Errorf("asked %v, want first then vetoes, and nothing after the veto", caller.calls)
	}
	if len(store.changes) != 1 || store.changes[0].To != StatusValidationFail || after.Status != StatusValidationFail ||
		store.changes[0].ErrorMessage != "Validation AVR-2 by https://vetoes failed: No." {
		t.Errorf("changes %+v", store.changes)
	}
	rs, _ := vs.Results(context.Background(), 7)
	var pending int
	for _, r := range rs {
		if r.Status == validation.StatusPending {
			pending++
		}
	}
	if pending != 2 {
		t.Errorf("results %+v: the two not asked must stay pending", rs)
	}
}

func TestValidateNewTellsTheOthersAfterTheAwaited(t *testing.T) {
	t.Parallel()
	vs := &fakeValidations{endpoints: []validation.Endpoint{
		{ID: 1, URL: "https://told", Priority: 1, ForCashIn: true},
		{ID: 2, URL: "https://awaited", Priority: 50, Awaitable: true, ForCashIn: true},
		{ID: 3, URL: "https://cash-out", Priority: 1, Awaitable: true, ForCashOut: true},
	}}
	caller := &fakeCaller{answers: map[string]validation.Exchange{"https://awaited": approved, "https://told": vetoed}}
	s, store := newValidating(vs, caller)

	_, proceed, err := s.validateNew(context.Background(), Transaction{ID: 8, Type: TypeDeposit, Status: StatusNotConfirmed}, validatingCollab)
	if err != nil || !proceed {
		t.Fatalf("validateNew = %v, %v; want to go on", proceed, err)
	}
	s.Wait()
	if !slices.Equal(caller.calls, []string{"https://awaited", "https://told"}) {
		t.Errorf("asked %v", caller.calls)
	}
	if len(store.changes) != 0 {
		t.Errorf("a veto not awaited changed the transaction: %+v", store.changes)
	}
	if len(vs.results) != 2 || vs.results[1].Status != validation.StatusFailed {
		t.Errorf("results %+v", vs.results)
	}

	off := validatingCollab
	off.ValidateDeposits = false
	before := len(caller.calls)
	if _, proceed, err := s.validateNew(context.Background(), Transaction{ID: 9, Type: TypeDeposit}, off); err != nil || !proceed || len(caller.calls) != before {
		t.Errorf("ValidateCashIn off still validated: %v, %v", proceed, err)
	}
}

func TestAnswerKeepsAnOperatorsDecision(t *testing.T) {
	t.Parallel()
	vs := &fakeValidations{endpoints: []validation.Endpoint{{ID: 1, URL: "https://slow", Priority: 1, ForCashIn: true}}}
	var s *Service
	caller := &fakeCaller{answers: map[string]validation.Exchange{"https://slow": vetoed}}
	caller.during = func(string) {
		// The operator decides while the endpoint is being asked.
		if _, err := vs.SetResultStatus(context.Background(), 1, validation.StatusSuccess, time.Now(), nil); err != nil {
			t.Error(err)
		}
	}
	s, _ = newValidating(vs, caller)
	if _, _, err := s.validateNew(context.Background(), Transaction{ID: 9, Type: TypeDeposit, Status: StatusNotConfirmed}, validatingCollab); err != nil {
		t.Fatal(err)
	}
	s.Wait()
	if len(vs.answers) != 1 || !vs.answers[0].OnlyPending || len(vs.answers[0].Logs) != 2 {
		t.Fatalf("answers %+v", vs.answers)
	}
	if r := vs.results[0]; r.Status != validation.StatusSuccess || r.Attempts != 1 {
		t.Errorf("result %+v: the operator's Success must stay, the attempt counted", r)
	}
	// A retry applies whatever the status.
	r, err := s.ask(context.Background(), Transaction{ID: 9}, vs.results[0], &Operator{Username: "alice"})
	if err != nil || r.Status != validation.StatusFailed || vs.answers[1].OnlyPending || vs.answers[1].Logs[0].AuthData == "" {
		t.Errorf("retry: %+v, %v, answer %+v", r, err, vs.answers[1])
	}
}

func TestAskRecordsNothingWhenTheCallerLeaves(t *testing.T) {
	t.Parallel()
	vs := &fakeValidations{results: []validation.Result{{ID: 1, URL: "https://x", Awaitable: true}}}
	ctx, cancel := context.WithCancel(context.Background())
	caller := &fakeCaller{answers: map[string]validation.Exchange{}, during: func(string) { cancel() }}
	s, _ := newValidating(vs, caller)
	if _, err := s.ask(ctx, Transaction{ID: 1}, vs.results[0], nil); err == nil {
		t.Error("ask succeeded with a cancelled context")
	}
	if len(vs.answers) != 0 {
		t.Errorf("recorded %+v: a caller going away is not the endpoint's failure", vs.answers)
	}
}

// The request is signed with the merchant's key (Standard Webhooks, id
// vr_<result>_<attempt>); a merchant without a key is sent it unsigned, and
// a key that cannot be read asks nothing.
func TestAskSignsWithTheMerchantKey(t *testing.T) {
	t.Parallel()
	key := []byte("secret-of-merchant-5")
	at := time.Unix(1_767_225_600, 0)
	keys := map[int32][]byte{5: key}
	var keyErr error
	caller := &fakeCaller{answers: map[string]validation.Exchange{"https://x": approved}}
	vs := &fakeValidations{results: []validation.Result{{ID: 1, URL: "https://x", Awaitable: true, Attempts: 1}}}
	s := NewService(&changeStore{}, nil, nil, nil, func() time.Time { return at }, Options{Validation: Validation{
		Store: vs, Caller: caller, Timeout: time.Second,
		MerchantKey: func(_ context.Context, id int32) ([]byte, error) {
			if keyErr != nil {
				return nil, keyErr
			}
			if k, ok := keys[id]; ok {
				return k, nil
			}
			return nil, apperr.NotFound("The merchant was not found.")
		}}})

	if _, err := s.ask(context.Background(), Transaction{ID: 9, MerchantID: 5}, vs.results[0], nil); err != nil {
		t.Fatal(err)
	}
	h := caller.headers[0]
	if h[stdwebhooks.HeaderID] != "vr_1_2" || h[stdwebhooks.HeaderTimestamp] != "1767225600" ||
		!stdwebhooks.Verify(key, "vr_1_2", at.Unix(), caller.bodies[0], h[stdwebhooks.HeaderSignature]) {
		t.Errorf("headers %v do not sign body %s", h, caller.bodies[0])
	}
	if stdwebhooks.Verify([]byte("another key"), "vr_1_2", at.Unix(), caller.bodies[0], h[stdwebhooks.HeaderSignature]) {
		t.Error("another key verifies the signature")
	}

	if _, err := s.ask(context.Background(), Transaction{ID: 9, MerchantID: 6}, vs.results[0], nil); err != nil {
		t.Fatal(err)
	}
	if len(caller.headers[1]) != 0 {
		t.Errorf("a merchant without a key: headers %v", caller.headers[1])
	}

	keyErr = errors.New("connection refused")
	if _, err := s.ask(context.Background(), Transaction{ID: 9, MerchantID: 5}, vs.results[0], nil); err == nil {
		t.Error("asked with a key that could not be read")
	}
	if len(caller.calls) != 2 {
		t.Errorf("%d calls, want 2", len(caller.calls))
	}
}

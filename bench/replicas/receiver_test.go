package replicas_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// receiver is the merchant's callback endpoint: it answers 200 and counts
// what it received per webhook id and per transaction.
type receiver struct {
	url       string
	mu        sync.Mutex
	perHook   map[string]int            // webhook id → deliveries received
	hooksOfTx map[int64]map[string]bool // transaction → its webhook ids
	parentsOf map[int64][]string        // transaction → the traceparent headers of its callbacks
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	r := &receiver{perHook: map[string]int{}, hooksOfTx: map[int64]map[string]bool{}, parentsOf: map[int64][]string{}}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/callbacks"
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	raw, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, "unreadable body", http.StatusBadRequest)
		return
	}
	var body struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	id, err2 := int64(0), json.Unmarshal(raw, &body)
	if err2 == nil {
		id, err2 = strconv.ParseInt(body.Data.ID, 10, 64)
	}
	hook := req.Header.Get("webhook-id")
	if err2 != nil || hook == "" {
		http.Error(w, "not a callback", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.perHook[hook]++
	if r.hooksOfTx[id] == nil {
		r.hooksOfTx[id] = map[string]bool{}
	}
	r.hooksOfTx[id][hook] = true
	r.parentsOf[id] = append(r.parentsOf[id], req.Header.Get("traceparent"))
	r.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// covered returns how many of ids were called back at least once.
func (r *receiver) covered(ids map[int64]bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for id := range ids {
		if len(r.hooksOfTx[id]) > 0 {
			n++
		}
	}
	return n
}

func (r *receiver) coveredAll(ids map[int64]bool) bool { return r.covered(ids) == len(ids) }

// byTransaction returns each transaction's webhook ids and how many
// deliveries repeated a webhook id already received.
func (r *receiver) byTransaction() (map[int64][]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[int64][]string{}
	for id, hooks := range r.hooksOfTx {
		for h := range hooks {
			out[id] = append(out[id], h)
		}
	}
	dups := 0
	for _, n := range r.perHook {
		dups += n - 1
	}
	return out, dups
}

// traceparents returns the traceparent headers of transaction id's
// callbacks, in the order they came.
func (r *receiver) traceparents(id int64) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.parentsOf[id]...)
}

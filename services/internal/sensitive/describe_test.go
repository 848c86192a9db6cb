package sensitive_test

import (
	"testing"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/internal/sensitive"
)

// TestBulkStartCount: a bulk run's threshold count is its expectedCount
// (an int64, which protojson writes as a string), so a policy's minCount
// applies to it (docs/contracts-bulk.md).
func TestBulkStartCount(t *testing.T) {
	a, ok := sensitive.ByName("bulk.start")
	if !ok || a.Count != "expectedCount" {
		t.Fatalf("bulk.start = %+v", a)
	}
	d, err := sensitive.Describe(a, &gatewayv1.StartBulkRunRequest{Action: "markFailed", Reason: "stuck", ExpectedCount: 1500,
		Filter: &gatewayv1.ListTransactionsRequest{MerchantId: 2}}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := d.Count(a); !ok || n != 1500 {
		t.Fatalf("Count = %d, %v; want 1500", n, ok)
	}
	// A described call decoded back from its canonical JSON counts the same.
	back, err := sensitive.Parse(d.Canonical())
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := back.Count(a); !ok || n != 1500 {
		t.Fatalf("Count after a round trip = %d, %v", n, ok)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz/authztest"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// The tests of providers, collabs, the activity log and maintenance run the
// real service (run, as main does) in a schema of their own against real
// Postgres, Redis and NATS, with tokens minted by authztest, and check the
// database and the events on NATS after every change.
//
// Exactly-one checks on NATS use a fence: after a change, the same user makes
// one more change to a collab kept for that purpose, and the events are read
// until the fence's arrives. The relay publishes a schema's outbox in commit
// order, so every event of the change has arrived by then, and any second one
// would have been counted.

// grants are the permissions each role holds (docs/contracts.md).
var grants = map[string][]string{
	access.RoleAdmin: access.AllPermissions,
	access.RoleSupport: {access.PermDashboardAccess, access.PermStatisticsAccess, access.PermGetTransactions,
		access.PermViewLogs, access.PermGetProviders, access.PermBalanceAccess, access.PermFilesAccess,
		access.PermViewFrauds, access.PermViewRecentActions, access.PermViewFees, access.PermJobsAccess},
	access.RoleMerchant: merchantPerms,
	access.RoleMerchantAdmin: append([]string{access.PermEditTransactions, access.PermViewLogs, access.PermEditCollab,
		access.PermCredentialsAccess, access.PermViewFrauds, access.PermCancelCallbacks, access.PermAllowIP,
		access.PermAddUsers, access.PermEditUser}, merchantPerms...),
	access.RoleMerchantFinanceManager: {access.PermDashboardAccess, access.PermStatisticsAccess,
		access.PermGetTransactions, access.PermBalanceAccess, access.PermFilesAccess, access.PermViewFees},
	access.RoleMerchantSupport: {access.PermGetTransactions, access.PermViewLogs, access.PermGetProviders},
}

var merchantPerms = []string{access.PermDashboardAccess, access.PermStatisticsAccess, access.PermGetTransactions,
	access.PermGetProviders, access.PermBalanceAccess, access.PermFilesAccess, access.PermViewRecentActions, access.PermViewFees}

// userSeq hands out user ids, random per process, so that a test can pick
// its own events out of the shared stream by user id.
var userSeq atomic.Int64

func init() {
	userSeq.Store(time.Now().UnixNano() % 1_000_000_000 * 1000)
}

// Ids of the fence merchant and the first merchant tests create.
const (
	fenceMerchantID = 90
	firstMerchantID = 100
)

// testGateway is a running gateway with what its tests need.
type testGateway struct {
	*gatewayRun
	issuer      *authztest.Issuer
	pool        *pgxpool.Pool
	client      *http.Client
	nc          *nats.Conn
	fenceCollab int32
	fenceAmount atomic.Int64
	merchantSeq atomic.Int32
}

// newTestGateway starts a gateway with the demo data, a fence merchant and
// collab, a pool on its schema and a NATS connection.
func newTestGateway(t *testing.T, extraEnv ...map[string]string) *testGateway {
	t.Helper()
	issuer := authztest.NewIssuer(t)
	jwks := authztest.ServeJWKS(t, issuer)
	logs := startGateway(t, jwks.URL, extraEnv...)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pgdb.Open(ctx, pgtest.URL(), logs.schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	nc, err := nats.Connect(testEnv("PAYGATE_TEST_NATS_URL", "nats://127.0.0.1:4222"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)

	g := &testGateway{
		gatewayRun: logs, issuer: issuer, pool: pool, nc: nc,
		client: &http.Client{Transport: tr, Timeout: 20 * time.Second},
	}
	g.merchantSeq.Store(firstMerchantID - 1)
	g.exec(t, `INSERT INTO merchants (id, name, hash) VALUES ($1, 'Fence Ltd', 'fence')`, fenceMerchantID)
	admin := g.user(t, access.RoleAdmin)
	g.fenceCollab = g.initialize(t, admin, fenceMerchantID, 1)
	return g
}

func (g *testGateway) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := g.pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func (g *testGateway) queryInt(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := g.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// newMerchant adds a merchant of its own to a test and returns its id.
func (g *testGateway) newMerchant(t *testing.T) int32 {
	t.Helper()
	id := g.merchantSeq.Add(1)
	g.exec(t, `INSERT INTO merchants (id, name, hash) VALUES ($1, $2, $3)`, id, "Test Merchant "+strconv.Itoa(int(id)), "test-"+strconv.Itoa(int(id)))
	return id
}

// collabID returns the id of a merchant's collab with a provider.
func (g *testGateway) collabID(t *testing.T, merchantID, providerID int32) int32 {
	t.Helper()
	return int32(g.queryInt(t, `SELECT id FROM collabs WHERE merchant_id = $1 AND provider_id = $2`, merchantID, providerID))
}

// collabPayTypeID returns the id of a pay type on a collab.
func (g *testGateway) collabPayTypeID(t *testing.T, collabID, payTypeID int32) int32 {
	t.Helper()
	return int32(g.queryInt(t, `SELECT id FROM collab_pay_types WHERE collab_id = $1 AND pay_type_id = $2`, collabID, payTypeID))
}

// snapshot returns a collab's row and its pay types' rows as text, to check
// that a refused change changed nothing.
func (g *testGateway) snapshot(t *testing.T, collabID int32) string {
	t.Helper()
	var s string
	err := g.pool.QueryRow(context.Background(), `
		SELECT row_to_json(c)::text || COALESCE((SELECT json_agg(p ORDER BY p.id)::text FROM collab_pay_types p WHERE p.collab_id = c.id), '[]')
		FROM collabs c WHERE c.id = $1`, collabID).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// caller is a signed-in user with a token, a user agent of its own, and a
// subscription to the events.
type caller struct {
	g       *testGateway
	id      int64
	name    string
	token   string
	ua      string
	sub     *nats.Subscription
	entries int64
}

// user signs in a new user with role (and its permissions) and merchants.
func (g *testGateway) user(t *testing.T, role string, merchantIDs ...int32) *caller {
	t.Helper()
	id := userSeq.Add(1)
	name := strings.ToLower(strings.ReplaceAll(role, " ", "-")) + "-" + strconv.FormatInt(id, 10)
	sub, err := g.nc.SubscribeSync(bus.SubjectPrefix + ">")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	if err := g.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return &caller{
		g: g, id: id, name: name, ua: "gateway-test/" + name, sub: sub,
		token: g.issuer.Token(t, authztest.User{ID: id, Username: name, Roles: []string{role}, Permissions: grants[role], MerchantIDs: merchantIDs}),
	}
}

// do sends a REST request; body is JSON-encoded unless it is a string.
func (c *caller) do(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.g.HTTPURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", c.ua)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.g.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, raw
}

// must sends a request, fails the test unless it answers want, and decodes
// the answer into out (when not nil).
func (c *caller) must(t *testing.T, want int, method, path string, body, out any) []byte {
	t.Helper()
	status, raw := c.do(t, method, path, body)
	if status != want {
		t.Fatalf("%s %s = %d, want %d: %s", method, path, status, want, raw)
	}
	if want >= 400 {
		var e struct{ Code, Message string }
		if err := json.Unmarshal(raw, &e); err != nil || e.Code == "" || e.Message == "" {
			t.Fatalf("%s %s: error body %s is not {code, message}", method, path, raw)
		}
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, path, raw, err)
		}
	}
	return raw
}

// refused sends a request that must fail with status and change nothing: no
// activity entry, no event, and collab (when not 0) as it was. It returns the
// error message.
func (c *caller) refused(t *testing.T, status int, collabID int32, method, path string, body any) string {
	t.Helper()
	var before string
	if collabID != 0 {
		before = c.g.snapshot(t, collabID)
	}
	var e struct{ Code, Message string }
	c.must(t, status, method, path, body, &e)
	if collabID != 0 {
		if after := c.g.snapshot(t, collabID); after != before {
			t.Errorf("%s %s changed collab %d:\nbefore %s\nafter  %s", method, path, collabID, before, after)
		}
	}
	c.expectChanges(t, 0)
	return e.Message
}

// activityRow is an activity_log row as the tests check it.
type activityRow struct {
	ID                               int64
	UserID                           int64
	Username, IP, UserAgent          string
	MerchantID, ProviderID, CollabID int32
	PayTypeCode, Channel, ActionType string
	Message, SensitiveActionName     string
	OldValue, NewValue               string
	At                               time.Time
}

// expectChanges checks that the caller's calls since the last check made
// exactly n activity entries and n ActivityRecorded events, and returns the
// entries and events, oldest first.
func (c *caller) expectChanges(t *testing.T, n int) ([]activityRow, []*eventsv1.ActivityRecorded) {
	t.Helper()
	rows := c.newEntries(t)
	if len(rows) != n {
		t.Fatalf("%d new activity entries, want %d: %+v", len(rows), n, rows)
	}
	activity, _ := c.events(t)
	if len(activity) != n {
		t.Fatalf("%d ActivityRecorded events, want %d: %v", len(activity), n, activity)
	}
	// Concurrent changes commit in another order than they start, so the
	// events (in commit order) are matched to the entries as a set.
	byID := map[int64]*eventsv1.ActivityRecorded{}
	for _, ev := range activity {
		byID[ev.GetActivityId()] = ev
	}
	sorted := make([]*eventsv1.ActivityRecorded, 0, n)
	for _, r := range rows {
		ev, ok := byID[r.ID]
		if !ok {
			t.Fatalf("no event for entry %d; events %v", r.ID, activity)
		}
		if ev.GetMessage() != r.Message || ev.GetCollabId() != r.CollabID || !ev.GetRecordedAt().AsTime().Equal(r.At) {
			t.Errorf("event %v does not match entry %+v", ev, r)
		}
		sorted = append(sorted, ev)
	}
	return rows, sorted
}

// newEntries returns the caller's activity entries made since the last call.
func (c *caller) newEntries(t *testing.T) []activityRow {
	t.Helper()
	rows, err := c.g.pool.Query(context.Background(), `
		SELECT id, COALESCE(user_id, 0), username, ip, user_agent, COALESCE(merchant_id, 0), COALESCE(provider_id, 0),
			COALESCE(collab_id, 0), pay_type_code, channel, action_type, message, sensitive_action_name,
			COALESCE(old_value::text, ''), COALESCE(new_value::text, ''), at
		FROM activity_log WHERE user_id = $1 AND collab_id IS DISTINCT FROM $2 AND id > $3 ORDER BY id`,
		c.id, c.g.fenceCollab, c.entries)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []activityRow
	for rows.Next() {
		var r activityRow
		if err := rows.Scan(&r.ID, &r.UserID, &r.Username, &r.IP, &r.UserAgent, &r.MerchantID, &r.ProviderID,
			&r.CollabID, &r.PayTypeCode, &r.Channel, &r.ActionType, &r.Message, &r.SensitiveActionName,
			&r.OldValue, &r.NewValue, &r.At); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
		c.entries = r.ID
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// events makes a fence change as the caller's user and returns the caller's
// events that arrived before the fence's: ActivityRecorded (the fence's
// excluded) and MaintenanceModeChanged.
func (c *caller) events(t *testing.T) ([]*eventsv1.ActivityRecorded, []*eventsv1.MaintenanceModeChanged) {
	t.Helper()
	g := c.g
	fence := &caller{g: g, id: c.id, ua: c.ua,
		token: g.issuer.Token(t, authztest.User{ID: c.id, Username: c.name, Roles: []string{access.RoleAdmin}, Permissions: grants[access.RoleAdmin]})}
	amount := strconv.FormatInt(g.fenceAmount.Add(1), 10) + ".00"
	fence.must(t, http.StatusOK, http.MethodPost, "/api/v1/merchant/collabs/limits",
		map[string]any{"collabId": g.fenceCollab, "maximalDepositAmount": amount}, nil)

	var activity []*eventsv1.ActivityRecorded
	var maintenance []*eventsv1.MaintenanceModeChanged
	deadline := time.Now().Add(20 * time.Second)
	for {
		msg, err := c.sub.NextMsg(time.Until(deadline))
		if err != nil {
			t.Fatalf("waiting for the fence event of user %d: %v", c.id, err)
		}
		switch msg.Subject {
		case bus.Subject(&eventsv1.ActivityRecorded{}):
			var ev eventsv1.ActivityRecorded
			if err := proto.Unmarshal(msg.Data, &ev); err != nil {
				t.Fatal(err)
			}
			if ev.GetUserId() != c.id {
				continue
			}
			if ev.GetCollabId() == g.fenceCollab {
				if strings.Contains(ev.GetNewValue(), `"`+amount+`"`) {
					return activity, maintenance
				}
				continue
			}
			activity = append(activity, &ev)
		case bus.Subject(&eventsv1.MaintenanceModeChanged{}):
			var ev eventsv1.MaintenanceModeChanged
			if err := proto.Unmarshal(msg.Data, &ev); err != nil {
				t.Fatal(err)
			}
			if ev.GetUserId() == c.id {
				maintenance = append(maintenance, &ev)
			}
		}
	}
}

// initialize creates a collab as c and returns its id.
func (g *testGateway) initialize(t *testing.T, c *caller, merchantID, providerID int32, payTypeIDs ...int32) int32 {
	t.Helper()
	if payTypeIDs == nil {
		payTypeIDs = []int32{}
	}
	var out collabJSON
	c.must(t, http.StatusOK, http.MethodPost, "/api/v1/collabs/initialize",
		map[string]any{"ProviderId": providerID, "MerchantId": merchantID, "PayTypeIds": payTypeIDs}, &out)
	return out.ID
}

// JSON shapes of docs/contracts-providers.md.
type (
	payTypeJSON struct {
		ID               int32  `json:"id"`
		Name             string `json:"name"`
		Code             string `json:"code"`
		CashIn           bool   `json:"cashIn"`
		CashOut          bool   `json:"cashOut"`
		IsCashInEnabled  bool   `json:"isCashInEnabled"`
		IsCashOutEnabled bool   `json:"isCashOutEnabled"`
	}
	providerJSON struct {
		ID              int32         `json:"id"`
		Name            string        `json:"name"`
		IsEnabled       bool          `json:"isEnabled"`
		SupportsCashIn  bool          `json:"supportsCashIn"`
		SupportsCashOut bool          `json:"supportsCashOut"`
		SupportsPolling bool          `json:"supportsPolling"`
		SupportsBalance bool          `json:"supportsBalance"`
		PathSegment     string        `json:"pathSegment"`
		PayTypes        []payTypeJSON `json:"payTypes"`
	}
	collabJSON struct {
		ID               int32 `json:"id"`
		IsEnabled        bool  `json:"isEnabled"`
		IsCashInEnabled  bool  `json:"isCashInEnabled"`
		IsCashOutEnabled bool  `json:"isCashOutEnabled"`
		Merchant         struct {
			ID   int32  `json:"id"`
			Name string `json:"name"`
		} `json:"merchant"`
		Provider struct {
			ID              int32         `json:"id"`
			Name            string        `json:"name"`
			SupportsCashIn  bool          `json:"supportsCashIn"`
			SupportsCashOut bool          `json:"supportsCashOut"`
			PayTypes        []payTypeJSON `json:"payTypes"`
		} `json:"provider"`
	}
	settingsJSON struct {
		CollabID        int32             `json:"collabId"`
		Settings        map[string]string `json:"settings"`
		PayTypeSettings []struct {
			PayTypeID        int32  `json:"payTypeId"`
			Name             string `json:"name"`
			Code             string `json:"code"`
			CashIn           bool   `json:"cashIn"`
			CashOut          bool   `json:"cashOut"`
			IsCashInEnabled  bool   `json:"IsCashInEnabled"`
			IsCashOutEnabled bool   `json:"IsCashOutEnabled"`
		} `json:"payTypeSettings"`
	}
	amountsJSON struct {
		MinimalDepositAmount  string `json:"minimalDepositAmount"`
		MaximalDepositAmount  string `json:"maximalDepositAmount"`
		MinimalWithdrawAmount string `json:"minimalWithdrawAmount"`
		MaximalWithdrawAmount string `json:"maximalWithdrawAmount"`
	}
	limitsJSON struct {
		CollabID            int32 `json:"collabId"`
		SupportsDeposits    bool  `json:"supportsDeposits"`
		SupportsWithdrawals bool  `json:"supportsWithdrawals"`
		amountsJSON
		CollabPayTypeLimits []struct {
			CollabPayTypeID     int32  `json:"collabPayTypeId"`
			PayTypeID           int32  `json:"payTypeId"`
			PaytypeName         string `json:"paytypeName"`
			PaytypeCode         string `json:"paytypeCode"`
			SupportsDeposits    bool   `json:"supportsDeposits"`
			SupportsWithdrawals bool   `json:"supportsWithdrawals"`
			amountsJSON
		} `json:"collabPayTypeLimits"`
	}
)

func (c collabJSON) payTypeCodes() []string {
	var out []string
	for _, pt := range c.Provider.PayTypes {
		out = append(out, pt.Code)
	}
	return out
}

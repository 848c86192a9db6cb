package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/internal/access"
)

// activityAnswer is the Loki-like answer of the activity calls.
type activityAnswer struct {
	Status string `json:"status"`
	Data   struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Stream map[string]string `json:"stream"`
			Values [][]string        `json:"values"`
		} `json:"result"`
		Stats map[string]int `json:"stats"`
	} `json:"data"`
}

// messages decodes each entry's JSON message, checking that each stream
// carries one [nanoseconds, message] value that agrees with its timestamp.
func (a activityAnswer) messages(t *testing.T) []map[string]any {
	t.Helper()
	if a.Status != "success" || a.Data.ResultType != "streams" {
		t.Fatalf("answer = %+v", a)
	}
	var out []map[string]any
	for _, r := range a.Data.Result {
		if len(r.Values) != 1 || len(r.Values[0]) != 2 {
			t.Fatalf("values = %v", r.Values)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(r.Values[0][1]), &m); err != nil {
			t.Fatalf("message %q: %v", r.Values[0][1], err)
		}
		ts, err := time.Parse(time.RFC3339Nano, m["timestamp"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if ns := strconv.FormatInt(ts.UnixNano(), 10); ns != r.Values[0][0] {
			t.Errorf("timestamp %s is %s ns, the value says %s", ts, ns, r.Values[0][0])
		}
		out = append(out, m)
	}
	return out
}

func (a activityAnswer) messageTexts(t *testing.T) []string {
	t.Helper()
	out := []string{}
	for _, m := range a.messages(t) {
		out = append(out, m["Message"].(string))
	}
	return out
}

func TestActivityLog(t *testing.T) {
	g := newTestGateway(t)
	// Fixtures, all before base; the gateway's own entries (the fence
	// collab's creation) come after it and are cut off by to=base.
	base := time.Now().UTC().Truncate(time.Second).Add(-time.Minute)
	type fixture struct {
		name       string
		at         time.Duration
		merchantID int32
		collabID   int32
		username   string
		action     string
		message    string
	}
	fixtures := []fixture{
		{"e1", -time.Hour, acme, 11, "alice", "Limits", "e1 Limits of Acme Games × GoVip changed"},
		{"e2", -2 * time.Hour, acme, 12, "background-job", "Settings", "e2 Sensitive action performed: mode changed"},
		{"e3", -3 * time.Hour, blueHarbor, 21, "bob", "Status", "e3 Blue Harbor Shop × FbPay enabled"},
		{"e4", -30 * time.Minute, 0, 0, "admin", "Configuration", "ATTENTION: e4 maintenance mode enabled"},
		{"e5", -8 * 24 * time.Hour, acme, 11, "alice", "Limits", "e5 old"},
		{"e6", -time.Hour, acme, 11, "carol", "Limits", "e6 same time as e1, written after it"},
	}
	for _, f := range fixtures {
		g.exec(t, `
			INSERT INTO activity_log (at, user_id, username, ip, user_agent, merchant_id, merchant_name, provider_id,
				provider_name, collab_id, action_type, message, old_value, new_value, count)
			VALUES ($1, 7, $2, '10.0.0.7', 'fixture', NULLIF($3::integer, 0), 'M', 1, 'GoVip', NULLIF($4::integer, 0), $5, $6,
				'{"a": "1"}', '{"a": "2"}', 1)`,
			base.Add(f.at), f.username, f.merchantID, f.collabID, f.action, f.message)
	}

	admin := g.user(t, access.RoleAdmin)
	support := g.user(t, access.RoleSupport)
	merchant := g.user(t, access.RoleMerchant, acme)
	merchantAdmin := g.user(t, access.RoleMerchantAdmin, acme, blueHarbor)
	blueUser := g.user(t, access.RoleMerchant, blueHarbor)
	finance := g.user(t, access.RoleMerchantFinanceManager, acme)
	merchantSupport := g.user(t, access.RoleMerchantSupport, blueHarbor)
	to := "to=" + url.QueryEscape(base.Format(time.RFC3339))
	at := func(d time.Duration) string { return url.QueryEscape(base.Add(d).Format(time.RFC3339)) }

	t.Run("shape, order and stats", func(t *testing.T) {
		t.Parallel()
		var a activityAnswer
		merchant.must(t, http.StatusOK, http.MethodGet, "/api/v1/logs/merchants/1/collabs/activity", nil, &a)
		if got, want := a.messageTexts(t), []string{fixtures[5].message, fixtures[0].message, fixtures[1].message}; !reflect.DeepEqual(got, want) {
			t.Fatalf("messages = %q\nwant %q", got, want)
		}
		if want := map[string]string{"merchantId": "1", "providerId": "1", "collabId": "11", "action": "Limits"}; !reflect.DeepEqual(a.Data.Result[0].Stream, want) {
			t.Errorf("labels = %v", a.Data.Result[0].Stream)
		}
		if want := map[string]int{"total": 3, "user": 2, "system": 1, "critical": 0, "sensitive": 1}; !reflect.DeepEqual(a.Data.Stats, want) {
			t.Errorf("stats = %v", a.Data.Stats)
		}
		m := a.messages(t)[1]
		want := map[string]any{
			"timestamp": base.Add(-time.Hour).Format(time.RFC3339Nano), "Message": fixtures[0].message, "SensitiveActionName": "",
			"ActionType": "Limits", "UserId": "7", "Username": "alice", "IP": "10.0.0.7", "CollabId": 11.0, "ProviderId": 1.0,
			"MerchantId": 1.0, "MerchantName": "M", "ProviderName": "GoVip", "UserAgent": "fixture", "OldValue": `{"a": "1"}`,
			"NewValue": `{"a": "2"}`, "Reason": "", "Count": 1.0, "ChannelName": "", "PayTypeId": nil, "PayTypeName": "", "PayTypeCode": "",
		}
		if !reflect.DeepEqual(m, want) {
			t.Errorf("message = %v\nwant %v", m, want)
		}
	})

	t.Run("scope", func(t *testing.T) {
		t.Parallel()
		all := []string{fixtures[3].message, fixtures[5].message, fixtures[0].message, fixtures[1].message, fixtures[2].message}
		tests := []struct {
			name   string
			c      *caller
			path   string
			status int
			want   []string
		}{
			{"admin sees everything", admin, "/api/v1/logs/collabs/activity?" + to, 200, all},
			{"support sees everything", support, "/api/v1/logs/collabs/activity?" + to, 200, all},
			{"a merchant user sees its merchant's entries", merchant, "/api/v1/logs/collabs/activity?" + to, 200,
				[]string{fixtures[5].message, fixtures[0].message, fixtures[1].message}},
			{"two merchants, merged newest first", merchantAdmin, "/api/v1/logs/collabs/activity?" + to, 200,
				[]string{fixtures[5].message, fixtures[0].message, fixtures[1].message, fixtures[2].message}},
			{"one collab", admin, "/api/v1/logs/collabs/activity?collabId=12&" + to, 200, []string{fixtures[1].message}},
			{"another merchant's collab shows nothing", blueUser, "/api/v1/logs/collabs/activity?collabId=12", 200, []string{}},
			{"one merchant", merchantAdmin, "/api/v1/logs/merchants/2/collabs/activity", 200, []string{fixtures[2].message}},
			{"one merchant's collab", merchant, "/api/v1/logs/merchants/1/collabs/activity?CollabId=12", 200, []string{fixtures[1].message}},
			{"another merchant is not found", merchant, "/api/v1/logs/merchants/2/collabs/activity", 404, nil},
			{"an unknown merchant is not found", admin, "/api/v1/logs/merchants/999/collabs/activity", 404, nil},
			{"no View Recent Actions", finance, "/api/v1/logs/collabs/activity", 403, nil},
			{"no View Recent Actions, one merchant", merchantSupport, "/api/v1/logs/merchants/2/collabs/activity", 403, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var a activityAnswer
				tt.c.must(t, tt.status, http.MethodGet, tt.path, nil, &a)
				if tt.status == 200 {
					if got := a.messageTexts(t); !reflect.DeepEqual(got, tt.want) {
						t.Errorf("messages = %q\nwant %q", got, tt.want)
					}
				}
			})
		}
	})

	t.Run("time range and limit", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name   string
			query  string
			status int
			want   []string
		}{
			{"default: the last seven days", "", 200, []string{fixtures[5].message, fixtures[0].message, fixtures[1].message}},
			{"older entries with an earlier start", "from=" + at(-9*24*time.Hour), 200,
				[]string{fixtures[5].message, fixtures[0].message, fixtures[1].message, fixtures[4].message}},
			{"both ends inclusive", "from=" + at(-2*time.Hour) + "&to=" + at(-time.Hour), 200,
				[]string{fixtures[5].message, fixtures[0].message, fixtures[1].message}},
			{"a narrow range", "from=" + at(-90*time.Minute) + "&to=" + at(-time.Minute), 200, []string{fixtures[5].message, fixtures[0].message}},
			{"limit", "limit=2&from=" + at(-9*24*time.Hour), 200, []string{fixtures[5].message, fixtures[0].message}},
			{"start after end", "from=" + at(-time.Minute) + "&to=" + at(-time.Hour), 400, nil},
			{"not a time", "from=yesterday", 400, nil},
			{"limit too large", "limit=5001", 400, nil},
			{"negative limit", "limit=-1", 400, nil},
			{"limit not a number", "limit=many", 400, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var a activityAnswer
				merchant.must(t, tt.status, http.MethodGet, "/api/v1/logs/merchants/1/collabs/activity?"+tt.query, nil, &a)
				if tt.status == 200 {
					if got := a.messageTexts(t); !reflect.DeepEqual(got, tt.want) {
						t.Errorf("messages = %q\nwant %q", got, tt.want)
					}
				}
			})
		}
	})

	// Callers of the previous release still call CollabService's copies of
	// the activity RPCs over gRPC; they answer as ActivityService does, with
	// its rules.
	t.Run("CollabService's deprecated copies over gRPC", func(t *testing.T) {
		t.Parallel()
		cc, err := grpc.NewClient(g.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		as := func(c *caller) context.Context {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			t.Cleanup(cancel)
			return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+c.token)
		}
		collabs, activities := gatewayv1.NewCollabServiceClient(cc), gatewayv1.NewActivityServiceClient(cc)
		until := base.Format(time.RFC3339)

		old, err := collabs.ListMerchantCollabActivity(as(merchant), &gatewayv1.ListMerchantCollabActivityRequest{MerchantId: acme, To: until})
		if err != nil {
			t.Fatal(err)
		}
		current, err := activities.ListMerchantCollabActivity(as(merchant), &gatewayv1.ActivityServiceListMerchantCollabActivityRequest{MerchantId: acme, To: until})
		if err != nil {
			t.Fatal(err)
		}
		if old.GetStatus() != "success" || len(old.GetData().GetResult()) != 3 || !proto.Equal(old.GetData(), current.GetData()) {
			t.Errorf("CollabService.ListMerchantCollabActivity = %v\nActivityService's = %v", old, current)
		}
		all, err := collabs.ListCollabActivity(as(admin), &gatewayv1.ListCollabActivityRequest{To: until, CollabId: proto.Int32(12)})
		if err != nil || len(all.GetData().GetResult()) != 1 || all.GetData().GetStats().GetSensitive() != 1 {
			t.Errorf("CollabService.ListCollabActivity of collab 12 = %v, %v", all, err)
		}
		if _, err := collabs.ListMerchantCollabActivity(as(merchant), &gatewayv1.ListMerchantCollabActivityRequest{MerchantId: blueHarbor}); status.Code(err) != codes.NotFound {
			t.Errorf("another merchant: %v, want NotFound", err)
		}
		if _, err := collabs.ListCollabActivity(as(finance), &gatewayv1.ListCollabActivityRequest{}); status.Code(err) != codes.PermissionDenied {
			t.Errorf("without View Recent Actions: %v, want PermissionDenied", err)
		}
	})

	t.Run("a change made through the gateway", func(t *testing.T) {
		t.Parallel()
		m := g.newMerchant(t)
		setup := g.user(t, access.RoleAdmin)
		id := g.initialize(t, setup, m, goVip, gcash)
		editor := g.user(t, access.RoleMerchantAdmin, m)
		editor.must(t, http.StatusOK, http.MethodPost, "/api/v1/merchant/collabs/limits",
			map[string]any{"collabId": id, "maximalWithdrawAmount": "750.00"}, nil)
		var a activityAnswer
		editor.must(t, http.StatusOK, http.MethodGet, fmt.Sprintf("/api/v1/logs/merchants/%d/collabs/activity?collabId=%d", m, id), nil, &a)
		ms := a.messages(t)
		if len(ms) != 2 {
			t.Fatalf("entries = %v", ms)
		}
		got := ms[0]
		for k, want := range map[string]any{
			"ActionType": "Limits", "UserId": strconv.FormatInt(editor.id, 10), "Username": editor.name, "IP": "127.0.0.1",
			"UserAgent": editor.ua, "CollabId": float64(id), "MerchantId": float64(m), "ProviderId": float64(goVip),
			"MerchantName": fmt.Sprintf("Test Merchant %d", m), "ProviderName": "GoVip", "ChannelName": "Cash Out",
			"OldValue": `{"maximalWithdrawAmount": ""}`, "NewValue": `{"maximalWithdrawAmount": "750.00"}`, "Count": 1.0,
		} {
			if got[k] != want {
				t.Errorf("%s = %#v, want %#v", k, got[k], want)
			}
		}
		if ms[1]["ActionType"] != "Configuration" || ms[1]["Username"] != setup.name {
			t.Errorf("the creation entry = %v", ms[1])
		}
	})
}

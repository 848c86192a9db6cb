package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	gwnats "github.com/paygate/paygate/services/gateway/internal/nats"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/authz/authztest"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
	"github.com/paygate/paygate/services/internal/servicetest"
)

func TestMain(m *testing.M) {
	// No auth service fills the test Redis: mark it filled, as its refill
	// does, or every revocation check would wait for one.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	err := authztest.MarkRevocationsFilled(ctx, testEnv("PAYGATE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15"))
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m)
}

func testEnv(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

// gatewayRun is a gateway run (the way main does) for one test, and the
// schema it serves.
type gatewayRun struct {
	*servicetest.Service
	schema string
}

// startGateway runs the gateway the way main does, on free ports, against the
// test Postgres (in a schema of its own, dropped at the end), Redis and NATS,
// verifying tokens with jwksURL.
func startGateway(t *testing.T, jwksURL string, extraEnv ...map[string]string) *gatewayRun {
	t.Helper()
	schema := "gateway_test_" + randomHex(t, 6)
	t.Cleanup(func() { dropSchema(t, schema) })
	return startGatewayIn(t, schema, jwksURL, extraEnv...)
}

// startGatewayIn runs a gateway on an existing schema (a second gateway on
// the first one's data); its Stop ends it early.
func startGatewayIn(t *testing.T, schema, jwksURL string, extraEnv ...map[string]string) *gatewayRun {
	t.Helper()
	env := map[string]string{
		"PAYGATE_DATABASE_URL":    pgtest.URL(),
		"PAYGATE_DATABASE_SCHEMA": schema,
		"PAYGATE_REDIS_URL":       testEnv("PAYGATE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15"),
		"PAYGATE_NATS_URL":        testEnv("PAYGATE_TEST_NATS_URL", "nats://127.0.0.1:4222"),
		"PAYGATE_HTTP_ADDR":       "127.0.0.1:0",
		"PAYGATE_GRPC_ADDR":       "127.0.0.1:0",
		"PAYGATE_JWKS_URL":        jwksURL,
		"PAYGATE_DEMO":            "true",
		// Tests of other packages publish callback events on the shared
		// NATS; only the tests of those consumers turn them on.
		"PAYGATE_CONSUME_CALLBACK_EVENTS": "false",
	}
	for _, extra := range extraEnv {
		maps.Copy(env, extra)
	}
	if env["PAYGATE_FILES_DIR"] == "" {
		env["PAYGATE_FILES_DIR"] = filesDir(t, schema)
	}
	t.Cleanup(func() {
		servicetest.DeleteConsumers(testEnv("PAYGATE_TEST_NATS_URL", "nats://127.0.0.1:4222"), gwnats.ExportConsumer(schema))
	})
	return &gatewayRun{Service: servicetest.Run(t, run, env), schema: schema}
}

// filesDir is the export files directory of a schema's gateways (shared by
// the gateways of one schema), removed when the test ends.
func filesDir(t *testing.T, schema string) string {
	dir := filepath.Join(os.TempDir(), "paygate-files-"+schema)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// dropSchema drops a test schema once the gateway using it has stopped.
func dropSchema(t *testing.T, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgtest.URL())
	if err != nil {
		t.Errorf("connect to drop schema %s: %v", schema, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		t.Errorf("drop schema %s: %v", schema, err)
	}
}

type merchantJSON struct {
	ID   int32  `json:"id"`
	Name string `json:"name"`
	Hash string `json:"hash"`
}

func TestListMerchants(t *testing.T) {
	issuer := authztest.NewIssuer(t)
	jwks := authztest.ServeJWKS(t, issuer)
	gw := startGateway(t, jwks.URL)

	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}

	opts, err := redis.ParseURL(testEnv("PAYGATE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15"))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	revokedUser := authztest.User{ID: 9, Roles: []string{access.RoleAdmin}}
	revokedClaims := authztest.Claims(revokedUser)
	revokedToken := issuer.Sign(t, revokedClaims)
	if err := authz.NewRedisRevocations(rdb).Revoke(context.Background(), revokedClaims.SessionID, time.Minute); err != nil {
		t.Fatal(err)
	}

	demo := merchant.Demo()
	tests := []struct {
		name   string
		token  string
		status int
		want   []int32
	}{
		{"admin sees all", issuer.Token(t, authztest.User{ID: 1, Roles: []string{access.RoleAdmin}}), 200, []int32{1, 2, 3}},
		{"support sees all", issuer.Token(t, authztest.User{ID: 2, Roles: []string{access.RoleSupport}, MerchantIDs: []int32{1}}), 200, []int32{1, 2, 3}},
		{"merchant sees its own", issuer.Token(t, authztest.User{ID: 3, Roles: []string{access.RoleMerchant}, MerchantIDs: []int32{1}}), 200, []int32{1}},
		{"merchant admin sees its two", issuer.Token(t, authztest.User{ID: 4, Roles: []string{access.RoleMerchantAdmin}, MerchantIDs: []int32{2, 1}}), 200, []int32{1, 2}},
		{"merchant of no merchant sees none", issuer.Token(t, authztest.User{ID: 5, Roles: []string{access.RoleMerchantSupport}}), 200, []int32{}},
		// Every signed-in user reads its own merchants (the rule was "every
		// role"; a role of no permission is a role too).
		{"a user without permissions sees its own", issuer.Token(t, authztest.User{ID: 6, Roles: []string{"Nothing"}, MerchantIDs: []int32{2}}), 200, []int32{2}},
		{"a custom admin-wide role sees every merchant", issuer.Token(t, authztest.User{ID: 7, Roles: []string{"Auditors"}, Global: true}), 200, []int32{1, 2, 3}},
		{"no token", "", 401, nil},
		{"a token from another signer", authztest.NewIssuer(t).Token(t, authztest.User{ID: 1, Roles: []string{access.RoleAdmin}}), 401, nil},
		{"a revoked session", revokedToken, 401, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest(http.MethodGet, gw.HTTPURL+"/api/v1/merchants", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if tt.status != 200 {
				var e struct{ Code string }
				if err := json.Unmarshal(body, &e); err != nil || e.Code == "" {
					t.Errorf("error body %s", body)
				}
				return
			}
			if !strings.HasPrefix(strings.TrimSpace(string(body)), "[") {
				t.Fatalf("body is not a bare array: %s", body)
			}
			var got []merchantJSON
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d merchants, want %v: %s", len(got), tt.want, body)
			}
			for i, id := range tt.want {
				d := demo[id-1]
				if got[i] != (merchantJSON{ID: d.ID, Name: d.Name, Hash: d.Hash}) {
					t.Errorf("merchant %d = %+v, want %+v", i, got[i], d)
				}
			}
		})
	}

	t.Run("gRPC", func(t *testing.T) {
		t.Parallel()
		cc, err := grpc.NewClient(gw.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		client := gatewayv1.NewMerchantServiceClient(cc)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := client.ListMerchants(ctx, &gatewayv1.ListMerchantsRequest{}); status.Code(err) != codes.Unauthenticated {
			t.Errorf("without a token: %v", err)
		}
		token := issuer.Token(t, authztest.User{ID: 3, Roles: []string{access.RoleMerchant}, MerchantIDs: []int32{3}})
		resp, err := client.ListMerchants(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token), &gatewayv1.ListMerchantsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if ms := resp.GetMerchants(); len(ms) != 1 || ms[0].GetName() != "Cobalt Travel" {
			t.Errorf("merchants = %v", ms)
		}
	})

	t.Run("readyz", func(t *testing.T) {
		t.Parallel()
		resp, err := client.Get(gw.HTTPURL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Errorf("/readyz = %d %s", resp.StatusCode, body)
		}
	})
}

func TestRunRejectsBadConfig(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PAYGATE_DEMO": "maybe", "PAYGATE_TRUSTED_PROXY_HOPS": "x"}
	err := run(context.Background(), func(k string) string { return env[k] }, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "PAYGATE_DEMO") || !strings.Contains(err.Error(), "PAYGATE_TRUSTED_PROXY_HOPS") {
		t.Fatalf("run = %v, want an error naming both bad keys", err)
	}
}

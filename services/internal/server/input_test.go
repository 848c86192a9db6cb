package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	aggregatorv1 "github.com/paygate/paygate/gen/go/paygate/aggregator/v1"
	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/internal/server"
)

// libraryWords are fragments of Go, protobuf and grpc-gateway error texts that
// must never reach a caller.
var libraryWords = regexp.MustCompile(`proto:|strconv|json:|Go value|syntax error|unexpected token|type mismatch|invalid value for|unmarshal|rpc error|parsing "|\(line \d`)

// startAllREST serves the REST mapping of every service's contract, backed by
// the unimplemented servers: whatever reaches a handler answers "not
// supported", so any 400 comes from the edge (codec, query parser, path
// parameters, text check).
func startAllREST(t *testing.T) string {
	t.Helper()
	srv := server.New(server.Options{Name: "edge", GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", Logger: quietLogger()})
	srv.Register(&authv1.AuthService_ServiceDesc, authv1.UnimplementedAuthServiceServer{})
	srv.Register(&authv1.UserService_ServiceDesc, authv1.UnimplementedUserServiceServer{})
	srv.Register(&authv1.SessionService_ServiceDesc, authv1.UnimplementedSessionServiceServer{})
	srv.Register(&authv1.AllowedIpService_ServiceDesc, authv1.UnimplementedAllowedIpServiceServer{})
	srv.Register(&authv1.RoleService_ServiceDesc, authv1.UnimplementedRoleServiceServer{})
	srv.Register(&authv1.WebAuthnService_ServiceDesc, authv1.UnimplementedWebAuthnServiceServer{})
	srv.Register(&authv1.SecondFactorService_ServiceDesc, authv1.UnimplementedSecondFactorServiceServer{})
	srv.Register(&authv1.AuthSettingsService_ServiceDesc, authv1.UnimplementedAuthSettingsServiceServer{})
	srv.Register(&authv1.ConfirmationService_ServiceDesc, authv1.UnimplementedConfirmationServiceServer{})
	srv.Register(&authv1.ApprovalService_ServiceDesc, authv1.UnimplementedApprovalServiceServer{})
	srv.Register(&gatewayv1.MerchantService_ServiceDesc, gatewayv1.UnimplementedMerchantServiceServer{})
	srv.Register(&gatewayv1.CollabService_ServiceDesc, gatewayv1.UnimplementedCollabServiceServer{})
	srv.Register(&gatewayv1.MaintenanceService_ServiceDesc, gatewayv1.UnimplementedMaintenanceServiceServer{})
	srv.Register(&gatewayv1.ActivityService_ServiceDesc, gatewayv1.UnimplementedActivityServiceServer{})
	srv.Register(&gatewayv1.TransactionService_ServiceDesc, gatewayv1.UnimplementedTransactionServiceServer{})
	srv.Register(&gatewayv1.ValidationService_ServiceDesc, gatewayv1.UnimplementedValidationServiceServer{})
	srv.Register(&gatewayv1.CurrencyService_ServiceDesc, gatewayv1.UnimplementedCurrencyServiceServer{})
	srv.Register(&gatewayv1.FileService_ServiceDesc, gatewayv1.UnimplementedFileServiceServer{})
	srv.Register(&gatewayv1.SettingService_ServiceDesc, gatewayv1.UnimplementedSettingServiceServer{})
	srv.Register(&gatewayv1.FeeService_ServiceDesc, gatewayv1.UnimplementedFeeServiceServer{})
	srv.Register(&gatewayv1.PayTypeService_ServiceDesc, gatewayv1.UnimplementedPayTypeServiceServer{})
	srv.Register(&gatewayv1.FraudService_ServiceDesc, gatewayv1.UnimplementedFraudServiceServer{})
	srv.Register(&gatewayv1.CredentialService_ServiceDesc, gatewayv1.UnimplementedCredentialServiceServer{})
	srv.Register(&gatewayv1.BalanceService_ServiceDesc, gatewayv1.UnimplementedBalanceServiceServer{})
	srv.Register(&gatewayv1.RadarService_ServiceDesc, gatewayv1.UnimplementedRadarServiceServer{})
	srv.Register(&gatewayv1.WatchlistService_ServiceDesc, gatewayv1.UnimplementedWatchlistServiceServer{})
	srv.Register(&gatewayv1.BulkService_ServiceDesc, gatewayv1.UnimplementedBulkServiceServer{})
	srv.Register(&gatewayv1.ViewService_ServiceDesc, gatewayv1.UnimplementedViewServiceServer{})
	srv.Register(&callbacksv1.CallbacksService_ServiceDesc, callbacksv1.UnimplementedCallbacksServiceServer{})
	srv.Register(&callbacksv1.CallbackRetryService_ServiceDesc, callbacksv1.UnimplementedCallbackRetryServiceServer{})
	srv.Register(&callbacksv1.CallbackEndpointService_ServiceDesc, callbacksv1.UnimplementedCallbackEndpointServiceServer{})
	srv.Register(&aggregatorv1.StatisticsService_ServiceDesc, aggregatorv1.UnimplementedStatisticsServiceServer{})
	srv.Register(&aggregatorv1.JobService_ServiceDesc, aggregatorv1.UnimplementedJobServiceServer{})
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		if err := authv1.RegisterAuthServiceHandlerClient(ctx, mux, authv1.NewAuthServiceClient(cc)); err != nil {
			return err
		}
		for _, register := range []func() error{
			func() error {
				return authv1.RegisterUserServiceHandlerClient(ctx, mux, authv1.NewUserServiceClient(cc))
			},
			func() error {
				return authv1.RegisterSessionServiceHandlerClient(ctx, mux, authv1.NewSessionServiceClient(cc))
			},
			func() error {
				return authv1.RegisterAllowedIpServiceHandlerClient(ctx, mux, authv1.NewAllowedIpServiceClient(cc))
			},
			func() error {
				return authv1.RegisterRoleServiceHandlerClient(ctx, mux, authv1.NewRoleServiceClient(cc))
			},
			func() error {
				return authv1.RegisterWebAuthnServiceHandlerClient(ctx, mux, authv1.NewWebAuthnServiceClient(cc))
			},
			func() error {
				return authv1.RegisterSecondFactorServiceHandlerClient(ctx, mux, authv1.NewSecondFactorServiceClient(cc))
			},
			func() error {
				return authv1.RegisterAuthSettingsServiceHandlerClient(ctx, mux, authv1.NewAuthSettingsServiceClient(cc))
			},
			func() error {
				return authv1.RegisterConfirmationServiceHandlerClient(ctx, mux, authv1.NewConfirmationServiceClient(cc))
			},
			func() error {
				return authv1.RegisterApprovalServiceHandlerClient(ctx, mux, authv1.NewApprovalServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterMerchantServiceHandlerClient(ctx, mux, gatewayv1.NewMerchantServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterCollabServiceHandlerClient(ctx, mux, gatewayv1.NewCollabServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterMaintenanceServiceHandlerClient(ctx, mux, gatewayv1.NewMaintenanceServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterActivityServiceHandlerClient(ctx, mux, gatewayv1.NewActivityServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterTransactionServiceHandlerClient(ctx, mux, gatewayv1.NewTransactionServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterValidationServiceHandlerClient(ctx, mux, gatewayv1.NewValidationServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterCurrencyServiceHandlerClient(ctx, mux, gatewayv1.NewCurrencyServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterFileServiceHandlerClient(ctx, mux, gatewayv1.NewFileServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterSettingServiceHandlerClient(ctx, mux, gatewayv1.NewSettingServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterFeeServiceHandlerClient(ctx, mux, gatewayv1.NewFeeServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterPayTypeServiceHandlerClient(ctx, mux, gatewayv1.NewPayTypeServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterFraudServiceHandlerClient(ctx, mux, gatewayv1.NewFraudServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterCredentialServiceHandlerClient(ctx, mux, gatewayv1.NewCredentialServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterBalanceServiceHandlerClient(ctx, mux, gatewayv1.NewBalanceServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterRadarServiceHandlerClient(ctx, mux, gatewayv1.NewRadarServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterWatchlistServiceHandlerClient(ctx, mux, gatewayv1.NewWatchlistServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterBulkServiceHandlerClient(ctx, mux, gatewayv1.NewBulkServiceClient(cc))
			},
			func() error {
				return gatewayv1.RegisterViewServiceHandlerClient(ctx, mux, gatewayv1.NewViewServiceClient(cc))
			},
			func() error {
				return callbacksv1.RegisterCallbackRetryServiceHandlerClient(ctx, mux, callbacksv1.NewCallbackRetryServiceClient(cc))
			},
			func() error {
				return callbacksv1.RegisterCallbackEndpointServiceHandlerClient(ctx, mux, callbacksv1.NewCallbackEndpointServiceClient(cc))
			},
			func() error {
				return aggregatorv1.RegisterStatisticsServiceHandlerClient(ctx, mux, aggregatorv1.NewStatisticsServiceClient(cc))
			},
			func() error {
				return aggregatorv1.RegisterJobServiceHandlerClient(ctx, mux, aggregatorv1.NewJobServiceClient(cc))
			},
		} {
			if err := register(); err != nil {
				return err
			}
		}
		return callbacksv1.RegisterCallbacksServiceHandlerClient(ctx, mux, callbacksv1.NewCallbacksServiceClient(cc))
	})
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	_, httpAddr := srv.Addrs()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return "http://" + httpAddr
}

// openAPI is the part of the merged OpenAPI (Swagger 2.0) document the walk
// reads.
type openAPI struct {
	Paths       map[string]map[string]operation `json:"paths"`
	Definitions map[string]schema               `json:"definitions"`
}

type operation struct {
	Parameters []parameter `json:"parameters"`
}

type parameter struct {
	Name   string  `json:"name"`
	In     string  `json:"in"`
	Type   string  `json:"type"`
	Format string  `json:"format"`
	Items  *schema `json:"items"`
	Schema *schema `json:"schema"`
}

type schema struct {
	Ref        string            `json:"$ref"`
	Type       string            `json:"type"`
	Format     string            `json:"format"`
	Properties map[string]schema `json:"properties"`
	Items      *schema           `json:"items"`
}

func loadOpenAPI(t *testing.T) openAPI {
	t.Helper()
	data, err := os.ReadFile("../../../gen/openapi/paygate.swagger.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc openAPI
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Paths) < 30 {
		t.Fatalf("the OpenAPI document lists %d paths; expected every service's", len(doc.Paths))
	}
	return doc
}

func (d openAPI) resolve(s schema) schema {
	for s.Ref != "" {
		s = d.Definitions[strings.TrimPrefix(s.Ref, "#/definitions/")]
	}
	return s
}

// wrongValue returns a JSON value of the wrong type for a field of schema s,
// or nil where every JSON value is acceptable.
func wrongValue(s schema) any {
	switch s.Type {
	case "integer", "number":
		return "three"
	case "boolean":
		return "yes"
	case "array":
		return 5
	case "object":
		if len(s.Properties) == 0 {
			return nil // a free-form object (google.protobuf.Struct) takes anything but is checked as an object
		}
		return "x"
	case "string":
		switch s.Format {
		case "int64", "uint64":
			return "abc"
		case "date-time", "byte":
			return nil
		}
		return map[string]any{"a": 1}
	}
	return nil
}

func fillPath(path string, params []parameter, wrong string) (string, []string) {
	var named []string
	for _, p := range params {
		if p.In != "path" {
			continue
		}
		v := "7"
		if wrong != "" && (p.Format == "int64" || p.Format == "int32" || p.Format == "uint64" || p.Type == "integer") {
			v = wrong
			named = append(named, p.Name)
		}
		path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(v))
	}
	return path, named
}

func send(t *testing.T, method, u, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(strings.ToUpper(method), u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	var eb server.ErrorBody
	if err := json.NewDecoder(resp.Body).Decode(&eb); err != nil && resp.StatusCode >= 400 {
		t.Fatalf("%s %s: error body is not JSON: %v", method, u, err)
	}
	return resp.StatusCode, eb.Message
}

// TestEveryRouteRefusesBadInputInSentences walks every REST route of every
// service with broken JSON, wrongly typed body fields, wrongly typed query
// values and non-numeric path ids: each answers 400 with a sentence naming
// the field by its JSON name, and no answer carries a library's words.
func TestEveryRouteRefusesBadInputInSentences(t *testing.T) {
	t.Parallel()
	base := startAllREST(t)
	doc := loadOpenAPI(t)
	paths := make([]string, 0, len(doc.Paths))
	for p := range doc.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	cases := 0
	check := func(what, method, u, body string, wantField string) {
		t.Helper()
		cases++
		code, msg := send(t, method, u, body)
		if code != http.StatusBadRequest {
			t.Errorf("%s: %s %s %s: status %d (%q), want 400", what, method, u, body, code, msg)
			return
		}
		if libraryWords.MatchString(msg) {
			t.Errorf("%s: %s %s: message carries library text: %q", what, method, u, msg)
		}
		if wantField != "" && !strings.Contains(msg, wantField) {
			t.Errorf("%s: %s %s %s: message %q does not name %s", what, method, u, body, msg, wantField)
		}
		if !strings.HasSuffix(msg, ".") {
			t.Errorf("%s: %s %s: message %q is not a sentence", what, method, u, msg)
		}
	}
	for _, p := range paths {
		for method, op := range doc.Paths[p] {
			good, _ := fillPath(p, op.Parameters, "")
			if bad, named := fillPath(p, op.Parameters, "abc"); len(named) > 0 {
				body := ""
				if b := bodyOf(doc, op); b != nil {
					body = "{}"
					if b.Type == "array" {
						body = "[]"
					}
				}
				check("path id", method, base+bad, body, jsonName(named[0]))
			}
			for _, prm := range op.Parameters {
				switch prm.In {
				case "body":
					check("broken JSON", method, base+good, `{"a": [1, 2`, "JSON")
					s := doc.resolve(*prm.Schema)
					if s.Type == "" && len(s.Properties) == 0 {
						continue // a free-form JSON value (google.protobuf.Value, a setting) takes any JSON
					}
					if s.Type == "array" {
						check("not a list", method, base+good, `{"a":1}`, "list")
						if w := wrongValue(doc.resolve(*s.Items)); w != nil {
							b, _ := json.Marshal([]any{w})
							check("list item", method, base+good, string(b), "list")
						}
						continue
					}
					check("not an object", method, base+good, `[1]`, "object")
					for name, prop := range s.Properties {
						w := wrongValue(doc.resolve(prop))
						if w == nil {
							continue
						}
						b, _ := json.Marshal(map[string]any{name: w})
						check("body field", method, base+good, string(b), name)
					}
				case "query":
					var w string
					switch {
					case prm.Type == "integer" || prm.Format == "int64" || prm.Format == "uint64":
						w = "abc"
					case prm.Type == "boolean":
						w = "maybe"
					case prm.Type == "array" && prm.Items != nil && (prm.Items.Type == "integer" || prm.Items.Format == "int64"):
						w = "abc"
					}
					if w != "" {
						check("query value", method, base+good+"?"+url.Values{prm.Name: {w}}.Encode(), "", jsonName(prm.Name))
					}
				}
			}
		}
	}
	if cases < 100 {
		t.Fatalf("the walk made %d requests; expected every route's", cases)
	}
}

// bodyOf returns the resolved body schema of op, or nil.
func bodyOf(doc openAPI, op operation) *schema {
	for _, p := range op.Parameters {
		if p.In == "body" && p.Schema != nil {
			s := doc.resolve(*p.Schema)
			return &s
		}
	}
	return nil
}

// jsonName is the JSON name of a query or path parameter as the OpenAPI
// document spells it (dotted, proto or JSON names).
func jsonName(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		var b strings.Builder
		up := false
		for _, r := range p {
			if r == '_' {
				up = true
				continue
			}
			if up {
				r = []rune(strings.ToUpper(string(r)))[0]
			}
			up = false
			b.WriteRune(r)
		}
		parts[i] = b.String()
	}
	return strings.Join(parts, ".")
}

// TestTextWithNULOrBadUTF8IsRefused sends NUL characters and invalid UTF-8
// in bodies, map keys and values, query values and path values: each is a 400
// naming the field before any handler runs.
func TestTextWithNULOrBadUTF8IsRefused(t *testing.T) {
	t.Parallel()
	base := startAllREST(t)
	for _, tt := range []struct {
		name, method, path, body, field string
	}{
		{"nonce", "POST", "/api/v1/transactions/initialize",
			`{"paymentData":{"nonce":"a\u0000b","amount":"1.00"}}`, "paymentData.nonce"},
		{"client id", "POST", "/api/v1/transactions/initialize",
			`{"merchantData":{"clientId":"\u0000"}}`, "merchantData.clientId"},
		{"additional data key", "POST", "/api/v1/transactions/initialize",
			`{"merchantData":{"additionalData":{"k\u0000":"v"}}}`, "merchantData.additionalData"},
		{"additional data value", "POST", "/api/v1/transactions/initialize",
			`{"merchantData":{"additionalData":{"k":{"deep":["\u0000"]}}}}`, "merchantData.additionalData"},
		{"query filter", "GET", "/api/v1/collabs/1/transactions/advanced?search=" + url.QueryEscape("a\x00"), "", "search"},
		{"query bad UTF-8", "GET", "/api/v1/collabs/1/transactions/advanced?nonce=%FF%FE", "", "nonce"},
		{"log search term", "POST", "/api/v1/transactions/search-in-logs", `{"searchTerm":"\u0000"}`, "searchTerm"},
		{"log search currency", "POST", "/api/v1/transactions/search-in-logs", `{"currency":"P\u0000"}`, "currency"},
	} {
		code, msg := send(t, tt.method, base+tt.path, tt.body)
		if code != http.StatusBadRequest || !strings.Contains(msg, tt.field) || !strings.Contains(msg, "NUL") {
			t.Errorf("%s: %d %q, want 400 naming %s", tt.name, code, msg, tt.field)
		}
	}
	// A body of bytes that are not UTF-8 is refused whole.
	code, msg := send(t, "POST", base+"/api/v1/transactions/initialize", "{\"paymentData\":{\"nonce\":\"\xff\"}}")
	if code != http.StatusBadRequest || !strings.Contains(msg, "UTF-8") {
		t.Errorf("bad UTF-8 body: %d %q", code, msg)
	}
}

// TestOversizedBodyIs413 sends a body over MaxBodyBytes.
func TestOversizedBodyIs413(t *testing.T) {
	t.Parallel()
	base := startAllREST(t)
	big := `{"name":"` + strings.Repeat("x", server.MaxBodyBytes) + `"}`
	code, msg := send(t, "POST", base+"/api/v1/callbacks", big)
	if code != http.StatusRequestEntityTooLarge || msg != server.TooLargeMessage {
		t.Errorf("oversized body: %d %q, want 413 %q", code, msg, server.TooLargeMessage)
	}
}

// TestBodyChecksRunBeforeEveryRoute sends oversized, non-UTF-8 and broken
// JSON bodies to a route beside the REST mapping (Handle), one whose
// mapping binds no body, and one whose query is missing: each is refused
// before any handler runs or any query is read (issue 25: the routes beside
// the mapping read bodies without a limit, and a mapping without a body
// never looked at it).
func TestBodyChecksRunBeforeEveryRoute(t *testing.T) {
	t.Parallel()
	srv := server.New(server.Options{Name: "edge", GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", Logger: quietLogger()})
	var reached atomic.Int32
	srv.Handle("POST /beside", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		if r.URL.Query().Get("collabId") == "" {
			http.Error(w, `{"code":"invalid","message":"collabId is required."}`, http.StatusBadRequest)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	_, addr := srv.Addrs()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	base := "http://" + addr
	big := `{"name":"` + strings.Repeat("x", server.MaxBodyBytes) + `"}`
	for _, path := range []string{"/beside", "/beside?collabId=1"} {
		for _, tt := range []struct {
			name, body string
			code       int
			msg        string
		}{
			{"oversized", big, http.StatusRequestEntityTooLarge, server.TooLargeMessage},
			{"invalid UTF-8", "{\"a\":\"\xff\"}", http.StatusBadRequest, "The request body is not valid UTF-8 text."},
			{"broken JSON", `{"a":`, http.StatusBadRequest, "The request body is not valid JSON."},
			{"two values", `{} {}`, http.StatusBadRequest, "The request body is not valid JSON."},
		} {
			code, msg := send(t, "POST", base+path, tt.body)
			if code != tt.code || msg != tt.msg {
				t.Errorf("%s to %s: %d %q, want %d %q", tt.name, path, code, msg, tt.code, tt.msg)
			}
		}
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the handler ran %d times for refused bodies", n)
	}
	// A good body, and none, reach it.
	if code, _ := send(t, "POST", base+"/beside?collabId=1", `{"a":1}`); code != http.StatusOK || reached.Load() != 1 {
		t.Errorf("good body: %d, reached %d", code, reached.Load())
	}
	if code, _ := send(t, "POST", base+"/beside?collabId=1", ""); code != http.StatusOK || reached.Load() != 2 {
		t.Errorf("no body: %d, reached %d", code, reached.Load())
	}
}

// idName matches the names of id fields as the OpenAPI document spells
// them.
var idName = regexp.MustCompile(`(^id$|Id$|_id$|Ids$|_ids$)`)

// TestNegativeIdsAreRefused walks every integer id in a path or a query of
// every REST route with -1: each is a 400 naming it before any handler runs
// (issue 25: /merchants/-1/callbacks and statistics' merchantId=-1 answered
// 200 with an empty list). Ids in bodies likewise.
func TestNegativeIdsAreRefused(t *testing.T) {
	t.Parallel()
	base := startAllREST(t)
	doc := loadOpenAPI(t)
	cases := 0
	check := func(method, u, body, field string) {
		t.Helper()
		cases++
		code, msg := send(t, method, u, body)
		if want := field + " must not be negative."; code != http.StatusBadRequest || msg != want {
			t.Errorf("%s %s %s: %d %q, want 400 %q", method, u, body, code, msg, want)
		}
	}
	for p, ops := range doc.Paths {
		for method, op := range ops {
			if p == "/api/v1/files/{id}" && method == "get" {
				continue // a stream: refused here (no stream authorization); the gateway's test sends it
			}
			body := ""
			if b := bodyOf(doc, op); b != nil {
				body = "{}"
				if b.Type == "array" {
					body = "[]"
				}
			}
			for _, prm := range op.Parameters {
				integer := prm.Type == "integer" || prm.Format == "int64" || prm.Format == "int32"
				if !integer || !idName.MatchString(prm.Name) {
					continue
				}
				switch prm.In {
				case "path":
					path := strings.ReplaceAll(p, "{"+prm.Name+"}", "-1")
					path, _ = fillPath(path, op.Parameters, "")
					check(method, base+path, body, jsonName(prm.Name))
				case "query":
					path, _ := fillPath(p, op.Parameters, "")
					check(method, base+path+"?"+prm.Name+"=-1", body, jsonName(prm.Name))
				}
			}
		}
	}
	if cases < 40 {
		t.Fatalf("the walk made %d requests; expected every route's ids", cases)
	}
	check("POST", base+"/api/v1/callbacks", `{"collabId": -1, "callbackUrl": "https://example.com/cb"}`, "collabId")
	check("PUT", base+"/api/v1/fees/7", `{"payTypeId": -3}`, "payTypeId")
	check("POST", base+"/api/v1/collabs/initialize", `{"merchantId": 1, "providerId": 1, "payTypeIds": [1, -2]}`, "payTypeIds")
}

// TestPathAndBodyMustAgree sends, to every route whose whole body is the
// request (body "*" in the mapping) and whose path names a field, a body
// giving that field another value: each is a 400 naming it (issue 25: PUT
// /api/v1/fees/3 with {"id": "1"} was applied to fee 3, the path's value
// silently winning). The same value in the body passes the check.
func TestPathAndBodyMustAgree(t *testing.T) {
	t.Parallel()
	base := startAllREST(t)
	vars := regexp.MustCompile(`\{([^}]+)\}`)
	cases := 0
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if !strings.HasPrefix(string(fd.Package()), "paygate.") {
			return true
		}
		for i := range fd.Services().Len() {
			methods := fd.Services().Get(i).Methods()
			for j := range methods.Len() {
				md := methods.Get(j)
				rule, _ := proto.GetExtension(md.Options(), annotations.E_Http).(*annotations.HttpRule)
				if rule.GetBody() != "*" {
					continue
				}
				method, tmpl := "", ""
				switch p := rule.GetPattern().(type) {
				case *annotations.HttpRule_Post:
					method, tmpl = "POST", p.Post
				case *annotations.HttpRule_Put:
					method, tmpl = "PUT", p.Put
				default:
					continue
				}
				path := vars.ReplaceAllString(tmpl, "7")
				for _, m := range vars.FindAllStringSubmatch(tmpl, -1) {
					f := md.Input().Fields().ByName(protoreflect.Name(m[1]))
					if f == nil {
						continue
					}
					name := f.JSONName()
					cases++
					other, same := `"8"`, `"7"`
					if f.Kind() != protoreflect.StringKind {
						other, same = "8", "7.0"
					}
					want := "The body's " + name + " differs from the path's: give the same value in both, or leave it out of the body."
					for _, key := range []string{name, string(f.Name()), strings.ToUpper(name[:1]) + name[1:]} {
						if code, msg := send(t, method, base+path, `{"`+key+`": `+other+`}`); code != http.StatusBadRequest || msg != want {
							t.Errorf("%s %s {%s: 8}: %d %q, want 400 %q", method, path, key, code, msg, want)
						}
					}
					if code, msg := send(t, method, base+path, `{"`+name+`": `+same+`}`); strings.Contains(msg, "differs") {
						t.Errorf("%s %s with the path's own value: %d %q", method, path, code, msg)
					}
				}
			}
		}
		return true
	})
	if cases < 5 {
		t.Fatalf("the walk found %d fields in both a path and a body", cases)
	}
}

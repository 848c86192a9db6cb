// Package services_test holds the dependency policy of the Go code
// (ARCHITECTURE.md, STYLE.md "One dependency policy, over the whole graph"),
// checked against the graph `go list` reports, the way Go's own
// src/go/build/deps_test.go checks the standard library.
//
// Every package of the module belongs to one layer; a layer may import only
// the layers its rule lists. Because every package's direct imports are
// checked, a leak through a helper package fails as surely as a direct
// import: if keyring (a primitive) imported the job runner (plumbing), keyring
// itself would fail, not only the domain packages that import keyring.
//
// On top of that, the transitive rule: `go list -deps` of a domain or
// primitive package must not reach a storage, messaging or network client
// (pgx, NATS, gRPC, Redis, minio, migrate) at all, nor net/http other than
// through a library listed in netHTTPThrough, each with its reason.
//
// That no service imports another service's packages the compiler already
// refuses (services/<name>/internal/), so the layers need not say it.
package services_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/paygate/paygate/"

// Layers, lowest first.
const (
	layerStd       = "std"        // the standard library without the network
	layerStdNet    = "std-net"    // net, net/http, crypto/tls and the like
	layerPureLib   = "pure-lib"   // third-party code that does no I/O of its own
	layerObsLib    = "obs-lib"    // the tracing and metrics APIs (OpenTelemetry API, Prometheus client)
	layerFormatLib = "format-lib" // file formats (XLSX, PDF) and the WebAuthn ceremony
	layerObsSDK    = "obs-sdk"    // the OpenTelemetry SDK and its exporters, the Prometheus HTTP handler
	layerIOLib     = "io-lib"     // storage, messaging and RPC clients and servers
	layerTestLib   = "test-lib"   // libraries only tests use
	layerEvents    = "events"     // gen/go/paygate/events: event payloads (messages only)
	layerAPI       = "api"        // gen/go/paygate/<service>: gRPC and REST stubs
	layerPrimitive = "primitive"  // errors, money, ids, crypto, config, the metrics registry
	layerDomain    = "domain"     // a service's domain packages
	layerPlumbing  = "plumbing"   // services/internal's shared runtime: pgdb, bus, jobs, server, authz…
	layerTestKit   = "test-kit"   // shared test helpers (servicetest, pgtest, authztest)
	layerAdapter   = "adapter"    // a service's postgres, nats, redis, grpcapi, httpapi, filestore, clients
	layerMain      = "main"       // a service's main package and its commands
	layerTool      = "tool"       // bench/ and deploy/: they drive the services
)

// allowed lists, for each layer, the layers its packages may import (their
// non-test files). A layer may always import itself, except where
// plumbingOrder narrows it.
var allowed = map[string][]string{
	layerStd:       {},
	layerStdNet:    {layerStd},
	layerEvents:    {layerStd, layerPureLib},
	layerAPI:       {layerStd, layerStdNet, layerPureLib, layerIOLib, layerEvents},
	layerPrimitive: {layerStd, layerPureLib, layerObsLib},
	layerDomain:    {layerStd, layerPureLib, layerObsLib, layerFormatLib, layerEvents, layerPrimitive},
	layerPlumbing:  {layerStd, layerStdNet, layerPureLib, layerObsLib, layerIOLib, layerEvents, layerPrimitive, layerObsSDK},
	layerTestKit:   {layerStd, layerStdNet, layerPureLib, layerObsLib, layerIOLib, layerTestLib, layerEvents, layerAPI, layerPrimitive, layerPlumbing, layerObsSDK},
	layerAdapter:   {layerStd, layerStdNet, layerPureLib, layerObsLib, layerFormatLib, layerIOLib, layerEvents, layerAPI, layerPrimitive, layerDomain, layerPlumbing, layerObsSDK},
	layerMain:      {layerStd, layerStdNet, layerPureLib, layerObsLib, layerFormatLib, layerIOLib, layerEvents, layerAPI, layerPrimitive, layerDomain, layerPlumbing, layerAdapter, layerObsSDK},
	layerTool:      {layerStd, layerStdNet, layerPureLib, layerObsLib, layerFormatLib, layerIOLib, layerEvents, layerAPI, layerPrimitive, layerDomain, layerPlumbing, layerAdapter, layerTestKit, layerObsSDK},
}

// testAllowed adds, for a layer's test files, the layers tests may use
// beyond those of the package itself.
// Tests may drive plumbing (a real verifier, an embedded NATS server), the
// generated stubs, the network and the tracing SDK's recorder, but a domain
// package's tests still never reach its service's adapters or storage.
var testAllowed = []string{layerTestLib, layerTestKit, layerPlumbing, layerAPI, layerStdNet, layerObsSDK}

// primitives are the services/internal packages (and the gateway's money)
// that hold values and pure functions only.
var primitives = []string{
	"services/internal/apperr",
	"services/internal/access",
	"services/internal/paging",
	"services/internal/stdwebhooks",
	"services/internal/aesgcm",
	"services/internal/keyring",
	"services/internal/config",
	"services/internal/telemetry/metrics",
	"services/internal/jobs/job",
	"services/internal/datefilter",
	// The sensitive actions, their canonical description and the confirmation token's claims.
	"services/internal/sensitive",
}

// plumbingOrder lists, for each plumbing package, the other plumbing packages
// it may import; one that is not listed may import none. A crypto or
// authorization package never reaches the job runner, the runner never the
// server.
var plumbingOrder = map[string][]string{
	"services/internal/apperr/grpcstatus": {},
	"services/internal/telemetry":         {},
	"services/internal/netguard":          {},
	// The sentences of failed outbound calls classify netguard's refusals.
	"services/internal/callfailure":   {"services/internal/netguard"},
	"services/internal/pgdb":          {},
	"services/internal/authz":         {},
	"services/internal/bus":           {"services/internal/telemetry"},
	"services/internal/bus/natsembed": {},
	"services/internal/jobs":          {"services/internal/bus", "services/internal/telemetry"},
	// The bulk runs' river queue (docs/contracts-bulk.md).
	"services/internal/bulkqueue":         {},
	"services/internal/keyring/resealjob": {"services/internal/jobs"},
	"services/internal/server":            {"services/internal/apperr/grpcstatus", "services/internal/telemetry"},
	// Step-up: the interceptor that asks for and checks confirmation tokens (verifies them as authz does).
	"services/internal/stepup": {"services/internal/authz", "services/internal/apperr/grpcstatus"},
	// The service runner starts everything below it.
	"services/internal/app": {"services/internal/bus", "services/internal/jobs", "services/internal/pgdb",
		"services/internal/server", "services/internal/telemetry"},
}

// testKit are the shared test helpers: imported by test files only.
var testKit = []string{
	"services/internal/servicetest",
	"services/internal/pgdb/pgtest",
	"services/internal/authz/authztest",
	// The call-rules writer runs in each service's grpcapi tests.
	"services/internal/callrules",
}

// adapterNames are the package names a service keeps its transport, storage
// and outbound-client code in; every other package of a service (but main
// and cmd/) is domain code.
var adapterNames = []string{
	// inbound
	"grpcapi", "httpapi",
	// storage and events (filestore: the export files' directory or bucket)
	"postgres", "redis", "nats", "filestore",
	// outbound clients, named for what they call
	"gatewayclient", "callbacksclient", "receivers", "providers", "validationclient",
}

// thirdParty classifies the third-party packages the module imports, by
// import-path prefix (the longest prefix wins).
var thirdParty = map[string]string{
	"google.golang.org/protobuf/":                               layerPureLib,
	"golang.org/x/sync/":                                        layerPureLib,
	"golang.org/x/crypto/":                                      layerPureLib,
	"golang.org/x/text/":                                        layerPureLib,
	"github.com/google/uuid":                                    layerPureLib,
	"github.com/golang-jwt/jwt/":                                layerPureLib,
	"github.com/hashicorp/golang-lru/":                          layerPureLib, // authz's cache of verified tokens, auth's session-list counts
	"github.com/pquerna/otp":                                    layerPureLib, // TOTP codes and keys
	"github.com/boombuler/barcode":                              layerPureLib, // otp's QR images (unused; no I/O)
	"github.com/fxamacker/cbor/":                                layerPureLib,
	"go.yaml.in/yaml/":                                          layerPureLib,
	"go.opentelemetry.io/otel":                                  layerObsLib,
	"go.opentelemetry.io/otel/sdk":                              layerObsSDK,
	"go.opentelemetry.io/otel/exporters/":                       layerObsSDK,
	"go.opentelemetry.io/proto/":                                layerObsSDK,
	"github.com/prometheus/client_golang/prometheus":            layerObsLib,
	"github.com/prometheus/client_golang/prometheus/promhttp":   layerObsSDK,
	"github.com/prometheus/client_golang/prometheus/collectors": layerObsSDK,
	"github.com/xuri/excelize/":                                 layerFormatLib,
	"github.com/signintech/gopdf":                               layerFormatLib,
	"github.com/pdfcpu/pdfcpu/":                                 layerFormatLib,
	"golang.org/x/image/":                                       layerFormatLib,
	"github.com/go-webauthn/webauthn/":                          layerFormatLib,
	"github.com/jackc/":                                         layerIOLib,
	"github.com/nats-io/":                                       layerIOLib,
	"github.com/redis/":                                         layerIOLib,
	"github.com/minio/":                                         layerIOLib,
	"github.com/golang-migrate/":                                layerIOLib,
	// The bulk runs' job queue (Postgres-backed; docs/contracts-bulk.md).
	"github.com/riverqueue/":            layerIOLib,
	"google.golang.org/grpc":            layerIOLib,
	"google.golang.org/genproto/":       layerIOLib,
	"github.com/grpc-ecosystem/":        layerIOLib,
	"github.com/fullstorydev/grpchan":   layerIOLib,
	"go.uber.org/goleak":                layerTestLib,
	"github.com/johannesboyne/gofakes3": layerTestLib,
}

// stdNet are the standard packages that reach the network.
// (net/url, net/netip, net/mail and net/textproto only parse text.)
var stdNet = []string{"net", "net/http", "net/rpc", "net/smtp", "crypto/tls", "os/exec", "os/signal", "syscall", "log/syslog", "plugin"}

// ioClients are what no domain or primitive package may reach, directly or
// through any library.
var ioClients = []string{
	"github.com/jackc/pgx", "github.com/nats-io/", "google.golang.org/grpc", "github.com/redis/",
	"github.com/minio/", "github.com/golang-migrate/", "github.com/riverqueue/",
}

// netHTTPThrough are the libraries through which a domain or primitive
// package may link net/http, each for a reason that is not a client of its
// own: nothing in them dials out unless handed a client.
var netHTTPThrough = map[string]string{
	"github.com/xuri/excelize/":                      "sniffs image content types with http.DetectContentType",
	"github.com/pdfcpu/pdfcpu/":                      "can fetch remote images, which the exports never ask it to",
	"go.opentelemetry.io/otel":                       "propagation's HeaderCarrier is an http.Header",
	"github.com/prometheus/client_golang/prometheus": "its push and exposition helpers, which no domain package calls",
	"github.com/go-webauthn/webauthn/":               "parses the ceremony's responses from an *http.Request",
}

// layerOf classifies an import path; "" means unknown, which the test
// reports as a policy to write.
func layerOf(path string) string {
	if rest, ok := strings.CutPrefix(path, module); ok {
		return moduleLayer(rest)
	}
	first, _, _ := strings.Cut(path, "/")
	if !strings.Contains(first, ".") {
		for _, n := range stdNet {
			if path == n || (n != "net" && strings.HasPrefix(path, n+"/")) {
				return layerStdNet
			}
		}
		return layerStd
	}
	best, layer := "", ""
	for prefix, l := range thirdParty {
		if (path == strings.TrimSuffix(prefix, "/") || strings.HasPrefix(path, prefix)) && len(prefix) > len(best) {
			best, layer = prefix, l
		}
		// "go.opentelemetry.io/otel" covers its sub-packages too.
		if !strings.HasSuffix(prefix, "/") && strings.HasPrefix(path, prefix+"/") && len(prefix) > len(best) {
			best, layer = prefix, l
		}
	}
	return layer
}

func moduleLayer(rest string) string {
	switch {
	case strings.HasPrefix(rest, "gen/go/paygate/events/"):
		return layerEvents
	case strings.HasPrefix(rest, "gen/go/"):
		return layerAPI
	case strings.HasPrefix(rest, "bench/") || rest == "bench" || strings.HasPrefix(rest, "deploy/"):
		return layerTool
	case slices.Contains(primitives, rest):
		return layerPrimitive
	case slices.Contains(testKit, rest):
		return layerTestKit
	case strings.HasPrefix(rest, "services/internal/"):
		if _, ok := plumbingOrder[rest]; ok {
			return layerPlumbing
		}
		return ""
	case rest == "services":
		return layerTool
	}
	svc, ok := strings.CutPrefix(rest, "services/")
	if !ok {
		return ""
	}
	_, inner, _ := strings.Cut(svc, "/")
	if inner == "" || inner == "cmd" || strings.HasPrefix(inner, "cmd/") {
		return layerMain
	}
	pkg, ok := strings.CutPrefix(inner, "internal/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(pkg, "/")
	if slices.Contains(adapterNames, name) {
		return layerAdapter
	}
	// Money is the gateway's amount type: a primitive every part uses.
	if name == "money" {
		return layerPrimitive
	}
	return layerDomain
}

// pkgInfo is what the policy reads of `go list -json`.
type pkgInfo struct {
	ImportPath   string
	Standard     bool
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// graph is the import graph of a `go list -deps` run: each package's
// imports (of its non-test files).
type graph map[string][]string

// loadPackages runs go list over the module (with overlay, a -overlay file,
// when non-empty) and answers the module's packages and the whole graph.
func loadPackages(t *testing.T, overlay string) ([]pkgInfo, graph) {
	t.Helper()
	args := []string{"list", "-deps", "-test=false", "-json=ImportPath,Standard,Imports,TestImports,XTestImports,Module"}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	// The module's own packages (go list "../..." would also walk
	// node_modules, where some npm packages ship Go files).
	args = append(args, "../services/...", "../bench/...", "../deploy/...", "../gen/...")
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	g := graph{}
	var mine []pkgInfo
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkgInfo
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		g[p.ImportPath] = p.Imports
		if strings.HasPrefix(p.ImportPath, module) {
			mine = append(mine, p)
		}
	}
	if len(mine) == 0 {
		t.Fatal("go list found none of the module's packages")
	}
	return mine, g
}

// violations checks the policy over the module's packages and their graph,
// answering one line per violation.
func violations(mine []pkgInfo, g graph) []string {
	var out []string
	short := func(p string) string { return strings.TrimPrefix(p, module) }
	mayImport := func(from, fromLayer, imp string, test bool) (bool, string) {
		impLayer := layerOf(imp)
		if impLayer == "" {
			return false, fmt.Sprintf("%s imports %s, which the policy does not place in a layer: add it to services/deps_test.go", short(from), short(imp))
		}
		ok := impLayer == fromLayer || slices.Contains(allowed[fromLayer], impLayer) ||
			(test && slices.Contains(testAllowed, impLayer))
		if impLayer == layerPlumbing && fromLayer == layerPlumbing && !test {
			ok = slices.Contains(plumbingOrder[short(from)], short(imp)) ||
				strings.HasPrefix(short(imp), short(from)+"/")
		}
		if ok {
			return true, ""
		}
		return false, fmt.Sprintf("%s (%s) imports %s (%s): a %s package may import only %s",
			short(from), fromLayer, short(imp), impLayer, fromLayer, strings.Join(append([]string{fromLayer}, allowed[fromLayer]...), ", "))
	}
	for _, p := range mine {
		layer := layerOf(p.ImportPath)
		if layer == "" {
			out = append(out, fmt.Sprintf("%s is in no layer: place it in services/deps_test.go", short(p.ImportPath)))
			continue
		}
		for _, imp := range p.Imports {
			if ok, why := mayImport(p.ImportPath, layer, imp, false); !ok {
				out = append(out, why)
			}
		}
		for _, imp := range slices.Concat(p.TestImports, p.XTestImports) {
			if imp == p.ImportPath {
				continue
			}
			if ok, why := mayImport(p.ImportPath, layer, imp, true); !ok {
				out = append(out, "test files: "+why)
			}
		}
		if layer == layerDomain || layer == layerPrimitive || layer == layerEvents {
			out = append(out, reachesClient(g, p.ImportPath)...)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// reachesClient follows every import of from (not its tests) and answers the
// paths by which it reaches an I/O client, or net/http other than through a
// library of netHTTPThrough.
func reachesClient(g graph, from string) []string {
	var out []string
	for _, target := range []string{"io", "net/http"} {
		prev := map[string]string{from: ""}
		queue := []string{from}
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			hit := (target == "io" && slices.ContainsFunc(ioClients, func(c string) bool { return strings.HasPrefix(n, c) })) ||
				(target == "net/http" && n == "net/http")
			if hit {
				path := []string{n}
				for p := prev[n]; p != ""; p = prev[p] {
					path = append([]string{p}, path...)
				}
				out = append(out, fmt.Sprintf("%s links %s: %s", strings.TrimPrefix(from, module), n,
					strings.ReplaceAll(strings.Join(path, " -> "), module, "")))
				break
			}
			if target == "net/http" && n != from && through(n) {
				continue
			}
			for _, m := range g[n] {
				if _, seen := prev[m]; !seen {
					prev[m] = n
					queue = append(queue, m)
				}
			}
		}
	}
	return out
}

func through(pkg string) bool {
	for lib := range netHTTPThrough {
		if pkg == strings.TrimSuffix(lib, "/") || strings.HasPrefix(pkg, strings.TrimSuffix(lib, "/")+"/") {
			return true
		}
	}
	return false
}

func TestDependencyPolicy(t *testing.T) {
	t.Parallel()
	mine, g := loadPackages(t, "")
	domains := 0
	for _, p := range mine {
		if layerOf(p.ImportPath) == layerDomain {
			domains++
		}
	}
	if domains < 10 {
		t.Fatalf("only %d domain packages were found; is the classification broken?", domains)
	}
	for _, v := range violations(mine, g) {
		t.Error(v)
	}
}

// TestDependencyPolicyCatchesPlantedViolations plants imports through a
// go list overlay (the tree is not touched) and expects the policy to name
// each, with the path it takes.
func TestDependencyPolicyCatchesPlantedViolations(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	plants := map[string]string{
		// A primitive reaching the job runner (the keyring leak of issue 26).
		"services/internal/keyring/zz_planted.go": "package keyring\n\nimport _ \"" + module + "services/internal/jobs\"\n",
		// A domain package importing the database plumbing.
		"services/gateway/internal/fee/zz_planted.go": "package fee\n\nimport _ \"" + module + "services/internal/pgdb\"\n",
		// A domain package calling out over HTTP itself.
		"services/callbacks/internal/callback/zz_planted.go": "package callback\n\nimport _ \"net/http\"\n",
	}
	dir := t.TempDir()
	replace := map[string]string{}
	for rel, src := range plants {
		f := filepath.Join(dir, strings.ReplaceAll(rel, "/", "_"))
		if err := os.WriteFile(f, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(root, rel)] = f
	}
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlay, data, 0o600); err != nil {
		t.Fatal(err)
	}
	mine, g := loadPackages(t, overlay)
	found := violations(mine, g)
	got := strings.Join(found, "\n")
	if !slices.ContainsFunc(found, func(v string) bool {
		return strings.HasPrefix(v, "services/gateway/internal/fee links github.com/") &&
			strings.Contains(v, "services/gateway/internal/fee -> services/internal/pgdb -> ")
	}) {
		t.Errorf("the path from fee through pgdb to a database client is not reported:\n%s", got)
	}
	for _, want := range []string{
		"services/internal/keyring (primitive) imports services/internal/jobs (plumbing)",
		"services/internal/keyring links github.com/jackc/pgx/v5",
		"services/gateway/internal/fee (domain) imports services/internal/pgdb (plumbing)",
		"services/callbacks/internal/callback (domain) imports net/http (std-net)",
		"services/callbacks/internal/callback links net/http: services/callbacks/internal/callback -> net/http",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("planted violation not reported: %q\nreported:\n%s", want, got)
		}
	}
}

// TestLayerOf pins the classification of a few packages of each kind.
func TestLayerOf(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		module + "services/gateway/internal/payment":              layerDomain,
		module + "services/gateway/internal/exportfmt/pdftext":    layerDomain,
		module + "services/gateway/internal/postgres":             layerAdapter,
		module + "services/gateway/internal/money":                layerPrimitive,
		module + "services/gateway":                               layerMain,
		module + "services/gateway/cmd/listbench":                 layerMain,
		module + "services/internal/keyring":                      layerPrimitive,
		module + "services/internal/jobs":                         layerPlumbing,
		module + "services/internal/pgdb/pgtest":                  layerTestKit,
		module + "gen/go/paygate/events/v1":                       layerEvents,
		module + "gen/go/paygate/gateway/v1":                      layerAPI,
		module + "bench/txgen":                                    layerTool,
		"net/http":                                                layerStdNet,
		"net/netip":                                               layerStd,
		"go.opentelemetry.io/otel/trace":                          layerObsLib,
		"go.opentelemetry.io/otel/sdk/trace":                      layerObsSDK,
		"github.com/jackc/pgx/v5/pgxpool":                         layerIOLib,
		"github.com/prometheus/client_golang/prometheus/promhttp": layerObsSDK,
	} {
		if got := layerOf(path); got != want {
			t.Errorf("layerOf(%s) = %q, want %q", path, got, want)
		}
	}
}

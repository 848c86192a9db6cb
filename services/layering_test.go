// Package services_test checks the dependency rules of ARCHITECTURE.md and
// STYLE.md that the compiler does not see. (That no service imports another
// service's packages the compiler already refuses: each service keeps its
// packages under services/<name>/internal/.) What is left is checked here,
// for the packages' test files too:
//
//   - a service's domain packages import no transport or storage code (that
//     belongs in its inbound adapters grpcapi and httpapi, its storage
//     adapters postgres, redis and filestore, its nats package, and its outbound
//     clients, each named for what it calls);
//   - nothing imports bench/: benchmarks drive the services, never the
//     other way round.
package services_test

import (
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/paygate/paygate/"

// adapters are the package names a service keeps its transport, storage and
// outbound-client code in; every other package of a service (but main) is
// domain code.
var adapters = map[string]bool{
	// inbound
	"grpcapi": true, "httpapi": true,
	// storage and events (filestore: the export files' directory or bucket)
	"postgres": true, "redis": true, "nats": true, "filestore": true,
	// outbound clients, named for what they call
	"gatewayclient": true, "callbacksclient": true, "receivers": true, "providers": true, "validationclient": true,
}

// forbiddenInDomain are import prefixes a domain package must not use.
var forbiddenInDomain = []string{
	"github.com/jackc/pgx",
	"google.golang.org/grpc",
	"github.com/grpc-ecosystem/",
	"github.com/nats-io/",
	"github.com/redis/",
	"net/http",
	module + "services/internal/pgdb",
	module + "services/internal/bus",
	module + "services/internal/server",
}

type goPackage struct {
	ImportPath   string
	Name         string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// allImports returns the package's imports with those of its test files.
func (p goPackage) allImports() []string {
	return slices.Concat(p.Imports, p.TestImports, p.XTestImports)
}

func listPackages(t *testing.T) []goPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "../...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []goPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p goPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	return pkgs
}

// domainPackage reports whether a package is a service's domain package:
// services/<name>/internal/<pkg> where <pkg> is not an adapter.
func domainPackage(p goPackage) bool {
	rest, ok := strings.CutPrefix(p.ImportPath, module+"services/")
	if !ok || p.Name == "main" {
		return false
	}
	service, rest, _ := strings.Cut(rest, "/")
	if service == "internal" {
		return false
	}
	pkg, ok := strings.CutPrefix(rest, "internal/")
	if !ok {
		return false
	}
	return !adapters[strings.SplitN(pkg, "/", 2)[0]]
}

func TestLayering(t *testing.T) {
	t.Parallel()
	domains := 0
	for _, p := range listPackages(t) {
		domain := domainPackage(p)
		if domain {
			domains++
		}
		for _, imp := range p.allImports() {
			if imp == module+"bench" || strings.HasPrefix(imp, module+"bench/") {
				t.Errorf("%s imports %s: benchmarks drive the services, nothing imports them", p.ImportPath, imp)
			}
			if !domain {
				continue
			}
			for _, bad := range forbiddenInDomain {
				if strings.HasPrefix(imp, bad) {
					t.Errorf("domain package %s (or its tests) imports %s: move that code to an adapter (%s)",
						p.ImportPath, imp, strings.Join(slices.Sorted(maps.Keys(adapters)), ", "))
				}
			}
		}
	}
	if domains == 0 {
		t.Fatal("no domain packages were checked")
	}
}

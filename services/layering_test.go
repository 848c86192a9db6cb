// Package services_test checks the dependency rules of ARCHITECTURE.md and
// STYLE.md that the compiler does not: no service imports another service's
// packages, and a service's domain packages import no transport or storage
// code (those belong in its grpcapi, postgres, redis and nats packages).
package services_test

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/paygate/paygate/"

// adapters are the package names a service keeps its transport and storage
// code in; every other package of a service (but main) is domain code.
var adapters = map[string]bool{"grpcapi": true, "httpapi": true, "postgres": true, "redis": true, "nats": true}

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
	ImportPath string
	Name       string
	Imports    []string
}

func listPackages(t *testing.T) []goPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./...").Output()
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
		t.Fatal("go list found no packages under services/")
	}
	return pkgs
}

// serviceOf returns the service a package belongs to ("auth" for
// services/auth/identity), or "" for shared and non-service packages.
func serviceOf(importPath string) (service, rest string) {
	p, ok := strings.CutPrefix(importPath, module+"services/")
	if !ok {
		return "", ""
	}
	service, rest, _ = strings.Cut(p, "/")
	if service == "internal" {
		return "", ""
	}
	return service, rest
}

func TestLayering(t *testing.T) {
	t.Parallel()
	checked := 0
	for _, p := range listPackages(t) {
		service, rest := serviceOf(p.ImportPath)
		if service == "" {
			continue
		}
		checked++
		domain := rest != "" && p.Name != "main" && !adapters[strings.SplitN(rest, "/", 2)[0]]
		for _, imp := range p.Imports {
			if other, _ := serviceOf(imp); other != "" && other != service {
				t.Errorf("%s imports %s: services talk over gRPC or NATS, not Go imports", p.ImportPath, imp)
			}
			if !domain {
				continue
			}
			for _, bad := range forbiddenInDomain {
				if strings.HasPrefix(imp, bad) {
					t.Errorf("domain package %s imports %s: move that code to grpcapi, httpapi, postgres, redis or nats", p.ImportPath, imp)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no service packages were checked")
	}
}

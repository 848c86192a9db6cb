// Package callrules writes a service's authorization rules, keyed by gRPC
// method and by REST route, as a TypeScript module of the console's SDK
// (shell/sdk/src/call-rules/<service>.gen.ts), so that the console decides
// whether to show a control with the very table the server enforces
// (docs/contracts.md "Who may call what").
//
// Each service's rules live in its own internal grpcapi package, which no
// other package may import; so each of those packages has a test that calls
// Check with its table. Check fails when the committed file differs from the
// table, and rewrites it instead when PAYGATE_WRITE_CALL_RULES=1 (`make
// call-rules`, part of `make generate`).
package callrules

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
)

// WriteEnv names the environment variable that makes Check write the file
// instead of comparing it.
const WriteEnv = "PAYGATE_WRITE_CALL_RULES"

// Dir is where the generated modules live, relative to the repository root.
const Dir = "shell/sdk/src/call-rules"

// Call is one method of a rules table with its REST routes.
type Call struct {
	// Method is the full gRPC method name, "/paygate.gateway.v1.CollabService/ListMerchantCollabs".
	Method string
	// HTTP lists the method's REST routes as "VERB /path", path variables
	// named by their JSON names ("GET /api/v1/collabs/{collabId}/settings");
	// empty for a method without a route.
	HTTP []string
	// Rule is who may call it.
	Rule authz.Rule
}

// Calls lists the methods of rules, sorted by method name, each with the
// REST routes its google.api.http option declares in files (usually
// protoregistry.GlobalFiles).
//
// It fails when a rule names a method files do not describe, or requires
// something that is not one of access.Requirements (the console knows those
// only, by name).
func Calls(rules authz.Rules, files *protoregistry.Files) ([]Call, error) {
	calls := make([]Call, 0, len(rules))
	var errs []error
	for method, rule := range rules {
		if !rule.Requires.IsZero() && !slices.ContainsFunc(access.Requirements, func(r access.Requirement) bool {
			return reflect.DeepEqual(r, rule.Requires)
		}) {
			errs = append(errs, fmt.Errorf("rule %s requires %q, which is not one of access.Requirements", method, rule.Requires.Name))
			continue
		}
		routes, err := routesOf(method, files)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		calls = append(calls, Call{Method: method, HTTP: routes, Rule: rule})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.SortFunc(calls, func(a, b Call) int { return strings.Compare(a.Method, b.Method) })
	return calls, nil
}

// routesOf reads the REST routes of a full method name.
func routesOf(method string, files *protoregistry.Files) ([]string, error) {
	service, name, ok := strings.Cut(strings.TrimPrefix(method, "/"), "/")
	if !ok || !strings.HasPrefix(method, "/") {
		return nil, fmt.Errorf("rule key %q is not a full method name (/package.Service/Method)", method)
	}
	d, err := files.FindDescriptorByName(protoreflect.FullName(service))
	if err != nil {
		return nil, fmt.Errorf("rule %s: service %s: %w", method, service, err)
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, fmt.Errorf("rule %s: %s is not a service", method, service)
	}
	md := sd.Methods().ByName(protoreflect.Name(name))
	if md == nil {
		return nil, fmt.Errorf("rule %s: service %s has no method %s", method, service, name)
	}
	opts, _ := md.Options().(*descriptorpb.MethodOptions)
	if opts == nil || !proto.HasExtension(opts, annotations.E_Http) {
		return nil, nil
	}
	http, _ := proto.GetExtension(opts, annotations.E_Http).(*annotations.HttpRule)
	var routes []string
	for _, r := range append([]*annotations.HttpRule{http}, http.GetAdditionalBindings()...) {
		verb, path := pattern(r)
		if verb == "" {
			continue
		}
		routes = append(routes, verb+" "+jsonPath(path, md.Input()))
	}
	return routes, nil
}

// pattern returns the verb and path template of one HTTP binding.
func pattern(r *annotations.HttpRule) (verb, path string) {
	switch p := r.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		return "GET", p.Get
	case *annotations.HttpRule_Post:
		return "POST", p.Post
	case *annotations.HttpRule_Put:
		return "PUT", p.Put
	case *annotations.HttpRule_Delete:
		return "DELETE", p.Delete
	case *annotations.HttpRule_Patch:
		return "PATCH", p.Patch
	case *annotations.HttpRule_Custom:
		return strings.ToUpper(p.Custom.GetKind()), p.Custom.GetPath()
	}
	return "", ""
}

// jsonPath names the variables of a path template by the JSON names of the
// request fields they fill ("{collab_id}" → "{collabId}"), dropping any
// "=pattern" part.
func jsonPath(template string, in protoreflect.MessageDescriptor) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(template, '{')
		if open < 0 {
			b.WriteString(template)
			return b.String()
		}
		end := strings.IndexByte(template[open:], '}')
		if end < 0 {
			b.WriteString(template)
			return b.String()
		}
		b.WriteString(template[:open+1])
		variable, _, _ := strings.Cut(template[open+1:open+end], "=")
		b.WriteString(jsonFieldPath(variable, in))
		b.WriteByte('}')
		template = template[open+end+1:]
	}
}

// jsonFieldPath turns a dotted proto field path into JSON names, keeping a
// segment as written when the message has no such field.
func jsonFieldPath(fieldPath string, msg protoreflect.MessageDescriptor) string {
	segments := strings.Split(fieldPath, ".")
	for i, s := range segments {
		if msg == nil {
			break
		}
		f := msg.Fields().ByName(protoreflect.Name(s))
		if f == nil {
			break
		}
		segments[i] = f.JSONName()
		msg = f.Message()
	}
	return strings.Join(segments, ".")
}

// Render writes calls as the TypeScript module of service: a constant
// <SERVICE>_CALLS mapping each method to its routes and rule, typed against
// the SDK's CallRule so that a permission or requirement name the SDK does
// not know fails the console's type check.
func Render(service string, calls []Call) []byte {
	var b bytes.Buffer
	name := strings.ToUpper(service) + "_CALLS"
	fmt.Fprintf(&b, "// Code generated from the %s service's authorization rules by services/internal/callrules (make call-rules). DO NOT EDIT.\n\n", service)
	b.WriteString("import type { CallRule } from '../call-rule';\n\n")
	fmt.Fprintf(&b, "/** %s: who may call each method of the %s service (its Go Rules table), and its REST routes. */\n", name, service)
	fmt.Fprintf(&b, "export const %s = {\n", name)
	for _, c := range calls {
		fmt.Fprintf(&b, "  %s: {\n", quote(c.Method))
		fmt.Fprintf(&b, "    http: [%s],\n", quoteList(c.HTTP))
		fmt.Fprintf(&b, "    rule: { %s },\n", renderRule(c.Rule))
		b.WriteString("  },\n")
	}
	b.WriteString("} as const satisfies Record<string, CallRule>;\n")
	return b.Bytes()
}

func renderRule(r authz.Rule) string {
	var parts []string
	if r.Public {
		parts = append(parts, "public: true")
	}
	if r.Internal {
		parts = append(parts, "internal: true")
	}
	if r.Authenticated {
		parts = append(parts, "authenticated: true")
	}
	if len(r.Permissions) > 0 {
		parts = append(parts, "permissions: ["+quoteList(r.Permissions)+"]")
	}
	if !r.Requires.IsZero() {
		parts = append(parts, "requires: "+quote(r.Requires.Name))
	}
	if r.AllowTemporaryPassword {
		parts = append(parts, "allowTemporaryPassword: true")
	}
	return strings.Join(parts, ", ")
}

// quote writes s as a single-quoted TypeScript string.
func quote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return "'" + strings.ReplaceAll(q, "'", `\'`) + "'"
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = quote(s)
	}
	return strings.Join(q, ", ")
}

// Check compares the committed module of service with what rules produce
// (the REST routes read from protoregistry.GlobalFiles, which the generated
// Go packages fill), failing t with the command that brings it up to date.
// With PAYGATE_WRITE_CALL_RULES=1 it writes the module instead.
func Check(t testing.TB, service string, rules authz.Rules) {
	t.Helper()
	calls, err := Calls(rules, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	checkFile(t, service+".gen.ts", Render(service, calls), "the "+service+" service's Rules table")
}

// RequirementsFile is the module CheckRequirements writes, in Dir.
const RequirementsFile = "requirements.gen.ts"

// RenderRequirements writes access.Requirements and access.BuiltInRoles as
// the TypeScript module the console's mayCall, route table and tests read
// (REQUIREMENTS by name, BUILT_IN_ROLES in id order).
func RenderRequirements() []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated from services/internal/access (access.Requirements, access.BuiltInRoles) by services/internal/callrules (make call-rules). DO NOT EDIT.\n\n")
	b.WriteString("import type { BuiltInRole, Requirement } from '../requirement';\n\n")
	b.WriteString("/** REQUIREMENTS: the spec's role rules restated as permissions and the scope flag (docs/access.md). */\n")
	b.WriteString("export const REQUIREMENTS = {\n")
	for _, r := range access.Requirements {
		lines := make([]string, len(r.AnyOf))
		for i, g := range r.AnyOf {
			scope := ""
			if g.Scope != access.ScopeAny {
				scope = "scope: " + quote(string(g.Scope)) + ", "
			}
			lines[i] = "{ " + scope + "permissions: [" + quoteList(g.Permissions) + "] }"
		}
		fmt.Fprintf(&b, "  %s: { anyOf: [%s] },\n", r.Name, strings.Join(lines, ", "))
	}
	b.WriteString("} as const satisfies Record<string, Requirement>;\n\n")
	b.WriteString("/** BUILT_IN_ROLES: the six read-only roles of the seed, with their scope flag and grants. */\n")
	b.WriteString("export const BUILT_IN_ROLES = [\n")
	for _, r := range access.BuiltInRoles {
		fmt.Fprintf(&b, "  { id: %d, name: %s, globalScope: %t, permissions: [%s] },\n", r.ID, quote(r.Name), r.Global, quoteList(r.Permissions))
	}
	b.WriteString("] as const satisfies readonly BuiltInRole[];\n")
	return b.Bytes()
}

// CheckRequirements compares the committed RequirementsFile with
// RenderRequirements, or writes it with PAYGATE_WRITE_CALL_RULES=1.
func CheckRequirements(t testing.TB) {
	t.Helper()
	checkFile(t, RequirementsFile, RenderRequirements(), "services/internal/access")
}

// checkFile compares the module name of Dir with want (from source), or
// writes it with PAYGATE_WRITE_CALL_RULES=1.
func checkFile(t testing.TB, name string, want []byte, source string) {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, Dir, name)
	if os.Getenv(WriteEnv) == "1" {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the console's copy of %s: %v; run make call-rules and commit", source, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s: run make call-rules and commit the file", filepath.Join(Dir, name), source)
	}
}

// moduleRoot finds the directory of go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

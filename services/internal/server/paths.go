package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/paygate/paygate/services/internal/apperr"
)

// routeRule is what the REST mapping says of a route: the request it
// fills and what its body binds ("*": the whole request).
type routeRule struct {
	input protoreflect.MessageDescriptor
	body  string
}

var (
	routeRulesOnce sync.Once
	// routeRules maps "METHOD /template" (as the mapping writes it) to its
	// rule, for every method of every service linked into the process.
	routeRules map[string]routeRule
	// capture is a path variable as runtime.Pattern.String writes it:
	// {id=*}.
	capture = regexp.MustCompile(`\{([^}=]+)=\*\}`)
)

func loadRouteRules() {
	routeRules = map[string]routeRule{}
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		for i := range fd.Services().Len() {
			methods := fd.Services().Get(i).Methods()
			for j := range methods.Len() {
				md := methods.Get(j)
				rule, _ := proto.GetExtension(md.Options(), annotations.E_Http).(*annotations.HttpRule)
				if rule == nil {
					continue
				}
				for _, r := range append([]*annotations.HttpRule{rule}, rule.GetAdditionalBindings()...) {
					method, path := httpPattern(r)
					if method != "" {
						routeRules[method+" "+path] = routeRule{input: md.Input(), body: r.GetBody()}
					}
				}
			}
		}
		return true
	})
}

func httpPattern(r *annotations.HttpRule) (method, path string) {
	switch p := r.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		return http.MethodGet, p.Get
	case *annotations.HttpRule_Post:
		return http.MethodPost, p.Post
	case *annotations.HttpRule_Put:
		return http.MethodPut, p.Put
	case *annotations.HttpRule_Delete:
		return http.MethodDelete, p.Delete
	case *annotations.HttpRule_Patch:
		return http.MethodPatch, p.Patch
	}
	return "", ""
}

// ruleOf returns the rule of the route r was matched to.
func ruleOf(r *http.Request) (routeRule, bool) {
	pat, ok := runtime.HTTPPattern(r.Context())
	if !ok {
		return routeRule{}, false
	}
	routeRulesOnce.Do(loadRouteRules)
	rule, ok := routeRules[r.Method+" "+capture.ReplaceAllString(pat.String(), "{$1}")]
	return rule, ok
}

// pathMatchesBody is the REST mux's middleware for a route whose body is the
// whole request (body "*") and whose path names a field too: grpc-gateway
// fills the field from the body, then from the path, so the path's value
// silently won (PUT /api/v1/fees/3 with {"id": "1"} changed fee 3). A body
// giving such a field another value than the path is refused, naming it; the
// same value, or none, passes. (guardBody has bounded and buffered the body.)
func pathMatchesBody(next runtime.HandlerFunc) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, pathParams map[string]string) {
		if len(pathParams) == 0 || r.Body == nil || r.ContentLength == 0 {
			next(w, r, pathParams)
			return
		}
		rule, ok := ruleOf(r)
		if !ok || rule.body != "*" {
			next(w, r, pathParams)
			return
		}
		data, err := io.ReadAll(r.Body)
		if err != nil {
			writeError(w, http.StatusBadRequest, apperr.KindInvalid, "The request body could not be read.")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(data))
		if name := pathBodyConflict(rule.input, pathParams, data); name != "" {
			writeError(w, http.StatusBadRequest, apperr.KindInvalid, fmt.Sprintf(
				"The body's %s differs from the path's: give the same value in both, or leave it out of the body.", name))
			return
		}
		next(w, r, pathParams)
	}
}

// pathBodyConflict returns the JSON name of a path parameter that the body
// (a JSON object) gives another value, or "". A body that is not an object,
// or a value of the wrong type, is left for the codec to refuse.
func pathBodyConflict(md protoreflect.MessageDescriptor, pathParams map[string]string, data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil {
		return ""
	}
	for param, pathValue := range pathParams {
		fd, jsonName := fieldAt(md, param)
		if fd == nil || strings.Contains(param, ".") {
			continue
		}
		for key, v := range obj {
			if !strings.EqualFold(key, fd.JSONName()) && !strings.EqualFold(key, string(fd.Name())) {
				continue
			}
			if !sameValue(fd, v, pathValue) {
				return jsonName
			}
		}
	}
	return ""
}

// sameValue reports whether a body's JSON value v is the path's text for
// field fd: numbers compare as numbers ("1", 1 and 1.0 are one id), text as
// text; null is no value.
func sameValue(fd protoreflect.FieldDescriptor, v any, pathValue string) bool {
	var text string
	switch x := v.(type) {
	case nil:
		return true
	case json.Number:
		text = string(x)
	case string:
		text = x
	case bool:
		text = fmt.Sprint(x)
	default:
		return true // an object or a list: the codec refuses it
	}
	switch fd.Kind() {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.EnumKind, protoreflect.BoolKind, protoreflect.MessageKind:
		return text == pathValue
	}
	a, okA := new(big.Rat).SetString(strings.TrimSpace(text))
	b, okB := new(big.Rat).SetString(pathValue)
	if !okA || !okB {
		return !okA // a body value that is no number is the codec's to refuse
	}
	return a.Cmp(b) == 0
}

package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/paygate/paygate/services/internal/apperr"
)

// The edge of every service: what a request must look like before any
// handler sees it. The REST codec (jsoncodec.go) checks each JSON value's
// shape against its field, the query parser each query value, the
// pathMatchesBody middleware (paths.go) a field given in both the path and
// the body, and the checkValues interceptor every string and every id of
// every request, REST and gRPC alike.
// Each refusal is a sentence naming the field by its JSON name; library text
// goes to the log only.

// inputError is a refusal of the request's shape. Its text is the public
// sentence: grpc-gateway flattens decoder errors into a status message, so
// the sentence is all that reaches restErrorHandler.
type inputError struct {
	sentence string
	cause    error
}

func (e *inputError) Error() string { return e.sentence }
func (e *inputError) Unwrap() error { return e.cause }

func refuse(cause error, format string, args ...any) error {
	return &inputError{sentence: fmt.Sprintf(format, args...), cause: cause}
}

// Sentences shared by the codec, the error handler and their tests.
const (
	msgNotJSON      = "The request body is not valid JSON."
	msgNotUTF8      = "The request body is not valid UTF-8 text."
	msgNotObject    = "The request body must be a JSON object."
	msgNotList      = "The request body must be a JSON list."
	msgInvalidInput = "The request is not valid. Check the values you sent and try again."
)

// TooLargeMessage is the sentence of a 413: a body over MaxBodyBytes.
var TooLargeMessage = fmt.Sprintf("The request body is larger than the limit of %d MiB.", MaxBodyBytes>>20)

// whatOne returns the phrase a value of fd's kind must be, e.g. "a whole
// number" (for a list or map field: what one item or value must be).
func whatOne(fd protoreflect.FieldDescriptor) string {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return "true or false"
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return "a whole number"
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return "a whole number of zero or more"
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return "a number"
	case protoreflect.StringKind:
		return "text"
	case protoreflect.BytesKind:
		return "base64 text"
	case protoreflect.EnumKind:
		return "one of " + enumNames(fd.Enum())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return whatMessage(fd.Message())
	}
	return "a valid value"
}

func whatMessage(md protoreflect.MessageDescriptor) string {
	switch md.FullName() {
	case "google.protobuf.Value":
		return "a JSON value"
	case "google.protobuf.ListValue":
		return "a list"
	case "google.protobuf.Timestamp":
		return "a date and time such as 2025-01-31T23:59:59Z"
	case "google.protobuf.Duration":
		return "a duration such as 1.5s"
	case "google.protobuf.FieldMask":
		return "a comma-separated list of field names"
	}
	if w := wrapperValue(md); w != nil {
		return whatOne(w)
	}
	return "an object"
}

// wrapperValue returns the value field of a google.protobuf wrapper type
// (Int32Value, StringValue, …), or nil.
func wrapperValue(md protoreflect.MessageDescriptor) protoreflect.FieldDescriptor {
	name := string(md.FullName())
	if !strings.HasPrefix(name, "google.protobuf.") || !strings.HasSuffix(name, "Value") ||
		name == "google.protobuf.Value" || name == "google.protobuf.ListValue" {
		return nil
	}
	return md.Fields().ByName("value")
}

func enumNames(ed protoreflect.EnumDescriptor) string {
	vals := ed.Values()
	names := make([]string, 0, vals.Len())
	for i := range vals.Len() {
		names = append(names, string(vals.Get(i).Name()))
	}
	return strings.Join(names, ", ")
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// checkMessage checks a decoded JSON value (after canonicalKeys) against md:
// every known field holds a value of its kind. Unknown keys are left for
// protojson to discard. path names md's place in the body ("" for the body).
func checkMessage(v any, md protoreflect.MessageDescriptor, path string) error {
	if v == nil {
		return nil
	}
	switch md.FullName() {
	case "google.protobuf.Value", "google.protobuf.Struct", "google.protobuf.Any", "google.protobuf.Empty":
		if md.FullName() == "google.protobuf.Struct" {
			if _, ok := v.(map[string]any); !ok {
				return refuse(nil, "%s must be an object.", nameOr(path, "The request body"))
			}
		}
		return nil
	}
	if !strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
		obj, ok := v.(map[string]any)
		if !ok {
			if path == "" {
				return refuse(nil, msgNotObject)
			}
			return refuse(nil, "%s must be an object.", path)
		}
		idx := indexOf(md)
		for key, val := range obj {
			fd, ok := idx[strings.ToLower(key)]
			if !ok {
				continue
			}
			if err := checkField(val, fd, join(path, fd.JSONName())); err != nil {
				return err
			}
		}
		return nil
	}
	// Other well-known types (Timestamp, Duration, wrappers, ListValue…):
	// protojson's own check, with our sentence.
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err != nil {
		return nil
	}
	msg := mt.New().Interface()
	data, err := json.Marshal(v)
	if err == nil {
		err = protojson.Unmarshal(data, msg)
	}
	if err != nil {
		return refuse(err, "%s must be %s.", nameOr(path, "The request body"), whatMessage(md))
	}
	return nil
}

func nameOr(path, fallback string) string {
	if path == "" {
		return fallback
	}
	return path
}

// checkField checks one field's JSON value; null is every field's default.
func checkField(v any, fd protoreflect.FieldDescriptor, path string) error {
	if v == nil {
		return nil
	}
	switch {
	case fd.IsMap():
		obj, ok := v.(map[string]any)
		if !ok {
			return refuse(nil, "%s must be an object.", path)
		}
		for k, item := range obj {
			if err := checkScalarText(fd.MapKey(), k); err != nil {
				return refuse(err, "The keys of %s must be %s.", path, whatOne(fd.MapKey()))
			}
			if fd.MapValue().Kind() == protoreflect.StringKind {
				if _, ok := item.(string); !ok {
					return refuse(nil, "%s.%s must be text, a number, true, false or null.", path, k)
				}
				continue
			}
			if err := checkOne(item, fd.MapValue(), path+"."+k); err != nil {
				return err
			}
		}
		return nil
	case fd.IsList():
		items, ok := v.([]any)
		if !ok {
			return refuse(nil, "%s must be a list.", path)
		}
		for i, item := range items {
			if item == nil {
				return refuse(nil, "%s must not hold null (item %d).", path, i+1)
			}
			if fd.Kind() == protoreflect.MessageKind {
				if err := checkMessage(item, fd.Message(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			} else if err := checkOne(item, fd, path); err != nil {
				return refuse(err, "Each item of %s must be %s.", path, whatOne(fd))
			}
		}
		return nil
	}
	return checkOne(v, fd, path)
}

// checkOne checks a single (non-list) value of fd's kind.
func checkOne(v any, fd protoreflect.FieldDescriptor, path string) error {
	if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
		return checkMessage(v, fd.Message(), path)
	}
	bad := func(cause error) error { return refuse(cause, "%s must be %s.", path, whatOne(fd)) }
	switch x := v.(type) {
	case string:
		if fd.Kind() == protoreflect.StringKind {
			return nil
		}
		if err := checkScalarText(fd, x); err != nil {
			return bad(err)
		}
	case json.Number:
		if err := checkNumber(fd, x); err != nil {
			return bad(err)
		}
	case bool:
		if fd.Kind() != protoreflect.BoolKind {
			return bad(nil)
		}
	default:
		return bad(nil)
	}
	return nil
}

// checkNumber checks a JSON number against a numeric or enum field.
func checkNumber(fd protoreflect.FieldDescriptor, n json.Number) error {
	switch fd.Kind() {
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		_, err := strconv.ParseFloat(string(n), 64)
		return err
	case protoreflect.StringKind, protoreflect.BoolKind, protoreflect.BytesKind:
		return fmt.Errorf("a number for a %s field", fd.Kind())
	}
	return checkInteger(fd, string(n))
}

// checkInteger checks s (a JSON number or the text of one) against an integer
// or enum field's range. protojson accepts 1e3 and 5.0 as whole numbers too.
func checkInteger(fd protoreflect.FieldDescriptor, s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	if f != math.Trunc(f) {
		return fmt.Errorf("%s is not whole", s)
	}
	lo, hi := -float64(1<<31), float64(1<<31-1)
	switch fd.Kind() {
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		lo, hi = -float64(1<<63), float64(1<<63-1)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		lo, hi = 0, float64(1<<32-1)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		lo, hi = 0, float64(1<<64-1)
	}
	if f < lo || f > hi {
		return fmt.Errorf("%s is out of range", s)
	}
	return nil
}

// checkScalarText checks text given for a non-string field: numbers as
// digits, bools as true/false, enums by name or number, bytes as base64.
// REST query values and JSON strings both come this way.
func checkScalarText(fd protoreflect.FieldDescriptor, s string) error {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return nil
	case protoreflect.BoolKind:
		if s != "true" && s != "false" {
			return fmt.Errorf("%q is not true or false", s)
		}
		return nil
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		switch s {
		case "NaN", "Infinity", "-Infinity":
			return nil
		}
		_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err == nil && strings.TrimSpace(s) != s {
			err = fmt.Errorf("%q has spaces", s)
		}
		return err
	case protoreflect.EnumKind:
		if fd.Enum().Values().ByName(protoreflect.Name(s)) != nil {
			return nil
		}
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return err
		}
		if fd.Enum().Values().ByNumber(protoreflect.EnumNumber(n)) == nil && fd.Enum().IsClosed() {
			return fmt.Errorf("%d is not a value of %s", n, fd.Enum().FullName())
		}
		return nil
	case protoreflect.BytesKind:
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			if _, err2 := base64.URLEncoding.DecodeString(s); err2 != nil {
				return err
			}
		}
		return nil
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if w := wrapperValue(fd.Message()); w != nil {
			return checkScalarText(w, s)
		}
		return nil
	}
	for _, r := range s {
		if (r < '0' || r > '9') && r != '-' {
			return fmt.Errorf("%q is not an integer", s)
		}
	}
	return checkInteger(fd, s)
}

// checkQuery checks query values against the fields they name (by canonical,
// dotted proto path) before grpc-gateway's parser sees them.
func checkQuery(md protoreflect.MessageDescriptor, key string, vals []string) error {
	fd, jsonPath := fieldAt(md, key)
	if fd == nil {
		return nil
	}
	if len(vals) > 1 && !fd.IsList() {
		return refuse(nil, "%s must be given once.", jsonPath)
	}
	if fd.IsMap() {
		return nil
	}
	if fd.Kind() == protoreflect.MessageKind && wrapperValue(fd.Message()) == nil &&
		fd.Message().FullName() != "google.protobuf.Timestamp" && fd.Message().FullName() != "google.protobuf.Duration" &&
		fd.Message().FullName() != "google.protobuf.FieldMask" {
		return nil
	}
	for _, v := range vals {
		if err := checkScalarText(fd, v); err != nil {
			if fd.IsList() {
				return refuse(err, "Each value of %s must be %s.", jsonPath, whatOne(fd))
			}
			return refuse(err, "%s must be %s.", jsonPath, whatOne(fd))
		}
	}
	return nil
}

// fieldAt resolves a dotted proto path (as canonicalPath writes it) to its
// field and the path's JSON spelling.
func fieldAt(md protoreflect.MessageDescriptor, path string) (protoreflect.FieldDescriptor, string) {
	var fd protoreflect.FieldDescriptor
	var names []string
	for _, part := range strings.Split(path, ".") {
		if md == nil {
			return nil, ""
		}
		fd = md.Fields().ByName(protoreflect.Name(part))
		if fd == nil {
			return nil, ""
		}
		names = append(names, fd.JSONName())
		md = nil
		if fd.Kind() == protoreflect.MessageKind && !fd.IsList() && !fd.IsMap() {
			md = fd.Message()
		}
	}
	return fd, strings.Join(names, ".")
}

// checkValues is the interceptor that refuses, for every RPC on either
// transport, a request holding a string with a NUL character or invalid
// UTF-8 anywhere (fields, list items, map keys and values, JSON objects in
// google.protobuf.Struct): Postgres cannot store either, and no field of
// ours has a use for them; and a request holding a negative id anywhere
// (idError): no id of ours is negative, and a store would answer it with an
// empty list rather than a refusal.
func checkValues(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if msg, ok := req.(proto.Message); ok {
		if err := valuesError(msg.ProtoReflect()); err != nil {
			return nil, err
		}
	}
	return handler(ctx, req)
}

// streamCheckValues applies checkValues to every message a stream
// receives.
func streamCheckValues(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return handler(srv, &checkedStream{ServerStream: ss})
}

func valuesError(m protoreflect.Message) error {
	if err := textError(m, ""); err != nil {
		return err
	}
	return idError(m, "")
}

// isIDField reports whether fd holds ids: an integer field named id or
// ending in _id or _ids.
func isIDField(fd protoreflect.FieldDescriptor) bool {
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
	default:
		return false
	}
	name := string(fd.Name())
	return name == "id" || strings.HasSuffix(name, "_id") || strings.HasSuffix(name, "_ids")
}

// idError walks m's populated fields, nested messages included (not
// google.protobuf's), for a negative id, and refuses it naming the field.
func idError(m protoreflect.Message, path string) error {
	if strings.HasPrefix(string(m.Descriptor().FullName()), "google.protobuf.") {
		return nil
	}
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		p := join(path, fd.JSONName())
		switch {
		case fd.IsMap():
			if fd.MapValue().Kind() == protoreflect.MessageKind {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					err = idError(mv.Message(), p)
					return err == nil
				})
			}
		case fd.Kind() == protoreflect.MessageKind:
			if fd.IsList() {
				for i := range v.List().Len() {
					if err = idError(v.List().Get(i).Message(), p); err != nil {
						break
					}
				}
			} else {
				err = idError(v.Message(), p)
			}
		case isIDField(fd):
			if fd.IsList() {
				for i := range v.List().Len() {
					if v.List().Get(i).Int() < 0 {
						err = apperr.Invalid("%s must not be negative.", p)
						break
					}
				}
			} else if v.Int() < 0 {
				err = apperr.Invalid("%s must not be negative.", p)
			}
		}
		return err == nil
	})
	return err
}

type checkedStream struct{ grpc.ServerStream }

func (s *checkedStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	if msg, ok := m.(proto.Message); ok {
		return valuesError(msg.ProtoReflect())
	}
	return nil
}

func badText(s string) bool {
	return strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s)
}

func textRefusal(path string) error {
	return apperr.Invalid("%s must be text without NUL characters or invalid UTF-8.", path)
}

// textError walks m's populated fields for bad text.
func textError(m protoreflect.Message, path string) error {
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		p := join(path, fd.JSONName())
		if m.Descriptor().FullName() == "google.protobuf.Struct" || m.Descriptor().FullName() == "google.protobuf.Value" ||
			m.Descriptor().FullName() == "google.protobuf.ListValue" {
			p = path // a JSON value's inner fields are not the caller's names
		}
		switch {
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if fd.MapKey().Kind() == protoreflect.StringKind && badText(k.String()) {
					err = textRefusal(p)
					return false
				}
				err = textValue(fd.MapValue(), mv, p)
				return err == nil
			})
		case fd.IsList():
			l := v.List()
			for i := range l.Len() {
				if err = textValue(fd, l.Get(i), p); err != nil {
					break
				}
			}
		default:
			err = textValue(fd, v, p)
		}
		return err == nil
	})
	return err
}

func textValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, path string) error {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if badText(v.String()) {
			return textRefusal(path)
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return textError(v.Message(), path)
	}
	return nil
}

// pathMismatch is grpc-gateway's text for a path parameter it could not
// convert (generated code; no hook replaces it).
var pathMismatch = regexp.MustCompile(`^type mismatch, parameter: ([A-Za-z0-9_.]+), error: (.*)$`)

// libraryText marks a status message written by a library rather than by us.
var libraryText = regexp.MustCompile(`proto:|strconv\.|json:|Go value|invalid UTF-8|syntax error|unexpected token|type mismatch|unmarshal|parsing "|rpc error`)

// publicInvalid turns the message of an InvalidArgument status raised before
// a handler ran (by grpc-gateway or our codec) into the sentence the caller
// sees, and reports whether the original was library text (for the log).
func publicInvalid(msg string) (sentence string, library bool) {
	if m := pathMismatch.FindStringSubmatch(msg); m != nil {
		name := lowerCamel(m[1])
		switch {
		case strings.Contains(m[2], "ParseInt"), strings.Contains(m[2], "ParseUint"):
			return name + " must be a whole number.", true
		case strings.Contains(m[2], "ParseBool"):
			return name + " must be true or false.", true
		case strings.Contains(m[2], "ParseFloat"):
			return name + " must be a number.", true
		}
		return name + " is not valid.", true
	}
	if msg == "" || libraryText.MatchString(msg) {
		return msgInvalidInput, true
	}
	return msg, false
}

// lowerCamel spells a proto field name (collab_id) as its JSON name (collabId).
func lowerCamel(name string) string {
	var b strings.Builder
	upper := false
	for _, r := range name {
		if r == '_' {
			upper = true
			continue
		}
		if upper && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		upper = false
		b.WriteRune(r)
	}
	return b.String()
}

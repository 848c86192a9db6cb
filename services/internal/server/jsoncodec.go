package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// JSONMarshaler is the REST codec: protojson with the protos' camelCase names
// and zero values emitted on output; on input, object keys are matched to
// fields case-insensitively (the console sends both camelCase and
// PascalCase), by JSON name or proto name, and unknown keys are discarded.
type JSONMarshaler struct {
	runtime.JSONPb
}

// NewJSONMarshaler returns the REST codec.
func NewJSONMarshaler() *JSONMarshaler {
	return &JSONMarshaler{JSONPb: runtime.JSONPb{
		MarshalOptions:   protojson.MarshalOptions{EmitUnpopulated: true},
		UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: true},
	}}
}

// Unmarshal renames data's keys to the fields of v's message type, checks
// each value's shape against its field (input.go), then decodes it with
// protojson. Every error is a sentence for the caller (inputError).
func (m *JSONMarshaler) Unmarshal(data []byte, v any) error {
	raw, err := decodeRaw(data)
	if err != nil {
		return err
	}
	md, isList := descriptorOf(v)
	if md == nil {
		return m.unmarshalPlain(data, v)
	}
	return m.unmarshalRaw(raw, md, isList, v)
}

// unmarshalPlain decodes a body bound to a field that is not a message (a
// list of ids, say) with protojson's rules, refusing in a sentence.
func (m *JSONMarshaler) unmarshalPlain(data []byte, v any) error {
	if err := m.JSONPb.Unmarshal(data, v); err != nil {
		return refuse(err, "The request body must be %s.", plainShape(reflect.TypeOf(v)))
	}
	return nil
}

// plainShape names the JSON shape of a Go value grpc-gateway decodes a body
// into: "a list of whole numbers" for *[]int32.
func plainShape(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "valid JSON"
	}
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "base64 text"
		}
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(plainShape(t.Elem()), "a "), "an ")
	case reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Uint64:
		return "whole numbers"
	case reflect.Float32, reflect.Float64:
		return "numbers"
	case reflect.Bool:
		return "true or false values"
	case reflect.String:
		return "texts"
	}
	return "valid JSON"
}

// NewDecoder returns a decoder that reads one JSON body from r and decodes it
// like Unmarshal. An empty body is io.EOF, which grpc-gateway accepts as "no
// body". The body's size, UTF-8 and JSON syntax were checked at the edge
// (guardBody) before the route was matched.
func (m *JSONMarshaler) NewDecoder(r io.Reader) runtime.Decoder {
	return runtime.DecoderFunc(func(v any) error {
		data, err := io.ReadAll(r)
		if err != nil {
			return refuse(err, "The request body could not be read.")
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return io.EOF
		}
		return m.Unmarshal(data, v)
	})
}

// decodeRaw decodes one JSON value, numbers kept as json.Number.
func decodeRaw(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, refuse(nil, msgNotUTF8)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, refuse(err, msgNotJSON)
	}
	if dec.More() {
		return nil, refuse(nil, msgNotJSON)
	}
	return raw, nil
}

func (m *JSONMarshaler) unmarshalRaw(raw any, md protoreflect.MessageDescriptor, isList bool, v any) error {
	if isList {
		items, ok := raw.([]any)
		if !ok && raw != nil {
			return refuse(nil, msgNotList)
		}
		for i, item := range items {
			items[i] = canonicalKeys(item, md)
			if err := checkMessage(items[i], md, fmt.Sprintf("Item %d of the list", i+1)); err != nil {
				return err
			}
		}
	} else {
		raw = canonicalKeys(raw, md)
		if err := checkMessage(raw, md, ""); err != nil {
			return err
		}
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return refuse(err, msgInvalidInput)
	}
	if err := m.JSONPb.Unmarshal(data, v); err != nil {
		return refuse(err, msgInvalidInput)
	}
	return nil
}

var protoMessageType = reflect.TypeFor[proto.Message]()

// descriptorOf returns the message type v decodes into: v itself (*Msg), a
// pointer to a message pointer (**Msg, a body: "field" binding), or a pointer
// to a slice of message pointers (isList).
func descriptorOf(v any) (md protoreflect.MessageDescriptor, isList bool) {
	if msg, ok := v.(proto.Message); ok {
		return msg.ProtoReflect().Descriptor(), false
	}
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer {
		return nil, false
	}
	elem := t.Elem()
	if elem.Kind() == reflect.Slice {
		elem, isList = elem.Elem(), true
	}
	if elem.Kind() == reflect.Pointer && elem.Implements(protoMessageType) {
		msg := reflect.New(elem.Elem()).Interface().(proto.Message)
		return msg.ProtoReflect().Descriptor(), isList
	}
	return nil, false
}

// fieldIndex maps lower-cased JSON and proto names to the fields of a message.
type fieldIndex map[string]protoreflect.FieldDescriptor

var fieldIndexes sync.Map // protoreflect.FullName → fieldIndex

func indexOf(md protoreflect.MessageDescriptor) fieldIndex {
	if idx, ok := fieldIndexes.Load(md.FullName()); ok {
		return idx.(fieldIndex)
	}
	idx := fieldIndex{}
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		idx[strings.ToLower(string(fd.Name()))] = fd
		idx[strings.ToLower(fd.JSONName())] = fd
	}
	fieldIndexes.Store(md.FullName(), idx)
	return idx
}

// canonicalKeys renames the keys of a decoded JSON object to the JSON names
// of md's fields, matching case-insensitively, recursing into message, list
// and map values. A key that already has the canonical spelling wins over a
// differently cased duplicate. Keys without a field are left for protojson to
// discard. Well-known types keep their special JSON forms untouched.
func canonicalKeys(v any, md protoreflect.MessageDescriptor) any {
	obj, ok := v.(map[string]any)
	if !ok || strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
		return v
	}
	idx := indexOf(md)
	out := make(map[string]any, len(obj))
	exact := map[string]bool{}
	for key, val := range obj {
		fd, ok := idx[strings.ToLower(key)]
		if !ok {
			out[key] = val
			continue
		}
		name := fd.JSONName()
		isExact := key == name || key == string(fd.Name())
		if _, taken := out[name]; taken && (exact[name] || !isExact) {
			continue
		}
		out[name] = canonicalValue(val, fd)
		exact[name] = isExact
	}
	return out
}

func canonicalValue(v any, fd protoreflect.FieldDescriptor) any {
	switch {
	case fd.IsMap():
		if fd.MapValue().Kind() == protoreflect.StringKind {
			return textMap(v)
		}
		if fd.MapValue().Kind() != protoreflect.MessageKind {
			return v
		}
		if m, ok := v.(map[string]any); ok {
			for k, item := range m {
				m[k] = canonicalKeys(item, fd.MapValue().Message())
			}
		}
		return v
	case fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind:
		return v
	case fd.IsList():
		if items, ok := v.([]any); ok {
			for i, item := range items {
				items[i] = canonicalKeys(item, fd.Message())
			}
		}
		return v
	default:
		return canonicalKeys(v, fd.Message())
	}
}

// textMap lets a map of texts (collab settings) take JSON booleans, numbers
// and null as well, as their text: true → "true", 1.5 → "1.5", null →
// "null". The console reads settings as booleans and numbers and may send
// them back typed. Objects and lists stay, for checkField to refuse.
func textMap(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	for k, item := range m {
		switch x := item.(type) {
		case bool:
			m[k] = strconv.FormatBool(x)
		case json.Number:
			m[k] = string(x)
		case nil:
			m[k] = "null"
		}
	}
	return v
}

// queryParser matches query parameter names case-insensitively, like the JSON
// body, then fills the message with grpc-gateway's default parser. Names are
// rewritten to proto names so that path parameters (filtered by proto name)
// keep precedence over query parameters.
type queryParser struct {
	runtime.DefaultQueryParser
}

// Parse implements runtime.QueryParameterParser.
func (p *queryParser) Parse(msg proto.Message, values url.Values, filter *utilities.DoubleArray) error {
	md := msg.ProtoReflect().Descriptor()
	renamed := make(url.Values, len(values))
	for key, vals := range values {
		renamed[canonicalPath(key, md)] = append(renamed[canonicalPath(key, md)], vals...)
	}
	for key, vals := range renamed {
		if err := checkQuery(md, key, vals); err != nil {
			return err
		}
	}
	if err := p.DefaultQueryParser.Parse(msg, renamed, filter); err != nil {
		return refuse(err, msgInvalidInput)
	}
	return nil
}

// canonicalPath rewrites a dotted field path to proto names, segment by
// segment, as far as the segments name fields.
func canonicalPath(path string, md protoreflect.MessageDescriptor) string {
	parts := strings.Split(path, ".")
	for i, part := range parts {
		if md == nil {
			break
		}
		fd, ok := indexOf(md)[strings.ToLower(part)]
		if !ok {
			break
		}
		parts[i] = string(fd.Name())
		md = nil
		if fd.Kind() == protoreflect.MessageKind && !fd.IsList() && !fd.IsMap() {
			md = fd.Message()
		}
	}
	return strings.Join(parts, ".")
}

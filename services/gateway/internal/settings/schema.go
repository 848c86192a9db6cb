package settings

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/paygate/paygate/services/internal/apperr"
)

// Type is the JSON type a schema accepts.
type Type string

// The types a setting (or a field of one) may have.
const (
	TypeInteger Type = "integer"
	TypeNumber  Type = "number"
	TypeBoolean Type = "boolean"
	TypeString  Type = "string"
	TypeArray   Type = "array"
	TypeObject  Type = "object"
)

// maxSafeInteger is the largest integer a JSON number (a double) holds
// exactly.
const maxSafeInteger = 1 << 53

// Schema says what values a setting, or a field of an object setting, takes.
type Schema struct {
	// Type is the JSON type.
	Type Type
	// Min and Max bound a number or an integer, or an array's length; nil
	// means no bound.
	Min, Max *float64
	// MaxLength bounds a string's length in characters; 0 means no bound.
	MaxLength int
	// Items is the schema of an array's items.
	Items *Schema
	// Fields are an object's fields, every one required, no other accepted.
	Fields []Field
	// Nullable accepts null as well.
	Nullable bool
}

// Field is one field of an object schema.
type Field struct {
	// Name is the field's JSON name.
	Name string
	// Description says what it means.
	Description string
	// Schema is what it takes.
	Schema Schema
}

// Bound returns a pointer to v, for Schema.Min and Schema.Max.
func Bound(v float64) *float64 { return &v }

// Integer is an integer schema from min to max.
func Integer(minimum, maximum float64) Schema {
	return Schema{Type: TypeInteger, Min: Bound(minimum), Max: Bound(maximum)}
}

// Number is a number schema from min to max.
func Number(minimum, maximum float64) Schema {
	return Schema{Type: TypeNumber, Min: Bound(minimum), Max: Bound(maximum)}
}

// Object is an object schema with fields.
func Object(fields ...Field) Schema { return Schema{Type: TypeObject, Fields: fields} }

// Describe names what s accepts, to end "must be …": "an integer from 1 to
// 1440".
func (s Schema) Describe() string {
	var d string
	switch s.Type {
	case TypeInteger:
		d = "an integer" + s.rangeText("")
	case TypeNumber:
		d = "a number" + s.rangeText("")
	case TypeBoolean:
		d = "true or false"
	case TypeString:
		d = "a text"
		if s.MaxLength > 0 {
			d += fmt.Sprintf(" of at most %d characters", s.MaxLength)
		}
	case TypeArray:
		d = "a list"
		if s.Items != nil {
			d += " of " + strings.TrimPrefix(strings.TrimPrefix(s.Items.Describe(), "an "), "a ")
		}
		d += s.rangeText(" items")
	case TypeObject:
		names := make([]string, len(s.Fields))
		for i, f := range s.Fields {
			names[i] = f.Name
		}
		d = "an object with the fields " + strings.Join(names, ", ")
	default:
		d = "a JSON value"
	}
	if s.Nullable {
		d += ", or null"
	}
	return d
}

func (s Schema) rangeText(unit string) string {
	switch {
	case s.Min != nil && s.Max != nil:
		return fmt.Sprintf(" from %s to %s%s", num(*s.Min), num(*s.Max), unit)
	case s.Min != nil:
		return fmt.Sprintf(" of at least %s%s", num(*s.Min), unit)
	case s.Max != nil:
		return fmt.Sprintf(" of at most %s%s", num(*s.Max), unit)
	}
	return ""
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Check validates v, a decoded JSON value (nil, bool, float64, string,
// []any, map[string]any), against s. path names the value in the message
// of the invalid error it returns: "FraudDetection.velocityWindowMinutes
// must be an integer from 1 to 1440 (it is 0)."
func (s Schema) Check(path string, v any) error {
	if v == nil {
		if s.Nullable {
			return nil
		}
		return apperr.Invalid("%s must be %s, not null.", path, s.Describe())
	}
	wrongType := func() error {
		return apperr.Invalid("%s must be %s (it is %s).", path, s.Describe(), kindOf(v))
	}
	outOfRange := func(got string) error {
		return apperr.Invalid("%s must be %s (it is %s).", path, s.Describe(), got)
	}
	switch s.Type {
	case TypeInteger, TypeNumber:
		f, ok := v.(float64)
		if !ok {
			return wrongType()
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return outOfRange("not a finite number")
		}
		if s.Type == TypeInteger && (f != math.Trunc(f) || math.Abs(f) > maxSafeInteger) {
			return outOfRange(num(f))
		}
		if (s.Min != nil && f < *s.Min) || (s.Max != nil && f > *s.Max) {
			return outOfRange(num(f))
		}
	case TypeBoolean:
		if _, ok := v.(bool); !ok {
			return wrongType()
		}
	case TypeString:
		text, ok := v.(string)
		if !ok {
			return wrongType()
		}
		if n := utf8.RuneCountInString(text); s.MaxLength > 0 && n > s.MaxLength {
			return outOfRange(fmt.Sprintf("%d characters long", n))
		}
	case TypeArray:
		items, ok := v.([]any)
		if !ok {
			return wrongType()
		}
		n := float64(len(items))
		if (s.Min != nil && n < *s.Min) || (s.Max != nil && n > *s.Max) {
			return outOfRange(fmt.Sprintf("%d items long", len(items)))
		}
		if s.Items != nil {
			for i, item := range items {
				if err := s.Items.Check(fmt.Sprintf("%s[%d]", path, i), item); err != nil {
					return err
				}
			}
		}
	case TypeObject:
		obj, ok := v.(map[string]any)
		if !ok {
			return wrongType()
		}
		return s.checkFields(path, obj)
	}
	return nil
}

// checkFields checks an object's fields in the schema's order, then refuses
// fields the schema does not name (in name order, for a stable message).
func (s Schema) checkFields(path string, obj map[string]any) error {
	if len(s.Fields) == 0 {
		return nil
	}
	known := make(map[string]bool, len(s.Fields))
	for _, f := range s.Fields {
		known[f.Name] = true
		v, ok := obj[f.Name]
		if !ok {
			return apperr.Invalid("%s.%s is required: it must be %s.", path, f.Name, f.Schema.Describe())
		}
		if err := f.Schema.Check(path+"."+f.Name, v); err != nil {
			return err
		}
	}
	var unknown []string
	for name := range obj {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return apperr.Invalid("%s.%s is not a field of %s, which is %s.", path, clip(unknown[0]), path, s.Describe())
	}
	return nil
}

// kindOf names the JSON type of a decoded value.
func kindOf(v any) string {
	switch x := v.(type) {
	case bool:
		return "a boolean"
	case float64:
		return "the number " + num(x)
	case string:
		return "a text"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "null"
}

// clip shortens a name the caller sent to at most 60 characters, for a
// message.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= 60 {
		return s
	}
	return string([]rune(s)[:60]) + "…"
}

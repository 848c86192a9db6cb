package sensitive

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Described is the canonical description of one sensitive call: what a confirmation signs.
type Described struct {
	// Action is the action's name.
	Action string `json:"action"`
	// Method is the full gRPC method called.
	Method string `json:"method"`
	// Targets are the request's values that identify what changes.
	Targets map[string]any `json:"targets"`
	// Values is the whole request (protojson, JSON names), secrets as "sha256:<hex>".
	Values map[string]any `json:"values"`
	// Observed are the target's values as the owning service read them when it first refused
	// the call: the change applies only while the target still has them.
	Observed map[string]any `json:"observed,omitempty"`
	// Reason is why the change is made.
	Reason string `json:"reason,omitempty"`
}

// Describe describes a call of a's method with req, the observed values and the reason.
func Describe(a Action, req proto.Message, observed map[string]any, reason string) (Described, error) {
	raw, err := protojson.MarshalOptions{}.Marshal(req)
	if err != nil {
		return Described{}, fmt.Errorf("describe %s: %w", a.Name, err)
	}
	values, err := decodeObject(raw)
	if err != nil {
		return Described{}, fmt.Errorf("describe %s: %w", a.Name, err)
	}
	for _, f := range a.Secrets {
		if v, ok := values[f]; ok {
			values[f] = digestSecrets(v)
		}
	}
	targets := map[string]any{}
	for _, f := range a.Targets {
		if v, ok := values[f]; ok {
			targets[f] = v
		}
	}
	d := Described{Action: a.Name, Method: a.Method, Targets: targets, Values: values, Reason: reason}
	if len(observed) > 0 {
		// Round-trip through JSON so that what is compared later is what was signed.
		b, err := json.Marshal(observed)
		if err != nil {
			return Described{}, fmt.Errorf("describe %s: observed: %w", a.Name, err)
		}
		if d.Observed, err = decodeObject(b); err != nil {
			return Described{}, fmt.Errorf("describe %s: observed: %w", a.Name, err)
		}
	}
	return d, nil
}

// digestSecrets replaces a secret (a string, or every value of a map or list) by its SHA-256.
func digestSecrets(v any) any {
	switch t := v.(type) {
	case string:
		sum := sha256.Sum256([]byte(t))
		return "sha256:" + hex.EncodeToString(sum[:])
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = digestSecrets(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = digestSecrets(x)
		}
		return out
	default:
		b, _ := json.Marshal(t)
		return digestSecrets(string(b))
	}
}

func decodeObject(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// Canonical is the description's canonical encoding: objects with sorted keys, no insignificant
// whitespace, numbers as written. Equal descriptions have equal encodings.
func (d Described) Canonical() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if d.Targets == nil {
		d.Targets = map[string]any{}
	}
	if d.Values == nil {
		d.Values = map[string]any{}
	}
	// Struct fields keep their declared order; maps are sorted by encoding/json.
	if err := enc.Encode(d); err != nil {
		// Only values decoded from JSON are held, so this cannot fail.
		panic(fmt.Sprintf("sensitive: canonical encoding: %v", err))
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// Parse reads a canonical description; it fails unless b is exactly the canonical encoding of
// what it holds.
func Parse(b []byte) (Described, error) {
	var d Described
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return Described{}, fmt.Errorf("parse description: %w", err)
	}
	if !bytes.Equal(d.Canonical(), b) {
		return Described{}, fmt.Errorf("parse description: not in canonical form")
	}
	if _, ok := ByName(d.Action); !ok {
		return Described{}, fmt.Errorf("parse description: unknown action %q", d.Action)
	}
	return d, nil
}

// Digest is the hex SHA-256 of a canonical description.
func Digest(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}

// Challenge is the WebAuthn challenge bound to a description, the user, a server nonce and an
// expiry: SHA-256("paygate-confirmation-v1\n" ‖ canonical ‖ "\n" ‖ userId ‖ "\n" ‖ nonce ‖ "\n" ‖ expiresAt unix).
func Challenge(canonical []byte, userID int64, nonce string, expiresAt time.Time) []byte {
	h := sha256.New()
	h.Write([]byte("paygate-confirmation-v1\n"))
	h.Write(canonical)
	h.Write([]byte("\n" + strconv.FormatInt(userID, 10) + "\n" + nonce + "\n" + strconv.FormatInt(expiresAt.Unix(), 10)))
	return h.Sum(nil)
}

// Amount returns the observed amount and currency of a description, for thresholds.
func (d Described) Amount(a Action) (amount, currency string, ok bool) {
	if a.Amount == "" {
		return "", "", false
	}
	v, ok := d.Observed[a.Amount]
	if !ok {
		return "", "", false
	}
	c, _ := d.Observed[a.Currency].(string)
	return fmt.Sprint(v), c, true
}

// Count returns the number of items of a bulk description, for thresholds.
func (d Described) Count(a Action) (int, bool) {
	if a.Count == "" {
		return 0, false
	}
	switch v := d.Values[a.Count].(type) {
	case []any:
		return len(v), true
	case float64:
		return int(v), true
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil
	case string:
		// protojson writes an int64 as a string.
		n, err := strconv.ParseInt(v, 10, 64)
		return int(n), err == nil
	}
	return 0, false
}

// SameChange reports whether two descriptions describe the same change (all but the order of
// list values, which stays significant).
func SameChange(a, b Described) bool { return slices.Equal(a.Canonical(), b.Canonical()) }

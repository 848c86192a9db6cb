package balance

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// MaxDepth is how deep an answer is searched (spec 02 §7): the top level's
// keys are depth 1.
const MaxDepth = 3

// The keys searched, in order of preference at one depth, lower case.
var (
	amountKeys      = []string{"balance", "amount", "balanceamount", "availablebalance"}
	currencyKeys    = []string{"currency", "currencycode", "ccy"}
	dateKeys        = []string{"updatedat", "date", "timestamp", "lastupdated", "asof", "time"}
	accountKeys     = []string{"accountid", "account", "accountnumber", "accountno", "merchantaccount"}
	accountTypeKeys = []string{"accounttype"}
	liveKeys        = []string{"islive", "live", "mode", "environment", "env", "sandbox"}
	successKeys     = []string{"success", "status", "ok", "issuccess"}
)

var decimalText = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// found is what search finds in an answer.
type found struct {
	amount, currency, date, account, accountType string
	amountPath                                   string
	live, failed                                 bool
	additional                                   map[string]string
}

// node is one object of the answer at a depth, with its path.
type node struct {
	obj   map[string]any
	path  string
	depth int
}

// search walks the answer's objects breadth first to MaxDepth; at each
// depth the first matching key in preference order wins, and a shallower
// match wins over a deeper one.
func search(v any) found {
	f := found{additional: map[string]string{}}
	level := objectsOf(v, "", 1)
	var all []node
	for depth := 1; depth <= MaxDepth && len(level) > 0; depth++ {
		all = append(all, level...)
		var next []node
		for _, n := range level {
			for _, k := range slices.Sorted(maps.Keys(n.obj)) {
				next = append(next, objectsOf(n.obj[k], join(n.path, k), depth+1)...)
			}
		}
		level = next
	}
	pick := func(keys []string, accept func(any) (string, bool)) (string, string) {
		for depth := 1; depth <= MaxDepth; depth++ {
			for _, want := range keys {
				for _, n := range all {
					if n.depth != depth {
						continue
					}
					for _, k := range slices.Sorted(maps.Keys(n.obj)) {
						if strings.ToLower(k) != want {
							continue
						}
						if s, ok := accept(n.obj[k]); ok {
							return s, join(n.path, k)
						}
					}
				}
			}
		}
		return "", ""
	}
	f.amount, f.amountPath = pick(amountKeys, decimalOf)
	f.currency, _ = pick(currencyKeys, func(x any) (string, bool) {
		s, ok := x.(string)
		s = strings.ToUpper(strings.TrimSpace(s))
		return s, ok && len(s) >= 3 && len(s) <= 5
	})
	f.date, _ = pick(dateKeys, textOf)
	f.account, _ = pick(accountKeys, textOf)
	f.accountType, _ = pick(accountTypeKeys, textOf)
	if s, key := pick(liveKeys, func(x any) (string, bool) {
		switch y := x.(type) {
		case bool:
			return strconv.FormatBool(y), true
		case string:
			return strings.ToLower(y), y != ""
		}
		return "", false
	}); s != "" {
		f.live = s == "true" || s == "live" || s == "production" || s == "prod"
		if strings.EqualFold(key[strings.LastIndex(key, ".")+1:], "sandbox") {
			// "sandbox": true is the one marker whose true means not live.
			f.live = s == "false"
		}
	}
	if s, _ := pick(successKeys, func(x any) (string, bool) {
		switch y := x.(type) {
		case bool:
			return strconv.FormatBool(y), true
		case string:
			return strings.ToLower(y), y != ""
		}
		return "", false
	}); s == "false" || s == "error" || s == "failed" || s == "fail" {
		f.failed = true
	}
	// Other balances: keys naming a balance (pendingBalance, reserved…)
	// that hold a decimal, besides the amount itself.
	for _, n := range all {
		for k, x := range n.obj {
			p := join(n.path, k)
			lk := strings.ToLower(k)
			if p == f.amountPath || !(strings.Contains(lk, "balance") || lk == "pending" || lk == "reserved" || lk == "available" || lk == "onhold") {
				continue
			}
			if s, ok := decimalOf(x); ok {
				f.additional[k] = s
			}
		}
	}
	return f
}

func objectsOf(v any, path string, depth int) []node {
	if depth > MaxDepth {
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		return []node{{obj: x, path: path, depth: depth}}
	case []any:
		// A list's objects sit at the list's own depth.
		var out []node
		for i, item := range x {
			if m, ok := item.(map[string]any); ok {
				out = append(out, node{obj: m, path: join(path, strconv.Itoa(i)), depth: depth})
			}
		}
		return out
	}
	return nil
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func decimalOf(x any) (string, bool) {
	var s string
	switch y := x.(type) {
	case json.Number:
		s = y.String()
	case string:
		s = strings.TrimSpace(y)
	default:
		return "", false
	}
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return "", false
		}
		s = strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s, decimalText.MatchString(s)
}

func textOf(x any) (string, bool) {
	switch y := x.(type) {
	case string:
		return y, strings.TrimSpace(y) != ""
	case json.Number:
		return y.String(), true
	}
	return "", false
}

// Package observability holds Paygate's Grafana dashboard and Prometheus alert
// rules; its test checks that both parse and that every series they read is
// one the services still define, so renaming a metric fails CI instead of
// blanking a panel or silencing an alert.
package observability

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// servicesDir is the Go source the metrics must be defined in.
const servicesDir = "../../services"

// ruleFile is the rule-file shape Prometheus loads (rule_files:).
type ruleFile struct {
	Groups []struct {
		Name     string `yaml:"name"`
		Interval string `yaml:"interval"`
		Rules    []struct {
			Alert       string            `yaml:"alert"`
			Record      string            `yaml:"record"`
			Expr        string            `yaml:"expr"`
			For         string            `yaml:"for"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

// dashboard is the part of a Grafana dashboard the check reads.
type dashboard struct {
	UID        string  `json:"uid"`
	Title      string  `json:"title"`
	Panels     []panel `json:"panels"`
	Templating struct {
		List []struct {
			Name  string          `json:"name"`
			Type  string          `json:"type"`
			Query json.RawMessage `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

type panel struct {
	ID      int     `json:"id"`
	Type    string  `json:"type"`
	Title   string  `json:"title"`
	Panels  []panel `json:"panels"`
	Targets []struct {
		RefID string `json:"refId"`
		Expr  string `json:"expr"`
	} `json:"targets"`
}

// builtin are series no service defines: Prometheus writes up for every target.
var builtin = []string{"up"}

// libraryCollectors maps a collector constructor to the series it exports
// that the dashboard or rules may read (names as client_golang defines them).
var libraryCollectors = map[string][]string{
	"collectors.NewGoCollector(": {"go_goroutines", "go_threads", "go_gc_duration_seconds",
		"go_memstats_heap_inuse_bytes", "go_memstats_alloc_bytes"},
	"collectors.NewProcessCollector(": {"process_cpu_seconds_total", "process_resident_memory_bytes",
		"process_open_fds", "process_max_fds", "process_start_time_seconds"},
}

var (
	metricOpts  = regexp.MustCompile(`prometheus\.(Counter|Gauge|Histogram|Summary)Opts\{`)
	optName     = regexp.MustCompile(`\bName:\s*"([a-zA-Z_:][a-zA-Z0-9_:]*)"`)
	optPrefix   = regexp.MustCompile(`\b(Namespace|Subsystem):`)
	strLit      = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`")
	braces      = regexp.MustCompile(`\{[^{}]*\}`)
	brackets    = regexp.MustCompile(`\[[^\[\]]*\]`)
	grouping    = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)`)
	labelValues = regexp.MustCompile(`label_values\(\s*([^,()]*?(?:\{[^}]*\})?)\s*(?:,\s*\w+\s*)?\)`)
	variable    = regexp.MustCompile(`\$\{?\w+\}?`)
	ident       = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	keywords    = []string{"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
		"group_left", "group_right", "inf", "nan"}
)

// definedMetrics returns every series name the Go source under dir exposes:
// each prometheus.*Opts Name (with _bucket, _sum and _count for histograms and
// summaries), the series of the library collectors it registers, and
// Prometheus's own. It fails the test when a metric is built from Namespace or
// Subsystem, which this check does not compose.
func definedMetrics(t *testing.T, dir string) map[string]bool {
	t.Helper()
	defined := map[string]bool{}
	for _, b := range builtin {
		defined[b] = true
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(src)
		for _, loc := range metricOpts.FindAllStringSubmatchIndex(text, -1) {
			kind := text[loc[2]:loc[3]]
			body := braced(text[loc[1]:])
			if optPrefix.MatchString(body) {
				t.Errorf("%s: a metric built from Namespace/Subsystem; spell its full Name so this check can find it", path)
			}
			n := optName.FindStringSubmatch(body)
			if n == nil {
				continue
			}
			defined[n[1]] = true
			if kind == "Histogram" || kind == "Summary" {
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					defined[n[1]+suffix] = true
				}
			}
		}
		for ctor, names := range libraryCollectors {
			if strings.Contains(text, ctor) {
				for _, n := range names {
					defined[n] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	return defined
}

// braced returns the text of s up to the brace that closes the one just
// before it (nested literals such as Buckets and ConstLabels included).
func braced(s string) string {
	depth := 1
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[:i]
			}
		}
	}
	return s
}

// seriesNames returns the metric names a PromQL expression (or a Grafana
// label_values query) selects: identifiers left once strings, label matchers,
// ranges, grouping clauses, variables, function calls and keywords are gone.
func seriesNames(expr string) []string {
	e := labelValues.ReplaceAllString(expr, "$1")
	e = strLit.ReplaceAllString(e, `""`)
	e = variable.ReplaceAllString(e, " ")
	for braces.MatchString(e) {
		e = braces.ReplaceAllString(e, " ")
	}
	e = brackets.ReplaceAllString(e, " ")
	e = grouping.ReplaceAllString(e, " ")
	var names []string
	for _, loc := range ident.FindAllStringIndex(e, -1) {
		word := e[loc[0]:loc[1]]
		rest := strings.TrimLeft(e[loc[1]:], " \t\n")
		if strings.HasPrefix(rest, "(") || slices.Contains(keywords, strings.ToLower(word)) {
			continue // a function, an aggregation or an operator
		}
		if loc[0] > 0 && (e[loc[0]-1] >= '0' && e[loc[0]-1] <= '9' || e[loc[0]-1] == '.') {
			continue // the exponent or unit of a number
		}
		if !slices.Contains(names, word) {
			names = append(names, word)
		}
	}
	return names
}

func loadRules(t *testing.T) ruleFile {
	t.Helper()
	src, err := os.ReadFile("alerts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var rf ruleFile
	dec := yaml.NewDecoder(strings.NewReader(string(src)))
	dec.KnownFields(true)
	if err := dec.Decode(&rf); err != nil {
		t.Fatalf("alerts.yaml: %v", err)
	}
	return rf
}

func loadDashboard(t *testing.T) dashboard {
	t.Helper()
	src, err := os.ReadFile("dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(src, &d); err != nil {
		t.Fatalf("dashboard.json: %v", err)
	}
	return d
}

// promDuration reports whether s is a Prometheus duration such as 5m or 1h30m.
func promDuration(s string) bool {
	return regexp.MustCompile(`^([0-9]+(ms|s|m|h|d|w|y))+$`).MatchString(s)
}

func TestRulesAreAPrometheusRuleFile(t *testing.T) {
	t.Parallel()
	rf := loadRules(t)
	if len(rf.Groups) == 0 {
		t.Fatal("alerts.yaml has no groups")
	}
	groups := map[string]bool{}
	alerts := map[string]bool{}
	for _, g := range rf.Groups {
		if g.Name == "" || groups[g.Name] {
			t.Errorf("group name %q is empty or repeated", g.Name)
		}
		groups[g.Name] = true
		if g.Interval != "" && !promDuration(g.Interval) {
			t.Errorf("group %s: interval %q is not a duration", g.Name, g.Interval)
		}
		if len(g.Rules) == 0 {
			t.Errorf("group %s has no rules", g.Name)
		}
		for _, r := range g.Rules {
			if (r.Alert == "") == (r.Record == "") {
				t.Errorf("group %s: a rule needs exactly one of alert and record (alert %q, record %q)", g.Name, r.Alert, r.Record)
			}
			if strings.TrimSpace(r.Expr) == "" {
				t.Errorf("%s%s: empty expr", r.Alert, r.Record)
			}
			if r.For != "" && !promDuration(r.For) {
				t.Errorf("%s: for %q is not a duration", r.Alert, r.For)
			}
			if r.Alert == "" {
				continue
			}
			if alerts[r.Alert] {
				t.Errorf("alert %s is defined twice", r.Alert)
			}
			alerts[r.Alert] = true
			if sev := r.Labels["severity"]; sev != "page" && sev != "ticket" {
				t.Errorf("%s: severity %q, want page or ticket", r.Alert, sev)
			}
			if r.Annotations["summary"] == "" {
				t.Errorf("%s: no summary annotation", r.Alert)
			}
			if strings.Count(r.Expr, "(") != strings.Count(r.Expr, ")") {
				t.Errorf("%s: unbalanced parentheses in expr", r.Alert)
			}
		}
	}
}

func TestDashboardIsWellFormed(t *testing.T) {
	t.Parallel()
	d := loadDashboard(t)
	if d.UID == "" || d.Title == "" {
		t.Error("the dashboard needs a uid and a title")
	}
	ids := map[int]bool{}
	queries := 0
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			if ids[p.ID] {
				t.Errorf("panel id %d is used twice", p.ID)
			}
			ids[p.ID] = true
			if p.Title == "" {
				t.Errorf("panel %d has no title", p.ID)
			}
			for _, tg := range p.Targets {
				queries++
				if strings.TrimSpace(tg.Expr) == "" {
					t.Errorf("panel %q: query %s is empty", p.Title, tg.RefID)
				}
				if strings.Count(tg.Expr, "(") != strings.Count(tg.Expr, ")") {
					t.Errorf("panel %q: unbalanced parentheses in %s", p.Title, tg.RefID)
				}
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	if queries == 0 {
		t.Error("the dashboard runs no query")
	}
}

// TestEveryMetricIsDefined is the drift check: a series the dashboard or the
// rules read that no service defines is a panel that shows nothing, or an
// alert that can never fire.
func TestEveryMetricIsDefined(t *testing.T) {
	t.Parallel()
	defined := definedMetrics(t, servicesDir)
	used := map[string][]string{} // metric → where it is read
	for _, g := range loadRules(t).Groups {
		for _, r := range g.Rules {
			for _, n := range seriesNames(r.Expr) {
				used[n] = append(used[n], "alerts.yaml "+r.Alert+r.Record)
			}
		}
	}
	d := loadDashboard(t)
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			for _, tg := range p.Targets {
				for _, n := range seriesNames(tg.Expr) {
					used[n] = append(used[n], "dashboard.json panel "+p.Title)
				}
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			var s string
			if json.Unmarshal(v.Query, &s) != nil {
				t.Errorf("variable %s: unreadable query", v.Name)
				continue
			}
			q.Query = s
		}
		for _, n := range seriesNames(q.Query) {
			used[n] = append(used[n], "dashboard.json variable "+v.Name)
		}
	}
	if len(used) == 0 {
		t.Fatal("found no metric in the dashboard or the rules: the extractor is broken")
	}
	names := make([]string, 0, len(used))
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !defined[n] {
			t.Errorf("%s is read by %s but no service under %s defines it", n, strings.Join(used[n], ", "), servicesDir)
		}
	}
}

func TestSeriesNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr string
		want []string
	}{
		{`up{job=~"auth|gateway"} == 0`, []string{"up"}},
		{`histogram_quantile(0.99, sum by (grpc_service, le) (rate(grpc_server_handling_seconds_bucket{grpc_method="X"}[$__rate_interval])))`,
			[]string{"grpc_server_handling_seconds_bucket"}},
		{`sum(rate(a_total[5m])) / sum without (code) (rate(b_total{c!="d"}[5m] offset 1h)) > 1e3 and on (job) c`,
			[]string{"a_total", "b_total", "c"}},
		{`label_values(grpc_server_handled_total{job=~"$job"}, grpc_service)`, []string{"grpc_server_handled_total"}},
		{`changes(process_start_time_seconds[15m]) > 2`, []string{"process_start_time_seconds"}},
	}
	for _, tt := range tests {
		if got := seriesNames(tt.expr); !slices.Equal(got, tt.want) {
			t.Errorf("seriesNames(%q) = %v, want %v", tt.expr, got, tt.want)
		}
	}
}

// TestDefinedMetricsSeesARename proves the drift check can fail: a source tree
// whose histogram was renamed no longer defines the old series.
func TestDefinedMetricsSeesARename(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := "package m\n\nvar h = prometheus.NewHistogramVec(prometheus.HistogramOpts{\n\tName: \"rpc_seconds\",\n\tBuckets: []float64{1, 2},\n}, nil)\n" +
		"var c = prometheus.NewCounter(prometheus.CounterOpts{Name: \"one_line_total\", Help: \"c\"})\n"
	if err := os.WriteFile(filepath.Join(dir, "m.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	defined := definedMetrics(t, dir)
	for _, n := range []string{"rpc_seconds_bucket", "rpc_seconds_count", "one_line_total", "up"} {
		if !defined[n] {
			t.Errorf("%s should be defined", n)
		}
	}
	if defined["grpc_server_handling_seconds_bucket"] || defined["go_goroutines"] || defined["one_line_total_bucket"] {
		t.Error("a series this tree does not define counts as defined")
	}
}

// The durations in the rule file must also be ones Go agrees are durations
// (Prometheus's syntax adds d, w and y, which the rules do not use).
func TestRuleDurationsParse(t *testing.T) {
	t.Parallel()
	for _, g := range loadRules(t).Groups {
		for _, r := range g.Rules {
			if r.For == "" {
				continue
			}
			if _, err := time.ParseDuration(r.For); err != nil {
				t.Errorf("%s: for %q: %v", r.Alert, r.For, err)
			}
		}
	}
}

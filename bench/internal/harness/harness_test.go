package harness

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

func TestGroupStopsEveryProcessAndKeepsItsLog(t *testing.T) {
	g := &Group{Logs: t.TempDir() + "/bench-", Grace: 5 * time.Second}
	a, err := g.Start("a", []string{"sh", "-c", "echo started; exec sleep 60"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := g.MustStart("b", []string{"sh", "-c", "exec sleep 60"}, []string{"HARNESS_TEST=1"})
	for !strings.Contains(readFile(t, a.Log), "started") {
		time.Sleep(20 * time.Millisecond)
	}
	g.StopAll()
	for _, p := range []*Proc{a, b} {
		select {
		case <-p.Exited():
		default:
			t.Errorf("%s still runs after StopAll", p.Name)
		}
	}
	if a.Log != g.Logs+"a.log" {
		t.Errorf("log of a = %q", a.Log)
	}
	if out, _ := os.ReadFile(a.Log); string(out) != "started\n" {
		t.Errorf("log of a holds %q", out)
	}
	g.StopAll() // nothing left to stop
}

func TestStopKillsAProcessThatIgnoresSIGTERM(t *testing.T) {
	g := &Group{Logs: t.TempDir() + "/bench-"}
	p := g.MustStart("stubborn", []string{"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.1; done"}, nil)
	for !strings.Contains(readFile(t, p.Log), "ready") {
		time.Sleep(20 * time.Millisecond)
	}
	t0 := time.Now()
	p.Stop(300 * time.Millisecond)
	if took := time.Since(t0); took < 300*time.Millisecond {
		t.Errorf("Stop returned after %s, before its grace", took)
	}
	p.Kill() // a second end does nothing
}

func TestAppendKeepsEarlierRuns(t *testing.T) {
	g := &Group{Logs: t.TempDir() + "/bench-", Append: true}
	for range 2 {
		p := g.MustStart("run", []string{"echo", "run"}, nil)
		<-p.Exited()
	}
	if got := readFile(t, g.Logs+"run.log"); got != "run\nrun\n" {
		t.Errorf("log = %q", got)
	}
}

func TestWaitReady(t *testing.T) {
	ready := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer ready.Close()
	if err := WaitReady(context.Background(), ready.URL, time.Second, nil); err != nil {
		t.Errorf("ready server: %v", err)
	}

	notReady := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer notReady.Close()
	err := WaitReady(context.Background(), notReady.URL, 300*time.Millisecond, nil)
	if err == nil || !strings.Contains(err.Error(), "not ready after 300ms") {
		t.Errorf("server never ready: %v", err)
	}

	g := &Group{Logs: t.TempDir() + "/bench-"}
	p := g.MustStart("quitter", []string{"sh", "-c", "echo bye; exit 3"}, nil)
	err = WaitReady(context.Background(), notReady.URL, time.Minute, p)
	if err == nil || !strings.Contains(err.Error(), "quitter exited") || !strings.Contains(err.Error(), p.Log) {
		t.Errorf("process that exits: %v", err)
	}
}

func TestStat(t *testing.T) {
	// The program's name may hold spaces and parentheses.
	line := []byte("4242 (my (odd) prog) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 0 0 20 0 4 0 100 0 0\n")
	name, cpu, ok := stat(line)
	if !ok || name != "my (odd) prog" || cpu != 3250*time.Millisecond {
		t.Errorf("stat = %q, %s, %v; want my (odd) prog, 3.25s, true", name, cpu, ok)
	}
	if _, _, ok := stat([]byte("garbage")); ok {
		t.Error("stat read garbage")
	}
	if d := ProcessCPU(os.Getpid()); d < 0 {
		t.Errorf("ProcessCPU of this process = %s", d)
	}
	if _, ok := CPUByProgram()["harness.test"]; !ok && strings.HasSuffix(os.Args[0], "harness.test") {
		t.Error("CPUByProgram does not list this test")
	}
}

func TestLoad(t *testing.T) {
	if f := strings.Fields(LoadAvg()); len(f) != 3 {
		t.Errorf("LoadAvg = %q, want three figures", LoadAvg())
	}
	if l := Load1(); l != strings.Fields(LoadAvg())[0] && l != "?" {
		t.Errorf("Load1 = %q", l)
	}
}

func TestSameAmount(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"12.50", "12.5", true},
		{"0", "0.000", true},
		{"9007199254740993.01", "9007199254740993.010", true},
		{"9007199254740993.01", "9007199254740993.02", false},
		{"1", "x", false},
		{"", "", false},
	} {
		if got := SameAmount(c.a, c.b); got != c.same {
			t.Errorf("SameAmount(%q, %q) = %v", c.a, c.b, got)
		}
	}
	if h := RandomHex(4); len(h) != 8 || h == RandomHex(4) {
		t.Errorf("RandomHex(4) = %q", h)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

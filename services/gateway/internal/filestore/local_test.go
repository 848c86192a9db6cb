package filestore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLocal(t *testing.T) {
	t.Parallel()
	testStore(t, func(t *testing.T) Store { return newTestLocal(t) })
}

func TestLocalTempFileIsHiddenBeside(t *testing.T) {
	t.Parallel()
	l := newTestLocal(t)
	w, err := l.Create(t.Context(), "exports/7/f.csv")
	mustDo(t, err)
	defer w.Abort()
	write(t, w, "x")
	names := dirNames(t, filepath.Join(l.Dir(), "exports", "7"))
	if len(names) != 1 || !strings.HasPrefix(names[0], tempPrefix) {
		t.Fatalf("directory holds %q, want one %s* file", names, tempPrefix)
	}
	mustDo(t, w.Commit(t.Context()))
	if names := dirNames(t, filepath.Join(l.Dir(), "exports", "7")); len(names) != 1 || names[0] != "f.csv" {
		t.Fatalf("after commit the directory holds %q", names)
	}
}

func TestLocalSweepTemp(t *testing.T) {
	t.Parallel()
	l := newTestLocal(t)
	ctx := t.Context()
	put(t, l, "exports/1/done.csv", "done")
	stale, err := l.Create(ctx, "exports/1/crashed.csv")
	mustDo(t, err)
	write(t, stale, "half")
	fresh, err := l.Create(ctx, "exports/2/running.csv")
	mustDo(t, err)
	defer fresh.Abort()
	write(t, fresh, "still going")

	old := time.Now().Add(-2 * time.Hour)
	mustDo(t, os.Chtimes(stale.(*localWriter).f.Name(), old, old))
	n, err := l.SweepTemp(ctx, time.Hour)
	mustDo(t, err)
	if n != 1 {
		t.Fatalf("swept %d files, want 1", n)
	}
	if names := dirNames(t, filepath.Join(l.Dir(), "exports", "1")); len(names) != 1 || names[0] != "done.csv" {
		t.Fatalf("exports/1 holds %q", names)
	}
	write(t, fresh, " and done")
	mustDo(t, fresh.Commit(ctx))
	if got := get(t, l, "exports/2/running.csv"); got != "still going and done" {
		t.Fatalf("read %q", got)
	}
	if err := stale.Commit(ctx); err == nil {
		t.Fatal("committing a swept file succeeded")
	}
	assertMissing(t, l, "exports/1/crashed.csv")
}

func TestLocalDeletePrefixSparesFilesBeingWritten(t *testing.T) {
	t.Parallel()
	l := newTestLocal(t)
	ctx := t.Context()
	put(t, l, "exports/3/old.csv", "old")
	w, err := l.Create(ctx, "exports/3/new.csv")
	mustDo(t, err)
	defer w.Abort()
	write(t, w, "new")
	mustDo(t, l.DeletePrefix(ctx, "exports/3/"))
	assertMissing(t, l, "exports/3/old.csv")
	mustDo(t, w.Commit(ctx))
	if got := get(t, l, "exports/3/new.csv"); got != "new" {
		t.Fatalf("read %q", got)
	}
}

func TestLocalDeletePrefixRemovesEmptyDirectories(t *testing.T) {
	t.Parallel()
	l := newTestLocal(t)
	ctx := t.Context()
	put(t, l, "exports/4/a/b/f.csv", "x")
	put(t, l, "exports/5/f.csv", "y")
	mustDo(t, l.DeletePrefix(ctx, "exports/4/"))
	if names := dirNames(t, filepath.Join(l.Dir(), "exports")); len(names) != 1 || names[0] != "5" {
		t.Fatalf("exports holds %q, want only 5", names)
	}
}

func TestNewLocal(t *testing.T) {
	t.Parallel()
	if _, err := NewLocal(""); err == nil {
		t.Fatal("empty directory accepted")
	}
	dir := filepath.Join(t.TempDir(), "a", "b")
	l, err := NewLocal(dir)
	mustDo(t, err)
	if st, err := os.Stat(l.Dir()); err != nil || !st.IsDir() {
		t.Fatalf("directory not made: %v", err)
	}
}

func newTestLocal(t *testing.T) *Local {
	t.Helper()
	l, err := NewLocal(t.TempDir())
	mustDo(t, err)
	return l
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	mustDo(t, err)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

package filestore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// testStore is the conformance suite every Store passes. newStore returns a
// fresh, empty store for one subtest.
func testStore(t *testing.T, newStore func(t *testing.T) Store) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, s Store)
	}{
		{"round trip", func(t *testing.T, s Store) {
			put(t, s, "exports/1/1/transactions.csv", "id,amount\r\n1,5.00\r\n")
			if got := get(t, s, "exports/1/1/transactions.csv"); got != "id,amount\r\n1,5.00\r\n" {
				t.Fatalf("read %q", got)
			}
		}},
		{"empty file", func(t *testing.T, s Store) {
			put(t, s, "exports/empty.csv", "")
			if got := get(t, s, "exports/empty.csv"); got != "" {
				t.Fatalf("read %q", got)
			}
		}},
		{"nothing visible before commit", func(t *testing.T, s Store) {
			ctx := t.Context()
			w, err := s.Create(ctx, "exports/2/f.csv")
			mustDo(t, err)
			defer w.Abort()
			write(t, w, "part of a file")
			assertMissing(t, s, "exports/2/f.csv")
			write(t, w, ", the rest")
			mustDo(t, w.Commit(ctx))
			if got := get(t, s, "exports/2/f.csv"); got != "part of a file, the rest" {
				t.Fatalf("read %q", got)
			}
		}},
		{"abort leaves nothing", func(t *testing.T, s Store) {
			ctx := t.Context()
			w, err := s.Create(ctx, "exports/3/f.csv")
			mustDo(t, err)
			write(t, w, "doomed")
			w.Abort()
			w.Abort()
			assertMissing(t, s, "exports/3/f.csv")
			if _, err := w.Write([]byte("more")); err == nil {
				t.Fatal("write after Abort succeeded")
			}
			if err := w.Commit(ctx); err == nil {
				t.Fatal("commit after Abort succeeded")
			}
			assertMissing(t, s, "exports/3/f.csv")
		}},
		{"abort after commit keeps the file", func(t *testing.T, s Store) {
			ctx := t.Context()
			w, err := s.Create(ctx, "exports/4/f.csv")
			mustDo(t, err)
			write(t, w, "kept")
			mustDo(t, w.Commit(ctx))
			w.Abort()
			if got := get(t, s, "exports/4/f.csv"); got != "kept" {
				t.Fatalf("read %q", got)
			}
		}},
		{"commit with a cancelled context publishes nothing", func(t *testing.T, s Store) {
			ctx, cancel := context.WithCancel(t.Context())
			w, err := s.Create(ctx, "exports/5/f.csv")
			mustDo(t, err)
			defer w.Abort()
			write(t, w, "late")
			cancel()
			if err := w.Commit(ctx); err == nil {
				t.Fatal("commit with a cancelled context succeeded")
			}
			assertMissing(t, s, "exports/5/f.csv")
		}},
		{"re-commit replaces", func(t *testing.T, s Store) {
			ctx := t.Context()
			put(t, s, "exports/6/f.csv", "version 1")
			w, err := s.Create(ctx, "exports/6/f.csv")
			mustDo(t, err)
			write(t, w, "version 2, longer")
			if got := get(t, s, "exports/6/f.csv"); got != "version 1" {
				t.Fatalf("before commit read %q", got)
			}
			mustDo(t, w.Commit(ctx))
			if got := get(t, s, "exports/6/f.csv"); got != "version 2, longer" {
				t.Fatalf("after commit read %q", got)
			}
			w, err = s.Create(ctx, "exports/6/f.csv")
			mustDo(t, err)
			write(t, w, "version 3")
			w.Abort()
			if got := get(t, s, "exports/6/f.csv"); got != "version 2, longer" {
				t.Fatalf("after an aborted replacement read %q", got)
			}
		}},
		{"delete prefix", func(t *testing.T, s Store) {
			ctx := t.Context()
			for _, k := range []string{"exports/1/a.csv", "exports/1/sub/b.csv", "exports/10/c.csv", "exports/2/d.csv", "other/e.csv"} {
				put(t, s, k, k)
			}
			mustDo(t, s.DeletePrefix(ctx, "exports/1/"))
			assertMissing(t, s, "exports/1/a.csv")
			assertMissing(t, s, "exports/1/sub/b.csv")
			for _, k := range []string{"exports/10/c.csv", "exports/2/d.csv", "other/e.csv"} {
				if got := get(t, s, k); got != k {
					t.Fatalf("%s read %q", k, got)
				}
			}
			mustDo(t, s.DeletePrefix(ctx, "exports/1/"))    // again: nothing left
			mustDo(t, s.DeletePrefix(ctx, "nothing/here/")) // never existed
			mustDo(t, s.DeletePrefix(ctx, "exports/1"))     // a partial segment
			assertMissing(t, s, "exports/10/c.csv")
			if got := get(t, s, "exports/2/d.csv"); got != "exports/2/d.csv" {
				t.Fatalf("read %q", got)
			}
			put(t, s, "exports/1/a.csv", "back")
			if got := get(t, s, "exports/1/a.csv"); got != "back" {
				t.Fatalf("recreated file read %q", got)
			}
			if err := s.DeletePrefix(ctx, ""); !errors.Is(err, ErrBadKey) {
				t.Fatalf("empty prefix: %v, want ErrBadKey", err)
			}
			if got := get(t, s, "other/e.csv"); got != "other/e.csv" {
				t.Fatalf("read %q", got)
			}
		}},
		{"not found", func(t *testing.T, s Store) {
			assertMissing(t, s, "exports/none.csv")
			put(t, s, "exports/dir/f.csv", "x")
			assertMissing(t, s, "exports/dir")
			assertMissing(t, s, "exports/dir/f.csv/g")
		}},
		{"bad keys", func(t *testing.T, s Store) {
			ctx := t.Context()
			for _, k := range []string{"", "/abs", "a//b", "a/", "..", "a/../b", "a/./b", `a\b`, ".tmp-x", "a/.hidden", "a\x00b", "a\nb", string([]byte{0xff}), string(bytes.Repeat([]byte("k"), 1025))} {
				if w, err := s.Create(ctx, k); !errors.Is(err, ErrBadKey) {
					if w != nil {
						w.Abort()
					}
					t.Errorf("Create(%q): %v, want ErrBadKey", k, err)
				}
				if _, _, err := s.Open(ctx, k); !errors.Is(err, ErrBadKey) {
					t.Errorf("Open(%q): %v, want ErrBadKey", k, err)
				}
			}
			for _, p := range []string{"/a/", "a//", "../", "a/../"} {
				if err := s.DeletePrefix(ctx, p); !errors.Is(err, ErrBadKey) {
					t.Errorf("DeletePrefix(%q): %v, want ErrBadKey", p, err)
				}
			}
		}},
		{"large file", func(t *testing.T, s Store) {
			const size = 20 << 20
			ctx := t.Context()
			w, err := s.Create(ctx, "exports/big/file.bin")
			mustDo(t, err)
			defer w.Abort()
			src := rand.NewChaCha8([32]byte{1, 6})
			want := sha256.New()
			n, err := io.CopyBuffer(io.MultiWriter(w, want), io.LimitReader(src, size), make([]byte, 256<<10))
			mustDo(t, err)
			if n != size {
				t.Fatalf("wrote %d bytes", n)
			}
			mustDo(t, w.Commit(ctx))

			r, gotSize, err := s.Open(ctx, "exports/big/file.bin")
			mustDo(t, err)
			defer r.Close()
			if gotSize != size {
				t.Fatalf("size %d, want %d", gotSize, size)
			}
			got := sha256.New()
			n, err = io.Copy(got, r)
			mustDo(t, err)
			if n != size || !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
				t.Fatalf("read %d bytes, sha256 %x, want %d bytes, %x", n, got.Sum(nil), size, want.Sum(nil))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, newStore(t))
		})
	}
}

func put(t *testing.T, s Store, key, content string) {
	t.Helper()
	ctx := t.Context()
	w, err := s.Create(ctx, key)
	mustDo(t, err)
	defer w.Abort()
	write(t, w, content)
	mustDo(t, w.Commit(ctx))
}

func get(t *testing.T, s Store, key string) string {
	t.Helper()
	r, size, err := s.Open(t.Context(), key)
	mustDo(t, err)
	defer r.Close()
	b, err := io.ReadAll(r)
	mustDo(t, err)
	if int64(len(b)) != size {
		t.Fatalf("%s: read %d bytes, Open said %d", key, len(b), size)
	}
	return string(b)
}

func write(t *testing.T, w Writer, s string) {
	t.Helper()
	if _, err := io.WriteString(w, s); err != nil {
		t.Fatal(err)
	}
}

func assertMissing(t *testing.T, s Store, key string) {
	t.Helper()
	r, _, err := s.Open(t.Context(), key)
	if err == nil {
		_ = r.Close()
	}
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Open(%q): %v, want ErrNotFound", key, err)
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

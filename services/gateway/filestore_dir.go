package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/paygate/paygate/services/gateway/internal/filestore"
)

// dirStore is a filestore.Store in a local directory, standing in until
// the filestore package's own constructors (filestore.FromConfig, on
// branch i16-fmt) land: a file is written to a temporary name beside its
// key, synced, and renamed onto the key at Commit, so a half file is never
// visible under its key.
type dirStore struct{ root string }

var _ filestore.Store = dirStore{}

func newDirStore(root string) (dirStore, error) {
	if err := os.MkdirAll(root, 0o750); err != nil {
		return dirStore{}, fmt.Errorf("files directory %s: %w", root, err)
	}
	return dirStore{root: root}, nil
}

func (d dirStore) path(key string) (string, error) {
	if key == "" || strings.HasPrefix(key, "/") || strings.Contains(key, "..") {
		return "", fmt.Errorf("file key %q is not a relative path", key)
	}
	return filepath.Join(d.root, filepath.FromSlash(key)), nil
}

func (d dirStore) Create(_ context.Context, key string) (filestore.Writer, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return nil, fmt.Errorf("create directory of %s: %w", key, err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", key, err)
	}
	return &dirWriter{f: f, dst: p}, nil
}

func (d dirStore) Open(_ context.Context, key string) (io.ReadCloser, int64, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, 0, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, filestore.ErrNotFound
	}
	if err != nil {
		return nil, 0, fmt.Errorf("open %s: %w", key, err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, 0, fmt.Errorf("stat %s: %w", key, err)
	}
	return f, st.Size(), nil
}

func (d dirStore) DeletePrefix(_ context.Context, prefix string) error {
	p, err := d.path(strings.TrimSuffix(prefix, "/"))
	if err != nil {
		return err
	}
	if err := os.RemoveAll(p); err != nil {
		return fmt.Errorf("delete %s: %w", prefix, err)
	}
	return nil
}

type dirWriter struct {
	f    *os.File
	dst  string
	done bool
}

func (w *dirWriter) Write(p []byte) (int, error) { return w.f.Write(p) }

func (w *dirWriter) Commit(context.Context) error {
	if w.done {
		return errors.New("file already committed or aborted")
	}
	w.done = true
	if err := w.f.Sync(); err != nil {
		w.cleanup()
		return fmt.Errorf("sync %s: %w", w.dst, err)
	}
	if err := w.f.Close(); err != nil {
		_ = os.Remove(w.f.Name())
		return fmt.Errorf("close %s: %w", w.dst, err)
	}
	if err := os.Rename(w.f.Name(), w.dst); err != nil {
		_ = os.Remove(w.f.Name())
		return fmt.Errorf("commit %s: %w", w.dst, err)
	}
	return nil
}

func (w *dirWriter) Abort() {
	if !w.done {
		w.done = true
		w.cleanup()
	}
}

func (w *dirWriter) cleanup() {
	_ = w.f.Close()
	_ = os.Remove(w.f.Name())
}

package filestore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// tempPrefix starts the name of a file being written. Keys never have a
// segment starting with a dot, so no key can name a temporary file.
const tempPrefix = ".tmp-"

// Local keeps files in a directory, each key a path below it. A file is
// written to a hidden temporary file beside its final place and renamed
// over it at Commit, so a reader sees the old file or the new one, never a
// part of one, and a crash leaves at worst a temporary file (SweepTemp).
type Local struct {
	dir string
}

var _ Store = (*Local)(nil)

// NewLocal returns a store under dir (PAYGATE_FILES_DIR), creating the
// directory when it is missing.
func NewLocal(dir string) (*Local, error) {
	if dir == "" {
		return nil, errors.New("filestore: local store needs a directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("filestore: resolve %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o750); err != nil {
		return nil, fmt.Errorf("filestore: create %s: %w", abs, err)
	}
	return &Local{dir: abs}, nil
}

// Dir is the store's root directory.
func (l *Local) Dir() string { return l.dir }

func (l *Local) path(key string) string {
	return filepath.Join(l.dir, filepath.FromSlash(key))
}

// Create starts a temporary file in the key's directory (the same file
// system, so Commit's rename is atomic). Bad keys wrap ErrBadKey.
func (l *Local) Create(ctx context.Context, key string) (Writer, error) {
	if err := ValidKey(key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	final := l.path(key)
	dir := filepath.Dir(final)
	// A DeletePrefix running at the same time may remove the directory
	// between MkdirAll and CreateTemp once it is empty; try again then.
	for attempt := 0; ; attempt++ {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("filestore: create directory for %s: %w", key, err)
		}
		f, err := os.CreateTemp(dir, tempPrefix+"*")
		if err == nil {
			return &localWriter{f: f, final: final, dir: dir, key: key}, nil
		}
		if !errors.Is(err, fs.ErrNotExist) || attempt == 2 {
			return nil, fmt.Errorf("filestore: create %s: %w", key, err)
		}
	}
}

// Open reads a committed file; a missing key is ErrNotFound and a bad one
// wraps ErrBadKey.
func (l *Local) Open(_ context.Context, key string) (io.ReadCloser, int64, error) {
	if err := ValidKey(key); err != nil {
		return nil, 0, err
	}
	f, err := os.Open(l.path(key))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, 0, fmt.Errorf("open %s: %w", key, ErrNotFound)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("filestore: open %s: %w", key, err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, 0, fmt.Errorf("filestore: stat %s: %w", key, err)
	}
	if !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, 0, fmt.Errorf("open %s: %w", key, ErrNotFound)
	}
	return f, st.Size(), nil
}

// DeletePrefix removes every committed file whose key starts with prefix
// and then the directories it leaves empty. Files still being written are
// left alone (they are not keys yet). An empty prefix is refused.
func (l *Local) DeletePrefix(ctx context.Context, prefix string) error {
	if err := validPrefix(prefix); err != nil {
		return err
	}
	// Walk only the deepest directory the prefix names in full.
	base := ""
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		base = prefix[:i]
	}
	root := l.dir
	if base != "" {
		root = l.path(base)
	}
	var dirs []string // matching directories, parents before children
	if base != "" && strings.HasPrefix(base+"/", prefix) {
		dirs = append(dirs, root)
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, err := filepath.Rel(l.dir, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case strings.HasPrefix(d.Name(), "."):
				return fs.SkipDir // not the store's
			case strings.HasPrefix(key+"/", prefix):
				dirs = append(dirs, p)
			case !strings.HasPrefix(prefix, key+"/"):
				return fs.SkipDir // nothing under it can match
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || !strings.HasPrefix(key, prefix) {
			return nil
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("filestore: delete %s: %w", prefix, err)
	}
	// Children first; a directory that still holds something (a file being
	// written) stays, which os.Remove refuses on its own.
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i])
	}
	return nil
}

// SweepTemp removes temporary files last modified more than olderThan ago:
// what a writer that died mid-file left behind. It returns how many it
// removed. Run it with an age well above the longest export, so a file
// still being written is never taken.
func (l *Local) SweepTemp(ctx context.Context, olderThan time.Duration) (int, error) {
	cutoff := time.Now().Add(-olderThan)
	removed := 0
	err := filepath.WalkDir(l.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while walking
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || !strings.HasPrefix(d.Name(), tempPrefix) {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // committed or aborted meanwhile
		}
		if err != nil {
			return err
		}
		if info.ModTime().After(cutoff) {
			return nil
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		removed++
		return nil
	})
	if err != nil {
		return removed, fmt.Errorf("filestore: sweep temporary files: %w", err)
	}
	return removed, nil
}

// localWriter is one file being written to its temporary name.
type localWriter struct {
	f     *os.File // nil once committed or aborted
	final string
	dir   string
	key   string
	err   error // the first write error, which Commit reports
}

// Write appends to the temporary file; after a failed write every later
// one and Commit return that error.
func (w *localWriter) Write(p []byte) (int, error) {
	if w.f == nil {
		return 0, fmt.Errorf("filestore: write %s: writer is finished", w.key)
	}
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.f.Write(p)
	if err != nil {
		w.err = fmt.Errorf("filestore: write %s: %w", w.key, err)
		return n, w.err
	}
	return n, nil
}

// Commit syncs the file, renames it over the key and syncs the directory,
// so the file survives a power cut once Commit returns. On any error the
// temporary file is removed and the key keeps what it held before.
func (w *localWriter) Commit(ctx context.Context) error {
	if w.f == nil {
		return fmt.Errorf("filestore: commit %s: writer is finished", w.key)
	}
	if w.err != nil {
		w.Abort()
		return w.err
	}
	if err := ctx.Err(); err != nil {
		w.Abort()
		return fmt.Errorf("filestore: commit %s: %w", w.key, err)
	}
	f, tmp := w.f, w.f.Name()
	w.f = nil
	if err := f.Sync(); err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return fmt.Errorf("filestore: sync %s: %w", w.key, err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("filestore: close %s: %w", w.key, err)
	}
	if err := os.Rename(tmp, w.final); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("filestore: commit %s: %w", w.key, err)
	}
	if err := syncDir(w.dir); err != nil {
		// The file is in place; only its durability across a crash is in
		// doubt, and the caller should know.
		return fmt.Errorf("filestore: sync directory of %s: %w", w.key, err)
	}
	return nil
}

// Abort closes and removes the temporary file; after Commit or a first
// Abort it does nothing.
func (w *localWriter) Abort() {
	if w.f == nil {
		return
	}
	f := w.f
	w.f = nil
	_ = f.Close()
	_ = os.Remove(f.Name())
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

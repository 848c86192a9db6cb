// Package filestore keeps export files: a local directory by default
// (PAYGATE_FILES_DIR) or an S3-compatible bucket (PAYGATE_FILES_S3_*), behind
// one small interface. Writes are all-or-nothing: a file becomes visible
// under its key only when its Writer commits, so a worker that dies mid-file
// leaves no half file behind a key anyone reads.
package filestore

import (
	"context"
	"errors"
	"io"
)

// ErrNotFound is returned by Open for a key that holds no committed file.
var ErrNotFound = errors.New("filestore: no such file")

// Store keeps files under keys such as "exports/42/1/transactions.csv"
// ("/"-separated, no leading slash, no "..").
type Store interface {
	// Create starts a file under key. Nothing is visible under key until
	// the Writer's Commit returns nil; Abort (or a Commit that fails)
	// discards what was written. Creating a key that exists replaces it at
	// Commit.
	Create(ctx context.Context, key string) (Writer, error)
	// Open reads a committed file; size is its length in bytes.
	Open(ctx context.Context, key string) (r io.ReadCloser, size int64, err error)
	// DeletePrefix removes every file whose key starts with prefix (a
	// "directory" such as "exports/42/"); removing nothing is not an error.
	DeletePrefix(ctx context.Context, prefix string) error
}

// Writer is a file being written. It is not safe for concurrent use.
type Writer interface {
	io.Writer
	// Commit makes the file visible under its key (durably: fsync and
	// rename, or the completed upload).
	Commit(ctx context.Context) error
	// Abort discards the file; it is safe after Commit (then it does
	// nothing) and more than once.
	Abort()
}

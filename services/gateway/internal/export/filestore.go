package export

import (
	"context"
	"errors"
	"io"
)

// ErrFileNotFound is returned by FileStore.Open for a key that holds no
// committed file.
var ErrFileNotFound = errors.New("filestore: no such file")

// FileStore is the port through which exports keep their files' bytes: a
// local directory or an S3-compatible bucket (the filestore package). Keys
// look like "exports/42/1/transactions.csv" ("/"-separated, no leading
// slash, no "..").
type FileStore interface {
	// Create starts a file under key. Nothing is visible under key until
	// the FileWriter's Commit returns nil; Abort (or a Commit that fails)
	// discards what was written. Creating a key that exists replaces it at
	// Commit.
	Create(ctx context.Context, key string) (FileWriter, error)
	// Open reads a committed file; size is its length in bytes. A key that
	// holds no committed file is ErrFileNotFound.
	Open(ctx context.Context, key string) (r io.ReadCloser, size int64, err error)
	// DeletePrefix removes every file whose key starts with prefix (a
	// "directory" such as "exports/42/"); removing nothing is not an error.
	DeletePrefix(ctx context.Context, prefix string) error
}

// FileWriter is a file being written. It is not safe for concurrent use.
type FileWriter interface {
	io.Writer
	// Commit makes the file visible under its key (durably: fsync and
	// rename, or the completed upload).
	Commit(ctx context.Context) error
	// Abort discards the file; it is safe after Commit (then it does
	// nothing) and more than once.
	Abort()
}

// Package filestore keeps export files: a local directory by default
// (PAYGATE_FILES_DIR) or an S3-compatible bucket (PAYGATE_FILES_S3_*), behind
// one small interface. Writes are all-or-nothing: a file becomes visible
// under its key only when its Writer commits, so a worker that dies mid-file
// leaves no half file behind a key anyone reads.
package filestore

import "github.com/paygate/paygate/services/gateway/internal/export"

// ErrNotFound is returned by Open for a key that holds no committed file.
var ErrNotFound = export.ErrFileNotFound

// Store keeps files under keys: the export package's port (export.FileStore),
// which Local and S3 implement.
type Store = export.FileStore

// Writer is a file being written (export.FileWriter).
type Writer = export.FileWriter

package filestore

import (
	"context"
	"errors"
)

// Config picks and configures the store. The service's Config fills it
// from the environment; this package reads no variables itself.
type Config struct {
	// Dir is the local store's directory (PAYGATE_FILES_DIR), used when no
	// S3 endpoint is set.
	Dir string
	// S3 configures an S3-compatible bucket (PAYGATE_FILES_S3_ENDPOINT,
	// _BUCKET, _REGION, _ACCESS_KEY, _SECRET_KEY, _USE_SSL, _INSECURE,
	// _PREFIX, _CREATE_BUCKET); setting its Endpoint selects it.
	S3 S3Config
}

// FromConfig opens the S3 store when cfg.S3.Endpoint is set, otherwise the
// local store under cfg.Dir.
func FromConfig(ctx context.Context, cfg Config) (Store, error) {
	// Each constructor's error is returned with a nil Store, not a nil
	// pointer inside one.
	if cfg.S3.Endpoint != "" {
		s, err := NewS3(ctx, cfg.S3)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	if cfg.Dir == "" {
		return nil, errors.New("filestore: no store configured: set PAYGATE_FILES_DIR or PAYGATE_FILES_S3_ENDPOINT")
	}
	l, err := NewLocal(cfg.Dir)
	if err != nil {
		return nil, err
	}
	return l, nil
}

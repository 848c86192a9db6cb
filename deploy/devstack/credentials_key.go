package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// localCredentialsKeys returns the gateway's PAYGATE_CREDENTIALS_KEYS for the
// local stack: a key generated on the first run and kept in the data folder
// (credentials-keys, mode 0600), so that providers' credentials saved in the
// local database keep opening across restarts, and are not sealed under the
// public demo key. Deleting the data folder deletes both.
func localCredentialsKeys(dataDir string) (string, error) {
	path := filepath.Join(dataDir, "credentials-keys")
	raw, err := os.ReadFile(path)
	if err == nil {
		return strings.TrimSpace(string(raw)), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("generate the local credentials key: %w", err)
	}
	keys := "local-1:" + base64.StdEncoding.EncodeToString(key)
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dataDir, err)
	}
	if err := os.WriteFile(path, []byte(keys+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return keys, nil
}

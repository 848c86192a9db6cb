package filestore

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrBadKey is returned (wrapped, with the reason) for a key or prefix that
// breaks the rules in ValidKey.
var ErrBadKey = errors.New("filestore: bad key")

// maxKeyLen is S3's limit on an object key, kept by every store so a key
// that works on one works on the other.
const maxKeyLen = 1024

// ValidKey checks a key: valid UTF-8 of at most 1024 bytes,
// "/"-separated segments none of them empty, ".", ".." or starting with "."
// (hidden names belong to the store: the local store's temporary files),
// no leading "/", no backslash and no control character. Errors wrap
// ErrBadKey.
func ValidKey(key string) error {
	return checkKey(key, false)
}

// validPrefix checks a DeletePrefix argument: the key rules, except that it
// may end with "/" (a "directory"); an empty prefix is refused so a slip
// cannot delete every file.
func validPrefix(prefix string) error {
	return checkKey(prefix, true)
}

func checkKey(key string, prefix bool) error {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrBadKey, key, why) }
	switch {
	case key == "":
		return bad("empty")
	case len(key) > maxKeyLen:
		return bad(fmt.Sprintf("longer than %d bytes", maxKeyLen))
	case !utf8.ValidString(key):
		return bad("not UTF-8")
	case key[0] == '/':
		return bad("starts with /")
	case strings.ContainsRune(key, '\\'):
		return bad("holds a backslash")
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f {
			return bad("holds a control character")
		}
	}
	body := key
	if prefix {
		body = strings.TrimSuffix(key, "/")
	}
	for seg := range strings.SplitSeq(body, "/") {
		switch {
		case seg == "":
			return bad("has an empty segment")
		case seg == "." || seg == "..":
			return bad("has a " + seg + " segment")
		case seg[0] == '.':
			return bad("has a segment starting with a dot")
		}
	}
	return nil
}

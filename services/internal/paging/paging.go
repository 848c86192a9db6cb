// Package paging reads the page and take of a list call, where an absent
// value takes its default and a present one must be in range: 0 sent on
// purpose is refused, not taken for "absent".
package paging

import "github.com/paygate/paygate/services/internal/apperr"

// Resolve returns the page (1-based) and page size of a list call from its
// optional fields: an absent page is 1 and an absent take is def; a present
// page must be 1 or more and a present take 1 to maxTake. Its errors are
// invalid, naming the field.
func Resolve(page, take *int32, def, maxTake int32) (int32, int32, error) {
	p, t := int32(1), def
	if page != nil {
		if *page < 1 {
			return 0, 0, apperr.Invalid("page must be 1 or more.")
		}
		p = *page
	}
	if take != nil {
		if *take < 1 || *take > maxTake {
			return 0, 0, apperr.Invalid("take must be between 1 and %d.", maxTake)
		}
		t = *take
	}
	return p, t, nil
}

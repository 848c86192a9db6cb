package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"unicode/utf8"

	"github.com/paygate/paygate/services/internal/apperr"
)

// guardBody is the first check of every HTTP route, the REST mapping's and
// those beside it (Handle): a request body over MaxBodyBytes is a 413, and
// one that is not UTF-8 text or not a single JSON value is a 400, before
// any route is matched and so before any handler, query check or
// authorization runs. Routes whose mapping binds no body (POST
// /transactions/{id}/cancel) meet the same checks: grpc-gateway would
// otherwise never read their body and run the handler whatever it held.
// A body announced over the limit is refused unread; one of unknown length
// is read up to the limit. The body that passes is handed on in memory,
// so a handler's own reading (the codec, a signature check) sees it whole.
func guardBody(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > MaxBodyBytes {
			writeError(w, http.StatusRequestEntityTooLarge, apperr.KindInvalid, TooLargeMessage)
			return
		}
		data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				writeError(w, http.StatusRequestEntityTooLarge, apperr.KindInvalid, TooLargeMessage)
				return
			}
			log.WarnContext(r.Context(), "request body could not be read", "method", r.Method, "path", r.URL.Path, "cause", err)
			writeError(w, http.StatusBadRequest, apperr.KindInvalid, "The request body could not be read.")
			return
		}
		if len(bytes.TrimSpace(data)) > 0 {
			switch {
			case !utf8.Valid(data):
				writeError(w, http.StatusBadRequest, apperr.KindInvalid, msgNotUTF8)
				return
			case !json.Valid(data):
				writeError(w, http.StatusBadRequest, apperr.KindInvalid, msgNotJSON)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(data))
		r.ContentLength = int64(len(data))
		next.ServeHTTP(w, r)
	})
}

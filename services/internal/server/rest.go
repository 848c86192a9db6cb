package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/apperr/grpcstatus"
	"github.com/paygate/paygate/services/internal/sensitive"
)

// ErrorBody is the JSON body of every REST error.
type ErrorBody struct {
	// Code is the error kind: invalid, unauthenticated, forbidden, not_found,
	// conflict, failed_precondition, too_many_requests, confirmation_required or
	// internal.
	Code string `json:"code"`
	// Message is a sentence the caller can act on.
	Message string `json:"message"`
	// Confirmation is what a confirmation_required answer (428) asks the
	// caller to confirm (docs/contracts-approvals.md).
	Confirmation *ConfirmationBody `json:"confirmation,omitempty"`
}

// ConfirmationBody is the call a caller must confirm: the canonical JSON of
// the described action and the standard base64 of the request's protobuf
// bytes, both handed to auth's BeginConfirmation unchanged.
type ConfirmationBody struct {
	Action  string `json:"action"`
	Request string `json:"request"`
}

func confirmationBody(c *apperr.Confirmation) *ConfirmationBody {
	if c == nil {
		return nil
	}
	return &ConfirmationBody{Action: c.Action, Request: base64.StdEncoding.EncodeToString(c.Request)}
}

// installQueryParser installs the case-insensitive query parser. grpc-gateway
// keeps the parser in a package variable, so it is set once per process.
var installQueryParser sync.Once

// newGatewayMux returns the grpc-gateway mux with Paygate's codec, error body
// and header rules.
func newGatewayMux(log *slog.Logger) *runtime.ServeMux {
	var opts []runtime.ServeMuxOption
	installQueryParser.Do(func() {
		opts = append(opts, runtime.SetQueryParameterParser(&queryParser{}))
	})
	return runtime.NewServeMux(append(opts,
		runtime.WithMarshalerOption(runtime.MIMEWildcard, NewJSONMarshaler()),
		runtime.WithErrorHandler(restErrorHandler(log)),
		runtime.WithOutgoingHeaderMatcher(outgoingHeader),
		runtime.WithIncomingHeaderMatcher(incomingHeader),
		runtime.WithForwardResponseOption(answerHTTPStatus),
		runtime.WithMiddlewares(pathMatchesBody),
	)...)
}

// HTTPStatusMetadata is the response metadata through which an RPC asks
// REST for another success status (SetHTTPStatus); it is not sent on as a
// header.
const HTTPStatusMetadata = "x-http-code"

// SetHTTPStatus asks REST to answer the RPC's success with code, a 2xx such
// as 202 for a call that only queues work (spec 02 §4). It reaches REST
// through the RPC's response metadata, so it also works for a call another
// service's REST forwards. Without a transport (a direct call) it does
// nothing.
func SetHTTPStatus(ctx context.Context, code int) {
	_ = grpc.SetHeader(ctx, metadata.Pairs(HTTPStatusMetadata, strconv.Itoa(code)))
}

// answerHTTPStatus applies the status SetHTTPStatus asked for before
// grpc-gateway writes a success's body.
func answerHTTPStatus(ctx context.Context, w http.ResponseWriter, _ proto.Message) error {
	md, ok := runtime.ServerMetadataFromContext(ctx)
	if !ok {
		return nil
	}
	vals := md.HeaderMD.Get(HTTPStatusMetadata)
	if len(vals) == 0 {
		return nil
	}
	if n, err := strconv.Atoi(vals[0]); err == nil && n >= 200 && n < 300 {
		w.WriteHeader(n)
	}
	return nil
}

// SetCookie asks REST to set c on the caller's browser (a Set-Cookie header
// from the RPC's response metadata). Without a transport it does nothing.
func SetCookie(ctx context.Context, c *http.Cookie) {
	_ = grpc.SetHeader(ctx, metadata.Pairs("set-cookie", c.String()))
}

// IncomingCookie returns the value of the named cookie a REST caller sent,
// or "" (grpc-gateway forwards the Cookie header as grpcgateway-cookie).
func IncomingCookie(ctx context.Context, name string) string {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, header := range md.Get(runtime.MetadataPrefix + "cookie") {
		cookies, err := http.ParseCookie(header)
		if err != nil {
			continue
		}
		for _, c := range cookies {
			if c.Name == name {
				return c.Value
			}
		}
	}
	return ""
}

// incomingHeader forwards W3C trace context (traceparent, tracestate) as
// metadata, besides grpc-gateway's default set, so REST calls join the
// caller's trace, and a sensitive change's confirmation token
// (X-Paygate-Confirmation) as sensitive.Header.
func incomingHeader(key string) (string, bool) {
	switch k := strings.ToLower(key); k {
	case "traceparent", "tracestate":
		return k, true
	case sensitive.Header:
		return sensitive.Header, true
	}
	return runtime.DefaultHeaderMatcher(key)
}

// outgoingHeader passes retry-after through as Retry-After and keeps
// grpc-gateway's Grpc-Metadata- prefix for other response metadata.
func outgoingHeader(key string) (string, bool) {
	switch {
	case strings.EqualFold(key, "retry-after"):
		return "Retry-After", true
	case strings.EqualFold(key, "set-cookie"):
		return "Set-Cookie", true
	case strings.EqualFold(key, HTTPStatusMetadata):
		return "", false
	}
	return runtime.MetadataHeaderPrefix + key, true
}

// restErrorHandler writes {"code", "message"} with the status of the error's
// kind (from the status's ErrorInfo, or its gRPC code) and Retry-After for a
// throttled call. A request refused before any handler ran keeps our
// sentence; library text in such a refusal is logged, never sent. (A body
// over MaxBodyBytes never gets here: guardBody answers 413 first.)
func restErrorHandler(log *slog.Logger) runtime.ErrorHandlerFunc {
	return func(ctx context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
		httpStatus := 0
		var hse *runtime.HTTPStatusError
		if errors.As(err, &hse) {
			httpStatus = hse.HTTPStatus
			err = hse.Err
		}
		st := status.Convert(err)
		kind, message := describe(st)
		if _, ok := grpcstatus.KindFromDetails(st); !ok && kind == apperr.KindInvalid {
			var library bool
			message, library = publicInvalid(st.Message())
			if library {
				log.WarnContext(ctx, "request refused before its handler", "method", r.Method, "path", r.URL.Path,
					"cause", st.Message(), "message", message)
			}
		}
		if httpStatus == 0 {
			httpStatus = kind.HTTPStatus()
			switch st.Code() {
			case codes.Unavailable, codes.DeadlineExceeded:
				httpStatus = runtime.HTTPStatusFromCode(st.Code())
			}
		}
		if kind == apperr.KindTooManyRequests {
			secs := int64(math.Ceil(grpcstatus.RetryAfter(st).Seconds()))
			w.Header().Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
		}
		body := ErrorBody{Code: string(kind), Message: message}
		if kind == apperr.KindConfirmationRequired {
			body.Confirmation = confirmationBody(grpcstatus.Confirmation(st))
		}
		writeBody(w, httpStatus, body)
	}
}

// describe returns the kind and public message of a status. Statuses made
// from apperr errors keep their message; statuses raised by gRPC or
// grpc-gateway themselves get a sentence per kind.
func describe(st *status.Status) (apperr.Kind, string) {
	if kind, ok := grpcstatus.KindFromDetails(st); ok {
		return kind, st.Message()
	}
	kind := grpcstatus.KindForCode(st.Code())
	switch kind {
	case apperr.KindInvalid:
		return kind, st.Message() // restErrorHandler makes it public (publicInvalid)
	case apperr.KindUnauthenticated:
		return kind, "Please sign in to continue."
	case apperr.KindForbidden:
		return kind, "You do not have permission to do this."
	case apperr.KindNotFound:
		if st.Code() == codes.Unimplemented {
			return kind, "This operation is not supported."
		}
		return kind, "The requested resource does not exist."
	case apperr.KindConflict:
		return kind, "The request conflicts with the current state. Reload and try again."
	case apperr.KindFailedPrecondition:
		return kind, "The request cannot be carried out in the current state."
	case apperr.KindTooManyRequests:
		return kind, "Too many requests. Please wait and try again."
	}
	switch st.Code() {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		return apperr.KindInternal, "The service is temporarily unavailable. Please try again."
	}
	return apperr.KindInternal, apperr.InternalMessage
}

// WriteError answers err the way REST answers a failed RPC, for handlers
// beside the grpc-gateway routes: {code, message} with the status of err's
// kind; an internal error's text is never shown.
func WriteError(w http.ResponseWriter, err error) {
	kind := apperr.KindOf(err)
	body := ErrorBody{Code: string(kind), Message: apperr.InternalMessage}
	if ae := apperr.As(err); ae != nil {
		body.Message = ae.PublicMessage()
		if kind == apperr.KindConfirmationRequired {
			body.Confirmation = confirmationBody(ae.Confirmation)
		}
	}
	writeBody(w, kind.HTTPStatus(), body)
}

// ReadBody reads r's body, at most MaxBodyBytes, for handlers beside the
// grpc-gateway routes. When it cannot, it has answered (413 with
// TooLargeMessage for a body over the limit, 400 otherwise) and returns
// false.
func ReadBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, apperr.KindInvalid, TooLargeMessage)
		} else {
			writeError(w, http.StatusBadRequest, apperr.KindInvalid, "The request body could not be read.")
		}
		return nil, false
	}
	return body, true
}

func writeError(w http.ResponseWriter, httpStatus int, kind apperr.Kind, message string) {
	writeBody(w, httpStatus, ErrorBody{Code: string(kind), Message: message})
}

func writeBody(w http.ResponseWriter, httpStatus int, e ErrorBody) {
	body, _ := json.Marshal(e)
	w.Header().Del("Trailer")
	w.Header().Del("Transfer-Encoding")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpStatus)
	_, _ = w.Write(body)
}

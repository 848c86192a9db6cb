package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/genproto/googleapis/api/httpbody"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/server"
)

// DownloadPattern is the route of a file's bytes (FileService.DownloadFile).
const DownloadPattern = "GET /api/v1/files/{id}"

// Metadata of a DownloadFile answer (grpcapi sets them).
const (
	ContentDispositionMetadata = "content-disposition"
	ContentLengthMetadata      = "x-content-length"
)

// Download answers a file's bytes as they are: grpc-gateway writes a
// streamed HttpBody with a delimiter after every message and without
// Content-Disposition, which breaks binary files, so this route calls
// FileService.DownloadFile itself, on the REST mux's connection and with
// the metadata grpc-gateway would send (the caller's token, address and
// user agent: the RPC's rules and scope apply as on any call). An error
// before the first byte is the REST error of every call ({code, message}
// with its status; a file not ready is 409 "… is not ready …"); one after
// it aborts the response, so a client never takes a short file for a whole
// one.
func Download(mux func() *runtime.ServeMux, cc func() grpc.ClientConnInterface) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := mux()
		fail := func(err error) {
			_, outbound := runtime.MarshalerForRequest(m, r)
			runtime.HTTPError(r.Context(), m, outbound, w, r, err)
		}
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil {
			server.WriteError(w, apperr.Invalid("id must be a whole number."))
			return
		}
		ctx, err := runtime.AnnotateContext(r.Context(), m, r, gatewayv1.FileService_DownloadFile_FullMethodName,
			runtime.WithHTTPPathPattern("/api/v1/files/{id}"))
		if err != nil {
			fail(err)
			return
		}
		stream, err := openDownload(ctx, cc(), id)
		if err != nil {
			fail(err)
			return
		}
		first := new(httpbody.HttpBody)
		if err := stream.RecvMsg(first); err != nil {
			if errors.Is(err, io.EOF) {
				err = status.Error(codes.Internal, "DownloadFile ended without a message")
			}
			fail(err)
			return
		}
		md, _ := stream.Header()
		h := w.Header()
		h.Set("Content-Type", first.GetContentType())
		if v := md.Get(ContentDispositionMetadata); len(v) > 0 {
			h.Set("Content-Disposition", v[0])
			if exposed := h.Get("Access-Control-Expose-Headers"); exposed != "" {
				h.Set("Access-Control-Expose-Headers", exposed+", Content-Disposition")
			}
		}
		if v := md.Get(ContentLengthMetadata); len(v) > 0 {
			h.Set("Content-Length", v[0])
		}
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusOK)
		if _, err := w.Write(first.GetData()); err != nil {
			return
		}
		for {
			msg := new(httpbody.HttpBody)
			err := stream.RecvMsg(msg)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				panic(http.ErrAbortHandler)
			}
			if _, err := w.Write(msg.GetData()); err != nil {
				return
			}
		}
	})
}

// openDownload starts FileService.DownloadFile on cc. It does what the
// generated client does, except that an io.EOF from sending the request is
// not an error of its own: the server ended the call before reading it (an
// interceptor refused it), and the call's status comes with the first
// receive. grpc-go hides that io.EOF from a server-streaming call; the
// in-process channel the REST mux uses does not, and the generated client
// passed it on as the error, which answered a refusal (401) as a 500.
func openDownload(ctx context.Context, cc grpc.ClientConnInterface, id int64) (grpc.ClientStream, error) {
	stream, err := cc.NewStream(ctx, &gatewayv1.FileService_ServiceDesc.Streams[0], gatewayv1.FileService_DownloadFile_FullMethodName)
	if err != nil {
		return nil, err
	}
	if err := stream.SendMsg(&gatewayv1.DownloadFileRequest{Id: id}); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if err := stream.CloseSend(); err != nil {
		return nil, err
	}
	return stream, nil
}

// ExportPattern is the route of export requests (FileService.ExportFile).
const ExportPattern = "POST /api/v1/files/export"

// ExportQuery serves ExportPattern with next (the REST mux) after moving
// the query's collabId into the JSON body: the console sends the collab in
// the query (spec 02 §7, POST /api/v1/files/export?collabId) and the filter
// and settings in the body, which grpc-gateway reads whole (body "*"),
// ignoring the query. A collabId that is not a whole number, or one that
// the body contradicts, is a 400.
func ExportQuery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		var text string
		for k, v := range q {
			if strings.EqualFold(k, "collabId") || k == "collab_id" {
				text = v[len(v)-1]
			}
		}
		if text == "" {
			next.ServeHTTP(w, r)
			return
		}
		id, err := strconv.ParseInt(strings.TrimSpace(text), 10, 32)
		if err != nil {
			server.WriteError(w, apperr.Invalid("collabId must be a whole number."))
			return
		}
		raw, ok := server.ReadBody(w, r)
		if !ok {
			return
		}
		body := map[string]json.RawMessage{}
		if len(bytes.TrimSpace(raw)) > 0 {
			if err := json.Unmarshal(raw, &body); err != nil {
				server.WriteError(w, apperr.Invalid("The request body must be a JSON object."))
				return
			}
		}
		for k, v := range body {
			if strings.EqualFold(k, "collabId") || k == "collab_id" {
				var given int64
				if json.Unmarshal(v, &given) != nil || given != id {
					server.WriteError(w, apperr.Invalid("collabId is given in the query and in the body with different values."))
					return
				}
				delete(body, k)
			}
		}
		body["collabId"] = json.RawMessage(strconv.FormatInt(id, 10))
		out, err := json.Marshal(body)
		if err != nil {
			server.WriteError(w, err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(out))
		r.ContentLength = int64(len(out))
		r.Header.Del("Content-Length")
		next.ServeHTTP(w, r)
	})
}

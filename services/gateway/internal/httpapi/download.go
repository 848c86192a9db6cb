package httpapi

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"

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
		stream, err := gatewayv1.NewFileServiceClient(cc()).DownloadFile(ctx, &gatewayv1.DownloadFileRequest{Id: id})
		if err != nil {
			fail(err)
			return
		}
		first, err := stream.Recv()
		if err != nil {
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
			msg, err := stream.Recv()
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

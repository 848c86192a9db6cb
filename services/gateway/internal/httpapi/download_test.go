package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/fullstorydev/grpchan/inprocgrpc"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/httpapi"
)

// TestDownloadAnswersARefusalWithItsStatus calls the download route on an
// in-process channel whose interceptor refuses every call before the
// handler reads the request, as the authorization interceptor does for a
// caller without a token. When the refusal comes before the request is
// sent (slowChannel waits for it), the channel reports the send as io.EOF
// about half of the time; the route must answer the refusal's status (401)
// every time, never a 500.
func TestDownloadAnswersARefusalWithItsStatus(t *testing.T) {
	refuse := func(any, grpc.ServerStream, *grpc.StreamServerInfo, grpc.StreamHandler) error {
		return status.Error(codes.Unauthenticated, "Please sign in to continue.")
	}
	ch := (&inprocgrpc.Channel{}).WithServerStreamInterceptor(refuse)
	ch.RegisterService(&gatewayv1.FileService_ServiceDesc, gatewayv1.UnimplementedFileServiceServer{})
	mux := runtime.NewServeMux()
	h := http.NewServeMux()
	h.Handle(httpapi.DownloadPattern, httpapi.Download(func() *runtime.ServeMux { return mux },
		func() grpc.ClientConnInterface { return slowChannel{ch} }))

	for i := range 60 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/files/7", nil))
		if rec.Code != http.StatusUnauthorized {
			t.Fatalf("call %d: status %d (%s), want 401", i, rec.Code, rec.Body)
		}
	}
}

// slowChannel opens a stream and waits before handing it over, so that a
// server which refuses at once has ended the call before the client sends.
type slowChannel struct{ *inprocgrpc.Channel }

func (c slowChannel) NewStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	s, err := c.Channel.NewStream(ctx, desc, method, opts...)
	time.Sleep(5 * time.Millisecond)
	return s, err
}

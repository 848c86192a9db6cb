package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	_ "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	"github.com/paygate/paygate/services/internal/authz/authztest"
)

// TestEveryGatewayRPCIsServed checks, on a running gateway, that every RPC of
// every service of paygate.gateway.v1 is registered over gRPC and reachable
// over REST at the path of its proto: called without a token, each answers
// Unauthenticated (401), never Unimplemented or an unmatched route (a
// deprecated RPC, kept for callers of the previous release, has no route of
// its own). The API tests of each area check what the calls do; this one
// catches a service that main.go does not register.
func TestEveryGatewayRPCIsServed(t *testing.T) {
	issuer := authztest.NewIssuer(t)
	jwks := authztest.ServeJWKS(t, issuer)
	gw := startGateway(t, jwks.URL)

	var services []protoreflect.ServiceDescriptor
	protoregistry.GlobalFiles.RangeFilesByPackage("paygate.gateway.v1", func(fd protoreflect.FileDescriptor) bool {
		for i := range fd.Services().Len() {
			services = append(services, fd.Services().Get(i))
		}
		return true
	})
	if len(services) == 0 {
		t.Fatal("no service of paygate.gateway.v1 is linked in")
	}

	cc, err := grpc.NewClient(gw.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	param := regexp.MustCompile(`\{[^}]+\}`)

	for _, sd := range services {
		for i := range sd.Methods().Len() {
			md := sd.Methods().Get(i)
			name := "/" + string(sd.FullName()) + "/" + string(md.Name())
			t.Run(name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				err := cc.Invoke(ctx, name, dynamicpb.NewMessage(md.Input()), dynamicpb.NewMessage(md.Output()))
				if status.Code(err) != codes.Unauthenticated {
					t.Errorf("gRPC without a token: %v, want Unauthenticated", err)
				}

				rule, _ := proto.GetExtension(md.Options(), annotations.E_Http).(*annotations.HttpRule)
				var method, path string
				switch p := rule.GetPattern().(type) {
				case *annotations.HttpRule_Get:
					method, path = http.MethodGet, p.Get
				case *annotations.HttpRule_Post:
					method, path = http.MethodPost, p.Post
				case *annotations.HttpRule_Put:
					method, path = http.MethodPut, p.Put
				case *annotations.HttpRule_Delete:
					method, path = http.MethodDelete, p.Delete
				case *annotations.HttpRule_Patch:
					method, path = http.MethodPatch, p.Patch
				default:
					if grpcapi.Rules[name].Internal {
						// Internal methods have no REST route
						// (docs/contracts-replay.md).
						return
					}
					if md.Options().(*descriptorpb.MethodOptions).GetDeprecated() {
						// A deprecated copy answers callers of the previous
						// release over gRPC; its route is the new method's.
						return
					}
					t.Fatalf("%s has no REST mapping", name)
				}
				req, err := http.NewRequestWithContext(ctx, method, gw.HTTPURL+param.ReplaceAllString(path, "1"), nil)
				if err != nil {
					t.Fatal(err)
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("%s %s without a token = %d %s, want 401", method, path, resp.StatusCode, body)
				}
			})
		}
	}
}

package server

import "testing"

func TestIncomingHeaderForwardsTraceContext(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]string{
		"Traceparent":            "traceparent",
		"tracestate":             "tracestate",
		"Grpc-Metadata-Foo":      "Foo",
		"X-Paygate-Confirmation": "x-paygate-confirmation",
	} {
		got, ok := incomingHeader(header)
		if !ok || got != want {
			t.Errorf("incomingHeader(%q) = %q, %v; want %q", header, got, ok, want)
		}
	}
	if _, ok := incomingHeader("X-Random-Header"); ok {
		t.Error("an arbitrary header was forwarded as metadata")
	}
}

package receivers

import (
	"net/netip"

	"go.opentelemetry.io/otel/trace"
)

// TreatAsPublic makes s consider the addresses f accepts public receivers
// (tests run their receivers on loopback).
func (s *Sender) TreatAsPublic(f func(netip.Addr) bool) { s.public = f }

// TraceWith makes s start its spans with tp instead of the global provider.
func (s *Sender) TraceWith(tp trace.TracerProvider) { s.tracer = tp.Tracer(tracerName) }

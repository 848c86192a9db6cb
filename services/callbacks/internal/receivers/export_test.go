package receivers

import "net/netip"

// TreatAsPublic makes s consider the addresses f accepts public receivers
// (tests run their receivers on loopback).
func (s *Sender) TreatAsPublic(f func(netip.Addr) bool) { s.public = f }

package main

import (
	"net/netip"
	"slices"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// endpoint is one end of a connection: a pod of the overlay's namespace (pod labels), a pod of
// another namespace (ns), or an address outside the cluster (ip).
type endpoint struct {
	name   string
	labels map[string]string
	ns     string
	ip     string
}

// allowed evaluates the NetworkPolicies of one namespace, as the API defines them, for a TCP
// connection from src to dst on port: a pod that some policy selects for a direction accepts in
// that direction only what one of those policies' rules allows.
func allowed(t *testing.T, pols []*networkingv1.NetworkPolicy, namespace string, src, dst endpoint, port int32) bool {
	t.Helper()
	ours := func(e endpoint) bool { return e.ns == "" && e.ip == "" }
	selects := func(ls *metav1.LabelSelector, set map[string]string) bool {
		sel, err := metav1.LabelSelectorAsSelector(ls)
		if err != nil {
			t.Fatal(err)
		}
		return sel.Matches(labels.Set(set))
	}
	peerMatches := func(p networkingv1.NetworkPolicyPeer, e endpoint) bool {
		if p.IPBlock != nil {
			if e.ip == "" {
				return false
			}
			addr := netip.MustParseAddr(e.ip)
			if !netip.MustParsePrefix(p.IPBlock.CIDR).Contains(addr) {
				return false
			}
			return !slices.ContainsFunc(p.IPBlock.Except, func(c string) bool { return netip.MustParsePrefix(c).Contains(addr) })
		}
		if e.ip != "" {
			return false
		}
		ns := e.ns
		if ns == "" {
			ns = namespace
		}
		if p.NamespaceSelector != nil {
			if !selects(p.NamespaceSelector, map[string]string{"kubernetes.io/metadata.name": ns}) {
				return false
			}
		} else if ns != namespace {
			return false
		}
		return p.PodSelector == nil || selects(p.PodSelector, e.labels)
	}
	portMatches := func(ports []networkingv1.NetworkPolicyPort) bool {
		return len(ports) == 0 || slices.ContainsFunc(ports, func(p networkingv1.NetworkPolicyPort) bool {
			return (p.Protocol == nil || *p.Protocol == "TCP") && (p.Port == nil || p.Port.IntVal == port)
		})
	}
	// direction reports whether pod (ours) may connect to, or be connected from, peer.
	direction := func(pod, peer endpoint, kind networkingv1.PolicyType) bool {
		isolated := false
		for _, np := range pols {
			if !slices.Contains(np.Spec.PolicyTypes, kind) || !selects(&np.Spec.PodSelector, pod.labels) {
				continue
			}
			isolated = true
			if kind == networkingv1.PolicyTypeEgress {
				for _, r := range np.Spec.Egress {
					if portMatches(r.Ports) && (len(r.To) == 0 || slices.ContainsFunc(r.To, func(p networkingv1.NetworkPolicyPeer) bool { return peerMatches(p, peer) })) {
						return true
					}
				}
			} else {
				for _, r := range np.Spec.Ingress {
					if portMatches(r.Ports) && (len(r.From) == 0 || slices.ContainsFunc(r.From, func(p networkingv1.NetworkPolicyPeer) bool { return peerMatches(p, peer) })) {
						return true
					}
				}
			}
		}
		return !isolated
	}
	if ours(src) && !direction(src, dst, networkingv1.PolicyTypeEgress) {
		return false
	}
	if ours(dst) && !direction(dst, src, networkingv1.PolicyTypeIngress) {
		return false
	}
	return true
}

// TestNetworkPaths checks the prod overlay's NetworkPolicies against the paths the services need
// (from their main.go: ports, gRPC clients, outbound HTTP) and a few they must not have.
func TestNetworkPaths(t *testing.T) {
	var pols []*networkingv1.NetworkPolicy
	pod := map[string]endpoint{}
	namespace := ""
	for _, o := range decodeAll(t, "../../k8s/overlays/prod") {
		if np, ok := o.typed.(*networkingv1.NetworkPolicy); ok {
			pols = append(pols, np)
			namespace = np.Namespace
		}
		if _, l := podTemplate(o.typed); l != nil {
			pod[l["app.kubernetes.io/name"]] = endpoint{name: l["app.kubernetes.io/name"], labels: l}
		}
	}
	pod["paygate-db"] = endpoint{name: "paygate-db", labels: map[string]string{"cnpg.io/cluster": "paygate-db"}}
	ingressController := endpoint{name: "ingress-nginx", ns: "ingress-nginx"}
	dns := endpoint{name: "kube-dns", ns: "kube-system", labels: map[string]string{"k8s-app": "kube-dns"}}
	internet := endpoint{name: "a provider", ip: "203.0.113.10"}
	private := endpoint{name: "a private address", ip: "10.1.2.3"}
	services := []string{"auth", "gateway", "callbacks", "aggregator"}

	type flow struct {
		from, to endpoint
		port     int32
	}
	var want, deny []flow
	for i, s := range services {
		for _, dep := range []struct {
			to   string
			port int32
		}{{"paygate-db", 5432}, {"nats", 4222}, {"redis", 6379}, {"auth", 8081}} {
			want = append(want, flow{pod[s], pod[dep.to], dep.port})
		}
		want = append(want, flow{pod[s], dns, 53}, flow{ingressController, pod[s], 8081 + int32(i)})
		deny = append(deny, flow{ingressController, pod[s], 9081 + int32(i)}, flow{pod[s], private, 443})
	}
	want = append(want,
		flow{pod["gateway"], pod["auth"], 9081}, flow{pod["gateway"], pod["callbacks"], 9083},
		flow{pod["gateway"], pod["aggregator"], 9084}, flow{pod["callbacks"], pod["gateway"], 9082},
		flow{pod["aggregator"], pod["gateway"], 9082}, flow{pod["gateway"], internet, 443},
		flow{pod["gateway"], internet, 80}, flow{pod["callbacks"], internet, 443},
		flow{pod["nats"], pod["nats"], 6222}, flow{ingressController, pod["console"], 8080},
		flow{pod["paygate-db"], pod["paygate-db"], 5432},
	)
	deny = append(deny,
		flow{pod["console"], pod["redis"], 6379}, flow{pod["console"], pod["paygate-db"], 5432},
		flow{pod["console"], internet, 443}, flow{pod["aggregator"], internet, 443},
		flow{pod["auth"], internet, 443}, flow{pod["callbacks"], pod["auth"], 9081},
		flow{pod["aggregator"], pod["callbacks"], 9083}, flow{pod["redis"], internet, 443},
		flow{pod["nats"], internet, 443}, flow{pod["gateway"], pod["nats"], 6222},
		flow{ingressController, pod["redis"], 6379}, flow{ingressController, pod["paygate-db"], 5432},
	)
	if namespace == "" || len(pod) < len(services)+3 {
		t.Fatalf("the prod overlay has no NetworkPolicies or lacks workloads (%d pods)", len(pod))
	}
	for _, f := range want {
		if !allowed(t, pols, namespace, f.from, f.to, f.port) {
			t.Errorf("%s → %s:%d is needed but denied", f.from.name, f.to.name, f.port)
		}
	}
	for _, f := range deny {
		if allowed(t, pols, namespace, f.from, f.to, f.port) {
			t.Errorf("%s → %s:%d must be denied but is allowed", f.from.name, f.to.name, f.port)
		}
	}
}

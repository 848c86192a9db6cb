package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// operatorLabels are pod labels set by an operator on pods that are not in the build (the
// CloudNativePG instances): a NetworkPolicy may select them without a pod template to match.
var operatorLabels = []string{"cnpg.io/cluster"}

// TestProduction checks what the prod overlay promises a platform team: NATS as a JetStream
// cluster, Postgres replicated and backed up, Redis as one server, every Paygate workload
// autoscaled, and a default-deny network.
func TestProduction(t *testing.T) {
	objs := decodeAll(t, "../../k8s/overlays/prod")
	var (
		deployments  = map[string]*appsv1.Deployment{}
		statefulSets = map[string]*appsv1.StatefulSet{}
		services     = map[string]*corev1.Service{}
		configMaps   []*corev1.ConfigMap
		hpaTargets   = map[string]bool{}
		customs      = map[string]map[string]any{}
		defaultDeny  bool
	)
	for _, o := range objs {
		switch x := o.typed.(type) {
		case *appsv1.Deployment:
			deployments[x.Name] = x
		case *appsv1.StatefulSet:
			statefulSets[x.Name] = x
		case *corev1.Service:
			services[x.Name] = x
		case *corev1.ConfigMap:
			configMaps = append(configMaps, x)
		case *autoscalingv2.HorizontalPodAutoscaler:
			if x.Spec.ScaleTargetRef.Kind == "Deployment" {
				hpaTargets[x.Spec.ScaleTargetRef.Name] = true
			}
		case *networkingv1.NetworkPolicy:
			if len(x.Spec.PodSelector.MatchLabels) == 0 && len(x.Spec.PodSelector.MatchExpressions) == 0 &&
				slices.Contains(x.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) &&
				slices.Contains(x.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) &&
				len(x.Spec.Ingress) == 0 && len(x.Spec.Egress) == 0 {
				defaultDeny = true
			}
		case map[string]any:
			customs[o.gvk+" "+o.name] = x
		}
	}

	t.Run("nats", func(t *testing.T) {
		s := statefulSets["nats"]
		if s == nil {
			t.Fatal("no StatefulSet nats")
		}
		n := int32(1)
		if s.Spec.Replicas != nil {
			n = *s.Spec.Replicas
		}
		if n < 3 || n%2 == 0 {
			t.Errorf("%d NATS servers: a JetStream cluster needs an odd number, 3 or more", n)
		}
		if h := services[s.Spec.ServiceName]; h == nil || h.Spec.ClusterIP != corev1.ClusterIPNone {
			t.Errorf("serviceName %q is not a headless Service of the build", s.Spec.ServiceName)
		}
		if len(s.Spec.VolumeClaimTemplates) == 0 {
			t.Error("no volumeClaimTemplates: JetStream would keep its streams on the node's disk")
		}
		a := s.Spec.Template.Spec.Affinity
		if a == nil || a.PodAntiAffinity == nil || !slices.ContainsFunc(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
			func(term corev1.PodAffinityTerm) bool { return term.TopologyKey == "kubernetes.io/hostname" }) {
			t.Error("no required pod anti-affinity on kubernetes.io/hostname")
		}
		var conf string
		for _, cm := range configMaps {
			if strings.HasPrefix(cm.Name, "nats-config") {
				conf = cm.Data["nats.conf"]
			}
		}
		for i := range n {
			route := fmt.Sprintf("nats://%s-%d.%s:6222", s.Name, i, s.Spec.ServiceName)
			if !strings.Contains(conf, route) {
				t.Errorf("nats.conf does not route to %s", route)
			}
		}
		if !strings.Contains(conf, "jetstream") {
			t.Error("nats.conf does not enable JetStream")
		}
	})

	t.Run("postgres", func(t *testing.T) {
		c := customs["postgresql.cnpg.io/v1/Cluster paygate-db"]
		if c == nil {
			t.Fatal("no CloudNativePG Cluster paygate-db")
		}
		if n, _ := lookup(c, "spec", "instances").(float64); n < 2 {
			t.Errorf("instances = %v, want a primary and at least one replica", n)
		}
		store, _ := lookup(c, "spec", "backup", "barmanObjectStore").(map[string]any)
		if store == nil || lookup(store, "destinationPath") == nil {
			t.Fatal("no spec.backup.barmanObjectStore with a destinationPath")
		}
		for _, k := range []string{"accessKeyId", "secretAccessKey"} {
			if lookup(store, "s3Credentials", k, "name") == nil || lookup(store, "s3Credentials", k, "key") == nil {
				t.Errorf("s3Credentials.%s must name a Secret and its key", k)
			}
		}
		scheduled := false
		for id, x := range customs {
			if strings.HasPrefix(id, "postgresql.cnpg.io/v1/ScheduledBackup ") && lookup(x, "spec", "cluster", "name") == "paygate-db" {
				scheduled = true
			}
		}
		if !scheduled {
			t.Error("no ScheduledBackup of paygate-db")
		}
	})

	t.Run("redis", func(t *testing.T) {
		d := deployments["redis"]
		if d == nil {
			t.Fatal("no Deployment redis")
		}
		if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 || hpaTargets["redis"] {
			t.Error("Redis must be one server: replicas 1, no autoscaler")
		}
		if d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
			t.Error("Redis must be replaced, not rolled (two servers side by side split the state)")
		}
		args := strings.Join(d.Spec.Template.Spec.Containers[0].Args, " ")
		if !strings.Contains(args, `--appendonly no`) || !strings.Contains(args, "--save ") {
			t.Errorf("Redis args %q: persistence must be off (see k8s/components/redis)", args)
		}
	})

	t.Run("autoscaling and spread", func(t *testing.T) {
		for name, d := range deployments {
			c := d.Spec.Template.Labels["app.kubernetes.io/component"]
			if c != "service" && c != "console" {
				continue
			}
			if !hpaTargets[name] {
				t.Errorf("Deployment %s has no HorizontalPodAutoscaler", name)
			}
			if len(d.Spec.Template.Spec.TopologySpreadConstraints) == 0 {
				t.Errorf("Deployment %s has no topologySpreadConstraints: its replicas may share a node", name)
			}
		}
	})

	t.Run("secrets", func(t *testing.T) {
		required := map[string][]string{
			"auth":       {"PAYGATE_INTERNAL_TOKEN"},
			"gateway":    {"PAYGATE_INTERNAL_TOKEN", "PAYGATE_ENCRYPTION_KEY"},
			"callbacks":  {"PAYGATE_INTERNAL_TOKEN", "PAYGATE_ENCRYPTION_KEY"},
			"aggregator": {"PAYGATE_INTERNAL_TOKEN"},
		}
		for name, keys := range required {
			d := deployments[name]
			if d == nil {
				t.Errorf("no Deployment %s", name)
				continue
			}
			env := map[string]corev1.EnvVar{}
			for _, e := range d.Spec.Template.Spec.Containers[0].Env {
				env[e.Name] = e
			}
			for _, k := range keys {
				e := env[k]
				if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Optional == nil || *e.ValueFrom.SecretKeyRef.Optional {
					t.Errorf("Deployment %s: %s must come from a Secret with optional: false", name, k)
				}
			}
			if name == "auth" && strings.Contains(env["PAYGATE_WEBAUTHN_RP_ID"].Value, "localhost") {
				t.Error("Deployment auth: PAYGATE_WEBAUTHN_RP_ID is still localhost")
			}
		}
	})

	if !defaultDeny {
		t.Error("no default-deny NetworkPolicy (empty podSelector, Ingress and Egress, no rules)")
	}
}

// TestNetworkPolicies checks that every pod selector of every NetworkPolicy selects pods of the
// build (or an operator's pods), so that a renamed label cannot silently open or close a path.
func TestNetworkPolicies(t *testing.T) {
	for _, dir := range overlays(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			objs := decodeAll(t, dir)
			var pods []labels.Set
			for _, o := range objs {
				if _, l := podTemplate(o.typed); l != nil {
					pods = append(pods, labels.Set(l))
				}
			}
			check := func(id string, ls *metav1.LabelSelector) {
				if ls == nil {
					return
				}
				for _, k := range operatorLabels {
					if _, ok := ls.MatchLabels[k]; ok {
						return
					}
				}
				sel, err := metav1.LabelSelectorAsSelector(ls)
				if err != nil {
					t.Errorf("%s: %v", id, err)
					return
				}
				if !slices.ContainsFunc(pods, func(l labels.Set) bool { return sel.Matches(l) }) {
					t.Errorf("%s: pod selector %s matches no pod template", id, sel)
				}
			}
			for _, o := range objs {
				np, ok := o.typed.(*networkingv1.NetworkPolicy)
				if !ok {
					continue
				}
				id := "NetworkPolicy " + np.Name
				check(id, &np.Spec.PodSelector)
				var peers []networkingv1.NetworkPolicyPeer
				for _, r := range np.Spec.Ingress {
					peers = append(peers, r.From...)
				}
				for _, r := range np.Spec.Egress {
					peers = append(peers, r.To...)
				}
				for _, p := range peers {
					if p.NamespaceSelector == nil { // a peer in another namespace is not in the build
						check(id+" peer", p.PodSelector)
					}
				}
			}
		})
	}
}

// lookup walks nested maps of a decoded custom resource; nil when a key is missing.
func lookup(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

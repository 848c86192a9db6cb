package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// builtinKinds are the Kubernetes kinds the manifests may use, each decoded strictly into its
// k8s.io/api type: an unknown or misspelled field, or a value of the wrong type, fails the check
// (what a schema validator such as kubeconform does, without fetching schemas from the network).
var builtinKinds = map[string]func() any{
	"v1/Namespace":                           func() any { return &corev1.Namespace{} },
	"v1/ServiceAccount":                      func() any { return &corev1.ServiceAccount{} },
	"v1/ConfigMap":                           func() any { return &corev1.ConfigMap{} },
	"v1/Secret":                              func() any { return &corev1.Secret{} },
	"v1/Service":                             func() any { return &corev1.Service{} },
	"apps/v1/Deployment":                     func() any { return &appsv1.Deployment{} },
	"apps/v1/StatefulSet":                    func() any { return &appsv1.StatefulSet{} },
	"autoscaling/v2/HorizontalPodAutoscaler": func() any { return &autoscalingv2.HorizontalPodAutoscaler{} },
	"policy/v1/PodDisruptionBudget":          func() any { return &policyv1.PodDisruptionBudget{} },
	"networking.k8s.io/v1/Ingress":           func() any { return &networkingv1.Ingress{} },
	"networking.k8s.io/v1/NetworkPolicy":     func() any { return &networkingv1.NetworkPolicy{} },
}

// customKinds are operator resources whose schema is not in k8s.io/api: only their metadata and
// the presence of a spec are checked.
var customKinds = []string{"postgresql.cnpg.io/v1/Cluster", "postgresql.cnpg.io/v1/ScheduledBackup"}

// externalSecrets are secrets an overlay expects the cluster to have (created by an operator or
// by hand, see k8s/overlays/prod/kustomization.yaml) rather than generated.
var externalSecrets = map[string]bool{"paygate-secrets": true, "paygate-db-app": true, "paygate-tls": true}

// object is one built manifest, decoded.
type object struct {
	gvk, name string
	typed     any
}

func overlays(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob("../../k8s/overlays/*")
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no overlays under k8s/overlays")
	}
	return append([]string{"../../k8s/base"}, dirs...)
}

// decodeAll builds dir and decodes every resource strictly.
func decodeAll(t *testing.T, dir string) []object {
	t.Helper()
	m, err := kustomize(dir)
	if err != nil {
		t.Fatal(err)
	}
	var objs []object
	for _, r := range m.Resources() {
		gvk := r.GetApiVersion() + "/" + r.GetKind()
		name := r.GetName()
		id := gvk + " " + name
		for _, msg := range validation.IsDNS1123Subdomain(name) {
			t.Errorf("%s: name: %s", id, msg)
		}
		y, err := r.AsYAML()
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		j, err := yaml.YAMLToJSON(y)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		newObj, ok := builtinKinds[gvk]
		if !ok {
			if !slices.Contains(customKinds, gvk) {
				t.Errorf("%s: kind not known to this check (add its k8s.io/api type to builtinKinds)", id)
				continue
			}
			var u map[string]any
			if err := json.Unmarshal(j, &u); err != nil || u["spec"] == nil {
				t.Errorf("%s: no spec (%v)", id, err)
			}
			objs = append(objs, object{gvk: gvk, name: name, typed: u})
			continue
		}
		obj := newObj()
		dec := json.NewDecoder(bytes.NewReader(j))
		dec.DisallowUnknownFields()
		if err := dec.Decode(obj); err != nil {
			t.Errorf("%s: does not match the Kubernetes API: %v", id, err)
			continue
		}
		objs = append(objs, object{gvk: gvk, name: name, typed: obj})
	}
	return objs
}

func TestManifests(t *testing.T) {
	for _, dir := range overlays(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			objs := decodeAll(t, dir)
			if len(objs) == 0 {
				t.Fatal("the build is empty")
			}
			checkReferences(t, objs)
			for _, o := range objs {
				spec, labels := podTemplate(o.typed)
				if spec == nil {
					continue
				}
				checkPod(t, o.gvk+" "+o.name, spec, labels)
				// An overlay deploys a release: every image names a tag, and not latest.
				if filepath.Base(filepath.Dir(dir)) == "overlays" {
					for _, c := range spec.Containers {
						_, tag, ok := strings.Cut(c.Image[strings.LastIndex(c.Image, "/")+1:], ":")
						if !ok || tag == "" || tag == "latest" {
							t.Errorf("%s %s: image %q must name a tag other than latest", o.gvk, o.name, c.Image)
						}
					}
				}
			}
		})
	}
}

// TestPaygateServices checks what every overlay must keep for the Paygate services themselves.
func TestPaygateServices(t *testing.T) {
	for _, dir := range overlays(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			seen := map[string]bool{}
			for _, o := range decodeAll(t, dir) {
				d, ok := o.typed.(*appsv1.Deployment)
				if !ok || d.Spec.Template.Labels["app.kubernetes.io/component"] != "service" {
					continue
				}
				seen[d.Name] = true
				c := d.Spec.Template.Spec.Containers[0]
				id := "Deployment " + d.Name
				ports := map[string]int32{}
				for _, p := range c.Ports {
					ports[p.Name] = p.ContainerPort
				}
				if ports["http"] == 0 || ports["grpc"] == 0 {
					t.Errorf("%s: needs container ports named http and grpc, has %v", id, ports)
				}
				if p := c.LivenessProbe; p == nil || p.GRPC == nil || p.GRPC.Port != ports["grpc"] {
					t.Errorf("%s: the liveness probe must be a native gRPC probe on the grpc port", id)
				}
				if p := c.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/readyz" {
					t.Errorf("%s: the readiness probe must be GET /readyz", id)
				}
				env := map[string]corev1.EnvVar{}
				for _, e := range c.Env {
					env[e.Name] = e
				}
				for _, want := range []string{"PAYGATE_HTTP_ADDR", "PAYGATE_GRPC_ADDR"} {
					if env[want].Value == "" {
						t.Errorf("%s: %s not set", id, want)
					}
				}
				if e := env["PAYGATE_DATABASE_URL"]; e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
					t.Errorf("%s: PAYGATE_DATABASE_URL must come from a Secret", id)
				}
				if env["PAYGATE_HTTP_ADDR"].Value != fmt.Sprintf(":%d", ports["http"]) ||
					env["PAYGATE_GRPC_ADDR"].Value != fmt.Sprintf(":%d", ports["grpc"]) {
					t.Errorf("%s: PAYGATE_HTTP_ADDR/PAYGATE_GRPC_ADDR disagree with the container ports", id)
				}
			}
			for _, want := range []string{"auth", "gateway", "callbacks", "aggregator"} {
				if !seen[want] {
					t.Errorf("no Deployment %s", want)
				}
			}
		})
	}
}

// TestConsoleConfigs checks that every console config.json in k8s/ names every service URL.
func TestConsoleConfigs(t *testing.T) {
	files, _ := filepath.Glob("../../k8s/*/*.json")
	more, _ := filepath.Glob("../../k8s/overlays/*/*.json")
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cfg map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		if err := dec.Decode(&cfg); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for _, k := range []string{"authUrl", "gatewayUrl", "callbacksUrl", "aggregatorUrl"} {
			if s, _ := cfg[k].(string); !strings.HasPrefix(s, "http") {
				t.Errorf("%s: %s = %v, want a URL", f, k, cfg[k])
			}
		}
		if _, ok := cfg["remotes"].(map[string]any); !ok {
			t.Errorf("%s: remotes missing", f)
		}
	}
}

func podTemplate(obj any) (*corev1.PodSpec, map[string]string) {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return &o.Spec.Template.Spec, o.Spec.Template.Labels
	case *appsv1.StatefulSet:
		return &o.Spec.Template.Spec, o.Spec.Template.Labels
	}
	return nil, nil
}

// checkPod holds every workload to the house rules: non-root, read-only root filesystem, no
// privilege escalation, all capabilities dropped, requests and limits, liveness and readiness
// probes on ports the container declares, and no service-account token unless asked for.
func checkPod(t *testing.T, id string, spec *corev1.PodSpec, labels map[string]string) {
	t.Helper()
	if labels["app.kubernetes.io/name"] == "" {
		t.Errorf("%s: pod template lacks the app.kubernetes.io/name label", id)
	}
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		t.Errorf("%s: set automountServiceAccountToken: false", id)
	}
	podNonRoot := spec.SecurityContext != nil && spec.SecurityContext.RunAsNonRoot != nil && *spec.SecurityContext.RunAsNonRoot
	if sc := spec.SecurityContext; sc == nil || sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("%s: the pod needs seccompProfile RuntimeDefault", id)
	}
	for _, c := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
		cid := id + " container " + c.Name
		sc := c.SecurityContext
		nonRoot := podNonRoot || (sc != nil && sc.RunAsNonRoot != nil && *sc.RunAsNonRoot)
		if !nonRoot {
			t.Errorf("%s: runAsNonRoot is not set", cid)
		}
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("%s: readOnlyRootFilesystem is not true", cid)
		}
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			t.Errorf("%s: allowPrivilegeEscalation is not false", cid)
		}
		if sc == nil || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0 {
			t.Errorf("%s: capabilities must drop ALL and add none", cid)
		}
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if _, ok := c.Resources.Requests[r]; !ok {
				t.Errorf("%s: no %s request", cid, r)
			}
			if _, ok := c.Resources.Limits[r]; !ok && r == corev1.ResourceMemory {
				t.Errorf("%s: no %s limit", cid, r)
			}
		}
		if c.LivenessProbe == nil || c.ReadinessProbe == nil {
			t.Errorf("%s: needs liveness and readiness probes", cid)
		}
		ports := map[string]int32{}
		for _, p := range c.Ports {
			if p.Name == "" {
				t.Errorf("%s: container port %d has no name", cid, p.ContainerPort)
			}
			ports[p.Name] = p.ContainerPort
		}
		for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
			if p == nil {
				continue
			}
			switch {
			case p.HTTPGet != nil && p.HTTPGet.Port.StrVal != "":
				if _, ok := ports[p.HTTPGet.Port.StrVal]; !ok {
					t.Errorf("%s: a probe names port %q the container does not declare", cid, p.HTTPGet.Port.StrVal)
				}
			case p.TCPSocket != nil && p.TCPSocket.Port.StrVal != "":
				if _, ok := ports[p.TCPSocket.Port.StrVal]; !ok {
					t.Errorf("%s: a probe names port %q the container does not declare", cid, p.TCPSocket.Port.StrVal)
				}
			case p.GRPC != nil:
				if !slices.Contains(valuesOf(ports), p.GRPC.Port) {
					t.Errorf("%s: the gRPC probe's port %d is not a container port", cid, p.GRPC.Port)
				}
			}
		}
	}
}

func valuesOf(m map[string]int32) []int32 {
	var v []int32
	for _, x := range m {
		v = append(v, x)
	}
	return v
}

// checkReferences checks that what the objects name exists in the same build: the ConfigMaps and
// Secrets pods read, the pods a Service, PodDisruptionBudget or autoscaler selects, the Services
// and ports an Ingress routes to, and the ServiceAccounts pods run as.
func checkReferences(t *testing.T, objs []object) {
	t.Helper()
	has := map[string]bool{}
	type pod struct {
		labels map[string]string
		ports  map[string]bool
	}
	var pods []pod
	services := map[string]*corev1.Service{}
	for _, o := range objs {
		has[o.gvk+" "+o.name] = true
		if s, ok := o.typed.(*corev1.Service); ok {
			services[s.Name] = s
		}
		if spec, labels := podTemplate(o.typed); spec != nil {
			p := pod{labels: labels, ports: map[string]bool{}}
			for _, c := range spec.Containers {
				for _, cp := range c.Ports {
					p.ports[cp.Name] = true
				}
			}
			pods = append(pods, p)
		}
	}
	selects := func(sel map[string]string) []pod {
		var out []pod
		for _, p := range pods {
			match := len(sel) > 0
			for k, v := range sel {
				if p.labels[k] != v {
					match = false
				}
			}
			if match {
				out = append(out, p)
			}
		}
		return out
	}
	needConfigMap := func(id, name string, optional *bool) {
		if !has["v1/ConfigMap "+name] && (optional == nil || !*optional) {
			t.Errorf("%s: ConfigMap %s is not in the build", id, name)
		}
	}
	needSecret := func(id, name string, optional *bool) {
		if !has["v1/Secret "+name] && !externalSecrets[name] && (optional == nil || !*optional) {
			t.Errorf("%s: Secret %s is neither in the build nor a known external secret", id, name)
		}
	}
	for _, o := range objs {
		id := o.gvk + " " + o.name
		if spec, _ := podTemplate(o.typed); spec != nil {
			if sa := spec.ServiceAccountName; sa != "" && !has["v1/ServiceAccount "+sa] {
				t.Errorf("%s: ServiceAccount %s is not in the build", id, sa)
			}
			for _, v := range spec.Volumes {
				if v.ConfigMap != nil {
					needConfigMap(id, v.ConfigMap.Name, v.ConfigMap.Optional)
				}
				if v.Secret != nil {
					needSecret(id, v.Secret.SecretName, v.Secret.Optional)
				}
			}
			for _, c := range spec.Containers {
				for _, ef := range c.EnvFrom {
					if ef.ConfigMapRef != nil {
						needConfigMap(id, ef.ConfigMapRef.Name, ef.ConfigMapRef.Optional)
					}
					if ef.SecretRef != nil {
						needSecret(id, ef.SecretRef.Name, ef.SecretRef.Optional)
					}
				}
				for _, e := range c.Env {
					if e.ValueFrom == nil {
						continue
					}
					if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
						needConfigMap(id, r.Name, r.Optional)
					}
					if r := e.ValueFrom.SecretKeyRef; r != nil {
						needSecret(id, r.Name, r.Optional)
					}
				}
			}
		}
		switch x := o.typed.(type) {
		case *corev1.Service:
			matched := selects(x.Spec.Selector)
			if len(matched) == 0 {
				t.Errorf("%s: its selector %v matches no pod template", id, x.Spec.Selector)
			}
			for _, sp := range x.Spec.Ports {
				if name := sp.TargetPort.StrVal; name != "" {
					for _, p := range matched {
						if !p.ports[name] {
							t.Errorf("%s: targetPort %q is not a port of the pods it selects", id, name)
						}
					}
				}
			}
		case *policyv1.PodDisruptionBudget:
			if x.Spec.Selector == nil || len(selects(x.Spec.Selector.MatchLabels)) == 0 {
				t.Errorf("%s: selects no pod template", id)
			}
		case *autoscalingv2.HorizontalPodAutoscaler:
			ref := x.Spec.ScaleTargetRef
			if !has[ref.APIVersion+"/"+ref.Kind+" "+ref.Name] {
				t.Errorf("%s: scale target %s %s is not in the build", id, ref.Kind, ref.Name)
			}
		case *networkingv1.Ingress:
			for _, tls := range x.Spec.TLS {
				needSecret(id, tls.SecretName, nil)
			}
			for _, rule := range x.Spec.Rules {
				if rule.HTTP == nil {
					continue
				}
				for _, p := range rule.HTTP.Paths {
					svc := services[p.Backend.Service.Name]
					if svc == nil {
						t.Errorf("%s: backend Service %s is not in the build", id, p.Backend.Service.Name)
						continue
					}
					found := false
					for _, sp := range svc.Spec.Ports {
						if sp.Name == p.Backend.Service.Port.Name || (sp.Port != 0 && sp.Port == p.Backend.Service.Port.Number) {
							found = true
						}
					}
					if !found {
						t.Errorf("%s: Service %s has no port %v", id, svc.Name, p.Backend.Service.Port)
					}
				}
			}
		}
	}
}

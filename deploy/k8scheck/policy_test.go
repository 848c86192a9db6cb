package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestWorkloadPolicy holds every workload of every overlay (NATS, Redis and the dev Postgres
// included) to workloadPolicy.
func TestWorkloadPolicy(t *testing.T) {
	for _, dir := range overlays(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var objs []any
			for _, o := range decodeAll(t, dir) {
				objs = append(objs, o.typed)
			}
			for _, v := range workloadPolicy(objs) {
				t.Error(v)
			}
		})
	}
}

// goodDeployment returns a Deployment that keeps every rule, and the budget that covers it.
func goodDeployment() (*appsv1.Deployment, *policyv1.PodDisruptionBudget) {
	yes, no := true, false
	labels := map[string]string{"app.kubernetes.io/name": "web"}
	probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}}}
	qty := resource.MustParse
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "paygate"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   &yes,
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Name:           "web",
						LivenessProbe:  probe,
						ReadinessProbe: probe,
						StartupProbe:   probe,
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: qty("100m"), corev1.ResourceMemory: qty("64Mi")},
							Limits:   corev1.ResourceList{corev1.ResourceCPU: qty("1"), corev1.ResourceMemory: qty("128Mi")},
						},
						SecurityContext: &corev1.SecurityContext{
							RunAsNonRoot:             &yes,
							SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
							ReadOnlyRootFilesystem:   &yes,
							AllowPrivilegeEscalation: &no,
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
				},
			},
		},
	}
	one := intstr.FromInt32(1)
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "paygate"},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable: &one,
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "web"}},
		},
	}
	return d, pdb
}

// TestWorkloadPolicyRefuses breaks one rule at a time on a compliant Deployment and expects the
// policy to name it, so that the check above can fail.
func TestWorkloadPolicyRefuses(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name    string
		breakIt func(d *appsv1.Deployment, pdb *policyv1.PodDisruptionBudget) []any
		want    string // a substring of the expected violation; "" means none
	}{
		{"compliant", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any { return []any{d, p} }, ""},
		{"no budget", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any { return []any{d} }, "no PodDisruptionBudget"},
		{"budget selects other pods", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			p.Spec.Selector.MatchLabels["app.kubernetes.io/name"] = "api"
			return []any{d, p}
		}, "no PodDisruptionBudget"},
		{"budget in another namespace", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			p.Namespace = "other"
			return []any{d, p}
		}, "no PodDisruptionBudget"},
		{"budget selects everything", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			p.Spec.Selector = &metav1.LabelSelector{}
			return []any{d, p}
		}, "no PodDisruptionBudget"},
		{"no liveness probe", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			d.Spec.Template.Spec.Containers[0].LivenessProbe = nil
			return []any{d, p}
		}, "no liveness probe"},
		{"no readiness probe", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			d.Spec.Template.Spec.Containers[0].ReadinessProbe = nil
			return []any{d, p}
		}, "no readiness probe"},
		{"no startup probe", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			d.Spec.Template.Spec.Containers[0].StartupProbe = nil
			return []any{d, p}
		}, "no startup probe"},
		{"no cpu limit", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			delete(d.Spec.Template.Spec.Containers[0].Resources.Limits, corev1.ResourceCPU)
			return []any{d, p}
		}, "no cpu limit"},
		{"no memory request", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			delete(d.Spec.Template.Spec.Containers[0].Resources.Requests, corev1.ResourceMemory)
			return []any{d, p}
		}, "no memory request"},
		{"no pod seccompProfile", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			d.Spec.Template.Spec.SecurityContext.SeccompProfile = nil
			return []any{d, p}
		}, "seccompProfile type RuntimeDefault"},
		{"no pod securityContext", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			d.Spec.Template.Spec.SecurityContext = nil
			return []any{d, p}
		}, "the pod's securityContext must set runAsNonRoot"},
		{"container runs as root", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			d.Spec.Template.Spec.Containers[0].SecurityContext.RunAsNonRoot = &no
			return []any{d, p}
		}, "runAsNonRoot is not true"},
		{"writable root filesystem", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			d.Spec.Template.Spec.Containers[0].SecurityContext.ReadOnlyRootFilesystem = nil
			return []any{d, p}
		}, "readOnlyRootFilesystem"},
		{"privilege escalation", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			d.Spec.Template.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = &yes
			return []any{d, p}
		}, "allowPrivilegeEscalation"},
		{"a capability added", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			d.Spec.Template.Spec.Containers[0].SecurityContext.Capabilities.Add = []corev1.Capability{"NET_ADMIN"}
			return []any{d, p}
		}, "capabilities must drop ALL"},
		{"container unconfined", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			d.Spec.Template.Spec.Containers[0].SecurityContext.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined}
			return []any{d, p}
		}, "container web: seccompProfile type is not RuntimeDefault"},
		{"container relies on the pod for runAsNonRoot", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			d.Spec.Template.Spec.Containers[0].SecurityContext.RunAsNonRoot = nil
			return []any{d, p}
		}, "container web: runAsNonRoot is not true"},
		{"init container without limits", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			init := *d.Spec.Template.Spec.Containers[0].DeepCopy()
			init.Name, init.Resources = "migrate", corev1.ResourceRequirements{}
			init.LivenessProbe, init.ReadinessProbe, init.StartupProbe = nil, nil, nil
			d.Spec.Template.Spec.InitContainers = []corev1.Container{init}
			return []any{d, p}
		}, "container migrate: no cpu request"},
		{"statefulset without budget", func(d *appsv1.Deployment, p *policyv1.PodDisruptionBudget) []any {
			s := &appsv1.StatefulSet{ObjectMeta: d.ObjectMeta, Spec: appsv1.StatefulSetSpec{Template: d.Spec.Template}}
			s.Spec.Template.Spec.Containers[0].StartupProbe = nil // not required of a StatefulSet
			return []any{s}
		}, "StatefulSet web: no PodDisruptionBudget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, pdb := goodDeployment()
			got := workloadPolicy(tt.breakIt(d, pdb))
			if tt.want == "" {
				if len(got) != 0 {
					t.Fatalf("a compliant Deployment was refused: %v", got)
				}
				return
			}
			if !slices.ContainsFunc(got, func(v string) bool { return strings.Contains(v, tt.want) }) {
				t.Fatalf("got %q, want a violation containing %q", got, tt.want)
			}
		})
	}
}

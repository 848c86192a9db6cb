package main

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// workloadPolicy lists what one built overlay breaks of the rules every workload a platform team
// runs must keep, whoever wrote it (the Paygate services, the console, NATS, Redis, a dev
// Postgres):
//
//   - every container has liveness and readiness probes, and a Deployment's containers a startup
//     probe as well (a StatefulSet's pods start in order and their readiness gates the next one);
//   - every container requests and limits both CPU and memory;
//   - a PodDisruptionBudget in the same namespace selects the workload's pods, so a node drain
//     never takes all of them at once;
//   - the pod sets runAsNonRoot and seccompProfile RuntimeDefault, and every container sets them
//     again (so that no change to the pod's settings loosens a container, and a container copied
//     into another pod keeps them), with readOnlyRootFilesystem, allowPrivilegeEscalation false
//     and ALL capabilities dropped, none added.
//
// objs are the overlay's decoded objects; kinds other than Deployment, StatefulSet and
// PodDisruptionBudget are ignored. The result is empty when every workload complies.
func workloadPolicy(objs []any) []string {
	var pdbs []*policyv1.PodDisruptionBudget
	for _, o := range objs {
		if p, ok := o.(*policyv1.PodDisruptionBudget); ok {
			pdbs = append(pdbs, p)
		}
	}
	var out []string
	for _, o := range objs {
		var (
			id          string
			meta        metav1.ObjectMeta
			tmpl        *corev1.PodTemplateSpec
			needStartup bool
		)
		switch w := o.(type) {
		case *appsv1.Deployment:
			id, meta, tmpl, needStartup = "Deployment "+w.Name, w.ObjectMeta, &w.Spec.Template, true
		case *appsv1.StatefulSet:
			id, meta, tmpl = "StatefulSet "+w.Name, w.ObjectMeta, &w.Spec.Template
		default:
			continue
		}
		fail := func(format string, args ...any) { out = append(out, id+": "+fmt.Sprintf(format, args...)) }

		if !budgeted(pdbs, meta.Namespace, tmpl.Labels) {
			fail("no PodDisruptionBudget selects its pods")
		}
		spec := &tmpl.Spec
		podSC := spec.SecurityContext
		if podSC == nil || !isTrue(podSC.RunAsNonRoot) {
			fail("the pod's securityContext must set runAsNonRoot: true")
		}
		if podSC == nil || podSC.SeccompProfile == nil || podSC.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			fail("the pod's securityContext must set seccompProfile type RuntimeDefault")
		}
		for i, c := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
			isInit := i < len(spec.InitContainers)
			cfail := func(format string, args ...any) { fail("container "+c.Name+": "+format, args...) }
			sc := c.SecurityContext
			if sc == nil || !isTrue(sc.RunAsNonRoot) {
				cfail("runAsNonRoot is not true")
			}
			if sc == nil || !isTrue(sc.ReadOnlyRootFilesystem) {
				cfail("readOnlyRootFilesystem is not true")
			}
			if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
				cfail("allowPrivilegeEscalation is not false")
			}
			if sc == nil || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0 {
				cfail("capabilities must drop ALL and add none")
			}
			if sc == nil || sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
				cfail("seccompProfile type is not RuntimeDefault")
			}
			for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				if q, ok := c.Resources.Requests[r]; !ok || q.IsZero() {
					cfail("no %s request", r)
				}
				if q, ok := c.Resources.Limits[r]; !ok || q.IsZero() {
					cfail("no %s limit", r)
				}
			}
			if isInit {
				continue // init containers run to completion: probes do not apply to them
			}
			if c.LivenessProbe == nil {
				cfail("no liveness probe")
			}
			if c.ReadinessProbe == nil {
				cfail("no readiness probe")
			}
			if needStartup && c.StartupProbe == nil {
				cfail("no startup probe")
			}
		}
	}
	return out
}

// budgeted reports whether a PodDisruptionBudget in namespace selects pods labelled podLabels.
func budgeted(pdbs []*policyv1.PodDisruptionBudget, namespace string, podLabels map[string]string) bool {
	for _, p := range pdbs {
		if p.Namespace != namespace || p.Spec.Selector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
		if err != nil || sel.Empty() {
			continue // an empty selector matches every pod, which is no one's budget in particular
		}
		if sel.Matches(labels.Set(podLabels)) {
			return true
		}
	}
	return false
}

func isTrue(b *bool) bool { return b != nil && *b }

package main

// The end state both sides are compared on: one JSON object per line,
// sorted, for the objects the controllers act on.
//
//   ResourceClaim: names (generated names normalised, below), labels,
//     annotations, owners, finalizers, reservedFor, whether allocated,
//     whether being deleted, and the spec (a generated claim's is the
//     template's).  A claim being deleted without finalizers is gone, as
//     the API server removes it then (the fake clientset keeps it).
//   Pod: status.resourceClaimStatuses (normalised names), the
//     DisruptionTarget condition without its time, whether being deleted.
//     Deleted pods are absent.
//   PodGroup: status.resourceClaimStatuses (normalised names).
//   Both lists sorted by name where the release leaves their order to
//   chance (claimStatusesUnordered, api_136.go).
//   DeviceTaintRule: status conditions without their times.
//
// Generated names: the API server appends 5 random characters to the
// generateName cut to 58; the controller's names are therefore normalised
// to the generateName cut to 58 plus "*****" wherever they appear (claim
// names, pods' resourceClaimStatuses), and so are the tools'.  So are the
// names of pods the API server named, and their UIDs (generated.go).

import (
	"context"
	"encoding/json"
	"io"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const maxGenerateName = 58

func normalName(c *resourceapi.ResourceClaim) string {
	g := c.GenerateName
	if g == "" {
		return c.Name
	}
	if len(g) > maxGenerateName {
		g = g[:maxGenerateName]
	}
	if len(c.Name) == len(g)+5 && c.Name[:len(g)] == g {
		return g + "*****"
	}
	return c.Name
}

type condition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	Reason             string `json:"reason,omitempty"`
	Message            string `json:"message,omitempty"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
}

type claimState struct {
	Kind        string                                       `json:"kind"`
	Namespace   string                                       `json:"namespace"`
	Name        string                                       `json:"name"`
	Labels      map[string]string                            `json:"labels,omitempty"`
	Annotations map[string]string                            `json:"annotations,omitempty"`
	Owners      []metav1.OwnerReference                      `json:"owners,omitempty"`
	Finalizers  []string                                     `json:"finalizers,omitempty"`
	ReservedFor []resourceapi.ResourceClaimConsumerReference `json:"reservedFor,omitempty"`
	Allocated   bool                                         `json:"allocated,omitempty"`
	Deleting    bool                                         `json:"deleting,omitempty"`
	Spec        resourceapi.ResourceClaimSpec                `json:"spec"`
}

type podState struct {
	Kind          string                          `json:"kind"`
	Namespace     string                          `json:"namespace"`
	Name          string                          `json:"name"`
	ClaimStatuses []corev1.PodResourceClaimStatus `json:"resourceClaimStatuses,omitempty"`
	Disruption    *condition                      `json:"disruptionTarget,omitempty"`
	Deleting      bool                            `json:"deleting,omitempty"`
}

type podGroupState struct {
	Kind          string                `json:"kind"`
	Namespace     string                `json:"namespace"`
	Name          string                `json:"name"`
	ClaimStatuses []podGroupClaimStatus `json:"resourceClaimStatuses,omitempty"`
}

type ruleState struct {
	Kind       string      `json:"kind"`
	Name       string      `json:"name"`
	Conditions []condition `json:"conditions,omitempty"`
}

// dumpState writes the state of the objects in the client, sorted.
func dumpState(ctx context.Context, c kubernetes.Interface, w io.Writer, extra []string) error {
	var lines []string
	add := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		lines = append(lines, string(b))
		return nil
	}
	claims, err := c.ResourceV1().ResourceClaims("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	names := map[string]string{} // namespace/name -> normalised name
	for i := range claims.Items {
		cl := &claims.Items[i]
		names[cl.Namespace+"/"+cl.Name] = normalName(cl)
	}
	for i := range claims.Items {
		cl := &claims.Items[i]
		if cl.DeletionTimestamp != nil && len(cl.Finalizers) == 0 {
			continue
		}
		if err := add(claimState{Kind: "ResourceClaim", Namespace: cl.Namespace, Name: normalName(cl),
			Labels: cl.Labels, Annotations: cl.Annotations, Owners: cl.OwnerReferences,
			Finalizers: cl.Finalizers, ReservedFor: cl.Status.ReservedFor,
			Allocated: cl.Status.Allocation != nil, Deleting: cl.DeletionTimestamp != nil,
			Spec: cl.Spec}); err != nil {
			return err
		}
	}
	pods, err := c.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		s := podState{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, Deleting: p.DeletionTimestamp != nil}
		for _, st := range p.Status.ResourceClaimStatuses {
			if st.ResourceClaimName != nil {
				if n, ok := names[p.Namespace+"/"+*st.ResourceClaimName]; ok {
					st.ResourceClaimName = &n
				}
			}
			s.ClaimStatuses = append(s.ClaimStatuses, st)
		}
		if claimStatusesUnordered {
			sort.Slice(s.ClaimStatuses, func(i, j int) bool { return s.ClaimStatuses[i].Name < s.ClaimStatuses[j].Name })
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.DisruptionTarget {
				s.Disruption = &condition{Type: string(cond.Type), Status: string(cond.Status), Reason: cond.Reason, Message: cond.Message}
			}
		}
		if err := add(s); err != nil {
			return err
		}
	}
	groups, err := listPodGroups(ctx, c)
	if err != nil {
		return err
	}
	for i := range groups {
		g := &groups[i]
		s := podGroupState{Kind: "PodGroup", Namespace: g.Namespace, Name: g.Name}
		for _, st := range g.Status.ResourceClaimStatuses {
			if st.ResourceClaimName != nil {
				if n, ok := names[g.Namespace+"/"+*st.ResourceClaimName]; ok {
					st.ResourceClaimName = &n
				}
			}
			s.ClaimStatuses = append(s.ClaimStatuses, st)
		}
		if claimStatusesUnordered {
			sort.Slice(s.ClaimStatuses, func(i, j int) bool { return s.ClaimStatuses[i].Name < s.ClaimStatuses[j].Name })
		}
		if err := add(s); err != nil {
			return err
		}
	}
	rules, err := listRules(ctx, c)
	if err != nil {
		return err
	}
	for i := range rules {
		r := &rules[i]
		s := ruleState{Kind: "DeviceTaintRule", Name: r.Name}
		for _, cond := range r.Status.Conditions {
			s.Conditions = append(s.Conditions, condition{Type: cond.Type, Status: string(cond.Status),
				Reason: cond.Reason, Message: cond.Message, ObservedGeneration: cond.ObservedGeneration})
		}
		if err := add(s); err != nil {
			return err
		}
	}
	// pods the API server named: their names and UIDs normalised everywhere
	var generated []string
	for i := range pods.Items {
		if p := &pods.Items[i]; p.GenerateName != "" && generatedFrom(p.GenerateName, p.Name) {
			g := p.GenerateName
			if len(g) > maxGenerateName {
				g = g[:maxGenerateName]
			}
			generated = append(generated, p.Name, g+"*****")
			if p.UID != "" {
				generated = append(generated, string(p.UID), "*****")
			}
		}
	}
	if len(generated) > 0 {
		r := strings.NewReplacer(generated...)
		for i := range lines {
			lines[i] = r.Replace(lines[i])
		}
	}
	lines = append(lines, extra...)
	sort.Strings(lines)
	for _, l := range lines {
		if _, err := io.WriteString(w, l+"\n"); err != nil {
			return err
		}
	}
	return nil
}

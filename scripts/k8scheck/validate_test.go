package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// The cases of Kubernetes' TestValidateJob that bear on a spec like ours,
// with the errors it expects.
func TestValidateJobSpec(t *testing.T) {
	p := func(n int32) *int32 { return &n }
	indexed := batchv1.IndexedCompletion
	never := corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever}}
	for name, tc := range map[string]struct {
		spec batchv1.JobSpec
		want []string
	}{
		"ours": {batchv1.JobSpec{CompletionMode: &indexed, Completions: p(3), Parallelism: p(2), BackoffLimitPerIndex: p(1), MaxFailedIndexes: p(1), Template: never}, nil},
		"maxFailedIndexes over completions": {batchv1.JobSpec{CompletionMode: &indexed, Completions: p(10), MaxFailedIndexes: p(11), BackoffLimitPerIndex: p(1), Template: never},
			[]string{"spec.maxFailedIndexes: Invalid value: 11: must be less than or equal to completions"}},
		"maxFailedIndexes without backoffLimitPerIndex": {batchv1.JobSpec{CompletionMode: &indexed, Completions: p(3), MaxFailedIndexes: p(1), Template: never},
			[]string{"spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified"}},
		"indexed without completions": {batchv1.JobSpec{CompletionMode: &indexed, Template: never},
			[]string{"spec.completions: Required value: when completion mode is Indexed"}},
		"per index when not indexed": {batchv1.JobSpec{BackoffLimitPerIndex: p(1), Template: never},
			[]string{"spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode"}},
		"high completions": {batchv1.JobSpec{CompletionMode: &indexed, Completions: p(100001), Parallelism: p(10001), BackoffLimitPerIndex: p(1), Template: never},
			[]string{"spec.maxFailedIndexes: Required value: must be specified when completions is above 100000",
				"spec.parallelism: Invalid value: 10001: must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index"}},
		"restart always": {batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways}}},
			[]string{`spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`}},
	} {
		if d := cmp.Diff(tc.want, validateJobSpec(tc.spec)); d != "" {
			t.Errorf("%s: %s", name, d)
		}
	}
}

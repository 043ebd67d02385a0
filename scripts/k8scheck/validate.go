package main

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Limits of Kubernetes' Job validation (k8s.io/kubernetes
// pkg/apis/batch/validation/validation.go).
const (
	maxParallelismForIndexedJob             = 100000
	maxFailedIndexesForIndexedJob           = 100000
	completionsSoftLimit                    = 100000
	parallelismLimitForHighCompletions      = 10000
	maxFailedIndexesLimitForHighCompletions = 10000
)

// validateJobSpec is the API server's validateJobSpec, rule for rule and in
// its words (k8s.io/kubernetes pkg/apis/batch/validation: the spec rules an
// apply of this manifest meets; the pod template's own validation is the
// strict decode and the checks in main). k8s.io/kubernetes is not a module
// one can require without replacing each of its staging modules, so the
// rules are transcribed here, and k8scheck's tests hold them to the cases of
// Kubernetes' own validation tests.
func validateJobSpec(s batchv1.JobSpec) []string {
	var errs []string
	invalid := func(field string, v int32, detail string) {
		errs = append(errs, fmt.Sprintf("spec.%s: Invalid value: %d: %s", field, v, detail))
	}
	required := func(field, detail string) {
		errs = append(errs, fmt.Sprintf("spec.%s: Required value: %s", field, detail))
	}
	for name, v := range map[string]*int32{"parallelism": s.Parallelism, "completions": s.Completions, "backoffLimit": s.BackoffLimit,
		"ttlSecondsAfterFinished": s.TTLSecondsAfterFinished, "backoffLimitPerIndex": s.BackoffLimitPerIndex, "maxFailedIndexes": s.MaxFailedIndexes} {
		if v != nil && *v < 0 {
			invalid(name, *v, "must be greater than or equal to 0")
		}
	}
	if s.MaxFailedIndexes != nil && s.BackoffLimitPerIndex == nil {
		required("backoffLimitPerIndex", "when maxFailedIndexes is specified")
	}
	indexed := s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion
	if s.CompletionMode != nil && !indexed && *s.CompletionMode != batchv1.NonIndexedCompletion {
		errs = append(errs, fmt.Sprintf("spec.completionMode: Unsupported value: %q: supported values: \"NonIndexed\", \"Indexed\"", *s.CompletionMode))
	}
	if indexed {
		if s.Completions == nil {
			required("completions", "when completion mode is Indexed")
		}
		if s.Parallelism != nil && *s.Parallelism > maxParallelismForIndexedJob {
			invalid("parallelism", *s.Parallelism, fmt.Sprintf("must be less than or equal to %d when completion mode is Indexed", maxParallelismForIndexedJob))
		}
		if s.Completions != nil && s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > *s.Completions {
			invalid("maxFailedIndexes", *s.MaxFailedIndexes, "must be less than or equal to completions")
		}
		if s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > maxFailedIndexesForIndexedJob {
			invalid("maxFailedIndexes", *s.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d", maxFailedIndexesForIndexedJob))
		}
		if s.Completions != nil && *s.Completions > completionsSoftLimit && s.BackoffLimitPerIndex != nil {
			if s.MaxFailedIndexes == nil {
				required("maxFailedIndexes", fmt.Sprintf("must be specified when completions is above %d", completionsSoftLimit))
			}
			if s.Parallelism != nil && *s.Parallelism > parallelismLimitForHighCompletions {
				invalid("parallelism", *s.Parallelism, fmt.Sprintf("must be less than or equal to %d when completions are above %d and used with backoff limit per index", parallelismLimitForHighCompletions, completionsSoftLimit))
			}
			if s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > maxFailedIndexesLimitForHighCompletions {
				invalid("maxFailedIndexes", *s.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d when completions are above %d and used with backoff limit per index", maxFailedIndexesLimitForHighCompletions, completionsSoftLimit))
			}
		}
	} else {
		if s.BackoffLimitPerIndex != nil {
			invalid("backoffLimitPerIndex", *s.BackoffLimitPerIndex, "requires indexed completion mode")
		}
		if s.MaxFailedIndexes != nil {
			invalid("maxFailedIndexes", *s.MaxFailedIndexes, "requires indexed completion mode")
		}
	}
	switch rp := s.Template.Spec.RestartPolicy; {
	case rp == corev1.RestartPolicyAlways || rp == "":
		required("template.spec.restartPolicy", `valid values: "OnFailure", "Never"`)
	case rp != corev1.RestartPolicyOnFailure && rp != corev1.RestartPolicyNever:
		errs = append(errs, fmt.Sprintf("spec.template.spec.restartPolicy: Unsupported value: %q", rp))
	case s.PodFailurePolicy != nil && rp != corev1.RestartPolicyNever:
		errs = append(errs, fmt.Sprintf("spec.template.spec.restartPolicy: Invalid value: %q: only \"Never\" is supported when podFailurePolicy is specified", rp))
	}
	return errs
}

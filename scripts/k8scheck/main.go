// Command k8scheck checks deploy/job.yaml offline against the Kubernetes API's own Go types
// (k8s.io/api): every document decodes strictly (an unknown or misspelt field is an error),
// the Job's spec meets the API server's validation rules (validate.go: maxFailedIndexes at
// most completions, and the rest of validateJobSpec), it is an Indexed Job with completions,
// its container mounts volumes that exist, the entry gets /tasks and /out, and the claim is
// ReadWriteMany. It is its own module, so k8s.io/api stays out of agentutils' go.mod;
// `make test` runs it (scripts/check-deploy), on the README's sed of the manifest too.
// The manifest is a file, or - for stdin.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: k8scheck MANIFEST.yaml")
		os.Exit(2)
	}
	var data []byte
	var err error
	if os.Args[1] == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "k8scheck:", err)
		os.Exit(2)
	}
	var problems []string
	fail := func(f string, a ...any) { problems = append(problems, fmt.Sprintf(f, a...)) }
	jobs := 0
	for i, doc := range strings.Split(string(data), "\n---") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			fail("document %d: %v", i+1, err)
			continue
		}
		var meta struct{ Kind, APIVersion string }
		json.Unmarshal(js, &meta)
		var v any
		switch meta.Kind {
		case "Job":
			v = &batchv1.Job{}
		case "PersistentVolumeClaim":
			v = &corev1.PersistentVolumeClaim{}
		default:
			fail("document %d: unexpected kind %q", i+1, meta.Kind)
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			fail("document %d (%s): %v", i+1, meta.Kind, err)
			continue
		}
		if pvc, ok := v.(*corev1.PersistentVolumeClaim); ok {
			rwx := false
			for _, m := range pvc.Spec.AccessModes {
				rwx = rwx || m == corev1.ReadWriteMany
			}
			if !rwx {
				fail("PersistentVolumeClaim %s: every pod writes /out at once: accessModes must hold ReadWriteMany", pvc.Name)
			}
			continue
		}
		job, ok := v.(*batchv1.Job)
		if !ok {
			continue
		}
		for _, e := range validateJobSpec(job.Spec) {
			fail("Job: %s", e)
		}
		jobs++
		if meta.APIVersion != "batch/v1" {
			fail("Job: apiVersion %q, want batch/v1", meta.APIVersion)
		}
		s := job.Spec
		if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
			fail("Job: completionMode must be Indexed (JOB_COMPLETION_INDEX picks the task)")
		}
		if s.Completions == nil || *s.Completions < 1 {
			fail("Job: completions must be set (the number of task lines)")
		}
		pod := s.Template.Spec
		if pod.RestartPolicy != corev1.RestartPolicyNever && pod.RestartPolicy != corev1.RestartPolicyOnFailure {
			fail("Job: restartPolicy %q", pod.RestartPolicy)
		}
		vols := map[string]bool{}
		for _, v := range pod.Volumes {
			vols[v.Name] = true
		}
		if len(pod.Containers) != 1 {
			fail("Job: want one container, have %d", len(pod.Containers))
		}
		for _, c := range pod.Containers {
			mounts := map[string]bool{}
			for _, m := range c.VolumeMounts {
				if !vols[m.Name] {
					fail("container %s mounts volume %q, which the pod does not define", c.Name, m.Name)
				}
				mounts[m.MountPath] = true
			}
			for _, p := range []string{"/tasks", "/out"} {
				if !mounts[p] {
					fail("container %s: nothing mounted at %s (deploy/entrypoint's default)", c.Name, p)
				}
			}
		}
	}
	if jobs != 1 {
		fail("want one Job, have %d", jobs)
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintf(os.Stderr, "%s: %s\n", os.Args[1], p)
		}
		os.Exit(1)
	}
	fmt.Printf("%s: valid (batch/v1 Job, Indexed; strict decode against k8s.io/api)\n", os.Args[1])
}

package transcript

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// countOpencode counts what an opencode session holds as opencode sends it
// to the model.
func countOpencode(s OpencodeSession) (tally, map[string]bool) {
	var c tally
	results := map[string]bool{}
	for _, m := range s.Messages {
		var mi struct {
			Role    string
			Summary json.RawMessage
		}
		json.Unmarshal(m.Info, &mi)
		if mi.Role == "assistant" && string(mi.Summary) == "true" {
			c.Prompts++ // the compaction entry holding its text
		}
		for _, raw := range m.Parts {
			var p struct {
				Type, Mime, CallID string
				Ignored            bool
			}
			json.Unmarshal(raw, &p)
			switch {
			case mi.Role == "user" && (p.Type == "text" && !p.Ignored || p.Type == "compaction" || p.Type == "subtask"):
				c.Prompts++
			case mi.Role == "user" && p.Type == "file" && strings.HasPrefix(p.Mime, "image/"):
				c.Images++
			case mi.Role == "user" && p.Type == "file" && p.Mime != "text/plain" && p.Mime != "application/x-directory":
				c.Prompts++ // a note naming it
			case mi.Role == "assistant" && p.Type == "text":
				c.Texts++
			case mi.Role == "assistant" && p.Type == "tool":
				c.Calls++
				c.Results++
				results[p.CallID] = true
			}
		}
	}
	return c, results
}

// checkOpencode imports an opencode session and fails t when anything of
// it is missing from the session.
func checkOpencode(t *testing.T, s OpencodeSession) Result {
	t.Helper()
	want, results := countOpencode(s)
	res, err := FromOpencode(s, opts())
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	compareCounts(t, res, want, results, false)
	return res
}

func TestOpencodeExport(t *testing.T) {
	data := readFixture(t, "opencode/export.json")
	if IsOpencode(data) != "export" || IsGemini(data) {
		t.Fatal("not detected")
	}
	var s OpencodeSession
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	res := checkOpencode(t, s)
	msgs, shape := context(t, res.Sessions[0])
	// the compaction's summary starts the context; the aborted response's
	// running call has the result opencode sends for it
	if want := "compactionSummary user[text] assistant[call:toolu_03] toolResult:toolu_03[text]"; shape != want {
		t.Errorf("context %s\nwant    %s", shape, want)
	}
	if msgs[0].Summary != "We listed the files a.go and b.go." {
		t.Errorf("summary %q", msgs[0].Summary)
	}
	// the whole file, the path before the compaction
	var all []string
	var usage []struct{ Input, Output, CacheRead int }
	for _, e := range res.Sessions[0].Entries {
		var v struct {
			Type    string
			Message msg
		}
		json.Unmarshal(e, &v)
		if v.Type == "message" {
			all = append(all, v.Message.String())
			if v.Message.Role == "assistant" {
				usage = append(usage, v.Message.Usage)
			}
		}
	}
	want := []string{"user[text,image]", "assistant[thinking,call:toolu_01,call:toolu_02]", "toolResult:toolu_01[text]",
		"toolResult:toolu_02[text]", "assistant[text]", "user[text]", "assistant[text]", "user[text]", "assistant[call:toolu_03]",
		"toolResult:toolu_03[text]"}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	// each model response has its step's usage; reasoning counts as output
	wantUsage := []struct{ Input, Output, CacheRead int }{{20, 35, 1000}, {10, 10, 1000}, {3000, 200, 0}, {0, 0, 0}}
	if diff := cmp.Diff(wantUsage, usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	h := res.Sessions[0].Header
	if h.ID != "ses_5b1c2d3e8ffeA1b2C3d4E5f6G7" || h.Cwd != "/home/me/app" || h.Title != "List the files" {
		t.Errorf("header %+v", h)
	}
	if diff := cmp.Diff(map[string]int{"step-start": 4, "step-finish": 3, "patch": 1}, skipped(res)); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"user part compaction": 1}, kept(res)); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
}

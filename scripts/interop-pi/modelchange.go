package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentutils/agentutils/scripts/internal/interop"
)

// modelChange resumes with pi sessions whose last entry is our
// model_change (written by agent-session append, after an assistant
// message of another model), without --model: pi keeps a model its
// registry has (models.json's fake/test-model-2), and replaces one it
// lacks with a model it has, saying nothing in print mode, its next
// assistant message naming that one (formats/session, "model_change and
// pi").
func (c *comparison) modelChange() {
	models := fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":"openai-completions","apiKey":"FAKE","models":[`+
		`{"id":"test-model","contextWindow":100000000,"maxTokens":8192,"input":["text"]},`+
		`{"id":"test-model-2","contextWindow":100000000,"maxTokens":8192,"input":["text"]}]}}}`, c.srv.URL)
	piDir := filepath.Join(c.Dir, "pi-agent-models")
	os.MkdirAll(piDir, 0o755)
	os.WriteFile(filepath.Join(piDir, "models.json"), []byte(models), 0o644)
	for _, tc := range []struct{ model, want string }{
		{"test-model-2", "fake/test-model-2"}, // in pi's registry: kept
		{"mystery-1", "fake/test-model"},      // not in it: pi's first available model instead
	} {
		f := filepath.Join(c.Dir, "model-"+tc.model+".jsonl")
		cwd, _ := json.Marshal(c.work) // pi resumes a session of the directory it runs in
		os.WriteFile(f, []byte(`{"type":"session","version":3,"id":"5b1c2d3e-8f4a-4c1b-9d2e-7a6b5c4d3e2f","timestamp":"2026-11-02T10:00:00.000Z","cwd":`+string(cwd)+`}
{"type":"message","id":"a0000001","parentId":null,"timestamp":"2026-11-02T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1793613601000}}
{"type":"message","id":"a0000002","parentId":"a0000001","timestamp":"2026-11-02T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Hello."}],"api":"openai-completions","provider":"openai","model":"gpt-4.1","usage":{"input":10,"output":3,"cacheRead":0,"cacheWrite":0,"totalTokens":13,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1793613602000}}
`), 0o644)
		app := exec.Command("agent-session", "append", f)
		app.Stdin = strings.NewReader(`{"type":"model_change","provider":"fake","modelId":"` + tc.model + `"}` + "\n")
		if r := interop.Run(app); !r.OK() {
			c.Fail("model_change to fake/"+tc.model, r.Why())
			continue
		}
		r := interop.Run(interop.Cmd(c.work, []string{"PI_CODING_AGENT_DIR=" + piDir}, c.pi, "-p", "--session", f, "go on"))
		got := lastModel(f)
		c.Check(fmt.Sprintf("pi %s resumes after our model_change to fake/%s with %s", version, tc.model, tc.want),
			r.OK() && got == tc.want, fmt.Sprintf("pi's next assistant message names %q; %s", got, r.Why()))
	}
}

// lastModel is provider/model of a session file's last assistant message.
func lastModel(f string) string {
	b, _ := os.ReadFile(f)
	got := ""
	for _, l := range strings.Split(string(b), "\n") {
		var v struct {
			Message struct{ Role, Provider, Model string }
		}
		if json.Unmarshal([]byte(l), &v) == nil && v.Message.Role == "assistant" {
			got = v.Message.Provider + "/" + v.Message.Model
		}
	}
	return got
}

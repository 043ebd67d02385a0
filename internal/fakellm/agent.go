package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// agent answers the Anthropic Messages and OpenAI Responses requests of
// Claude Code and Codex by the conversation's last message, so that
// scripts/interop-import can have the real CLIs write transcripts offline:
// a tool result gets a closing text; a prompt holding PARALLEL two shell
// calls in one message, EDIT a file edit (in the directory s.Agent; with
// agentutils' write tool note.txt in its working directory), VIEW
// an image view, SUBAGENT a sub-agent (Claude Code's Task or Agent tool), a
// sub-agent's SUBTASK a text, MCPBASH `CMD` a call of an MCP server's bash
// tool (Claude Code's mcp__SERVER__bash) with CMD, RUN `CMD` a call of
// agentutils' bash tool with CMD, JOB `CMD` a background job of it, PLAN an exit_plan_mode and ASK an ask call
// (agentutils' tools), EDIT `FILE` `OLD` `NEW` an edit call of
// agentutils' edit tool, SEARCH `QUERY` a web_search call; anything else
// a greeting.
// With agent-chat's task tool offered: TASKS2 two task calls (SUBTASK one,
// SUBTASK two), TASKHANG one whose sub-agent's request hangs (SUBHANG,
// until the client gives up), TASKCRASH one whose sub-agent kills its own
// agent-chat, the nearest up from bash (SUBCRASH), TASKWRITE one whose
// sub-agent writes note.txt (SUBWRITE), TASKNEST one whose sub-agent makes
// a task call of its own (TASK from a sub-agent), TASKHOST `H` one on host
// H whose sub-agent runs pwd (RUN `pwd`; TASKHOST `H` `CMD`: CMD), TASKHOSTHANG `H` one on host H
// whose request hangs (SUBHANG), TASK one (SUBTASK: say hi).
// A hook's question (prompt and agent hooks) answers {"ok": …}: HOOKYES
// ok; HOOKNO not ok the first time ("stop_hook_active":true in it: ok);
// HOOKAGENT a read of status.txt, then ok when it holds TESTS PASS and
// not ok when it holds TESTS FAIL (ok the second time).
func (s *Server) agent(w http.ResponseWriter, r Request, hang func()) {
	id := func(p string) string { return fmt.Sprintf("%s_fake_%d", p, s.seq.Add(1)) }
	if r.Method != http.MethodPost {
		w.Header().Set("content-type", "application/json")
		fmt.Fprint(w, `{}`)
		return
	}
	var body struct {
		Stream   bool              `json:"stream"`
		Model    string            `json:"model"`
		Messages []json.RawMessage `json:"messages"`
		Input    []json.RawMessage `json:"input"`
		Tools    []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	json.Unmarshal(r.Body, &body)
	tools := map[string]bool{}
	for _, t := range body.Tools {
		tools[t.Name] = true
	}
	if strings.HasSuffix(strings.TrimRight(r.Path, "/"), "/responses") {
		responses(w, body.Input, tools, id)
		return
	}
	if strings.Contains(r.Path, "count_tokens") {
		fmt.Fprint(w, `{"input_tokens":10}`)
		return
	}
	if text, _ := lastTurn(body.Messages); strings.Contains(text, "SUBHANG") {
		hang()
		return
	}
	messages(w, body.Stream, body.Model, body.Messages, tools, id, s.Agent)
}

// lastTurn is the text of the last message and whether it holds tool results.
func lastTurn(items []json.RawMessage) (string, bool) {
	if len(items) == 0 {
		return "", false
	}
	var m struct {
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
	}
	json.Unmarshal(items[len(items)-1], &m)
	if strings.HasSuffix(m.Type, "_output") {
		return "", true
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s, false
	}
	var blocks []struct{ Type, Text string }
	json.Unmarshal(m.Content, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "tool_result" {
			return "", true
		}
		b.WriteString(bl.Text + " ")
	}
	return b.String(), false
}

// resultText is the text of the tool results of the last message.
func resultText(items []json.RawMessage) string {
	if len(items) == 0 {
		return ""
	}
	var m struct {
		Content []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		} `json:"content"`
	}
	json.Unmarshal(items[len(items)-1], &m)
	var b strings.Builder
	for _, c := range m.Content {
		if c.Type == "tool_result" {
			b.Write(c.Content)
		}
	}
	return b.String()
}

func messages(w http.ResponseWriter, stream bool, model string, msgs []json.RawMessage, tools map[string]bool, id func(string) string, dir string) {
	type call struct {
		name  string
		input any
	}
	text, result := lastTurn(msgs)
	say, stop := "Hello from the fake model.", "end_turn"
	read := resultText(msgs)
	var calls []call
	agent := "Task"
	if tools["Agent"] {
		agent = "Agent"
	}
	switch {
	case result && strings.Contains(read, "TESTS PASS"):
		say = `{"ok": true}`
	case result && strings.Contains(read, "TESTS FAIL"):
		say = `{"ok": false, "reason": "status.txt says the tests fail"}`
	case result:
		say = "All done."
	case strings.Contains(text, "HOOKYES"), (strings.Contains(text, "HOOKNO") || strings.Contains(text, "HOOKAGENT")) && strings.Contains(text, `"stop_hook_active":true`):
		say = `{"ok": true}`
	case strings.Contains(text, "HOOKNO"):
		say = "Not yet:\n```json\n{\"ok\": false, \"reason\": \"run the tests first\"}\n```"
	case strings.Contains(text, "HOOKAGENT") && tools["read"]:
		say, calls = "", []call{{"read", map[string]string{"path": "status.txt"}}}
	case strings.Contains(text, "SUBTASK"):
		say = "The sub-agent says hi."
	case strings.Contains(text, "SUBWRITE"):
		say, calls = "", []call{{"write", map[string]string{"path": "note.txt", "content": "hello\n"}}}
	case strings.Contains(text, "SUBCRASH"):
		say, calls = "", []call{{"bash", map[string]string{"command": `p=$PPID; while [ "$(cat /proc/$p/comm)" != agent-chat ]; do p=$(awk '{print $4}' /proc/$p/stat); done; kill -9 $p`}}}
	case tools["task"] && strings.Contains(text, "TASKHOST"):
		rest := text[strings.Index(text, "TASKHOST")+len("TASKHOST"):]
		prompt := "RUN `pwd`"
		if strings.HasPrefix(rest, "HANG") {
			prompt = "SUBHANG"
		}
		_, host, _ := strings.Cut(rest, "`")
		host, rest, _ = strings.Cut(host, "`")
		if _, c, ok := strings.Cut(rest, "`"); ok && prompt != "SUBHANG" {
			c, _, _ = strings.Cut(c, "`")
			prompt = "RUN `" + c + "`"
		}
		say, calls = "", []call{{"task", map[string]string{"prompt": prompt, "host": host}}}
	case tools["task"] && strings.Contains(text, "TASKS2"):
		say, calls = "Two at once.", []call{{"task", map[string]string{"prompt": "SUBTASK one"}}, {"task", map[string]string{"prompt": "SUBTASK two"}}}
	case tools["task"] && strings.Contains(text, "TASKHANG"):
		say, calls = "", []call{{"task", map[string]string{"prompt": "SUBHANG"}}}
	case tools["task"] && strings.Contains(text, "TASKNEST"):
		say, calls = "", []call{{"task", map[string]string{"prompt": "TASK from a sub-agent"}}}
	case tools["task"] && strings.Contains(text, "TASKWRITE"):
		say, calls = "", []call{{"task", map[string]string{"prompt": "SUBWRITE"}}}
	case tools["task"] && strings.Contains(text, "TASKCRASH"):
		say, calls = "", []call{{"task", map[string]string{"prompt": "SUBCRASH"}}}
	case tools["task"] && strings.Contains(text, "TASKBUDGET"):
		say, calls = "", []call{{"task", map[string]any{"prompt": "SUBTASK: spend", "max_tokens": 50}}}
	case tools["task"] && strings.Contains(text, "TASK"):
		say, calls = "", []call{{"task", map[string]string{"prompt": "SUBTASK: say hi"}}}
	case strings.Contains(text, "PARALLEL"):
		say, calls = "Running both.", []call{{"Bash", map[string]string{"command": "echo a", "description": "echo a"}}, {"Bash", map[string]string{"command": "echo b", "description": "echo b"}}}
	case strings.Contains(text, "EDIT `") && tools["edit"] && len(quoted(text, "EDIT `")) == 3:
		q := quoted(text, "EDIT `")
		say, calls = "", []call{{"edit", map[string]string{"path": q[0], "old_text": q[1], "new_text": q[2]}}}
	case strings.Contains(text, "EDIT") && tools["write"]:
		say, calls = "", []call{{"write", map[string]string{"path": "note.txt", "content": "hello\n"}}}
	case strings.Contains(text, "EDIT"):
		say, calls = "", []call{{"Write", map[string]string{"file_path": dir + "/note.txt", "content": "hello\n"}}}
	case strings.Contains(text, "MCPBASH `") && mcpBash(tools) != "":
		cmd, _, _ := strings.Cut(text[strings.Index(text, "MCPBASH `")+len("MCPBASH `"):], "`")
		say, calls = "", []call{{mcpBash(tools), map[string]string{"command": cmd}}}
	case strings.Contains(text, "SEARCH `") && tools["web_search"]:
		q, _, _ := strings.Cut(text[strings.Index(text, "SEARCH `")+len("SEARCH `"):], "`")
		say, calls = "", []call{{"web_search", map[string]any{"query": q, "count": 3}}}
	case strings.Contains(text, "RUN `") && tools["bash"]:
		cmd, _, _ := strings.Cut(text[strings.Index(text, "RUN `")+len("RUN `"):], "`")
		say, calls = "Let me look.", []call{{"bash", map[string]any{"command": cmd}}}
	case strings.Contains(text, "JOB `") && tools["bash"]:
		cmd, _, _ := strings.Cut(text[strings.Index(text, "JOB `")+len("JOB `"):], "`")
		say, calls = "Started it.", []call{{"bash", map[string]any{"command": cmd, "background": true}}}
	case strings.Contains(text, "PLAN") && tools["exit_plan_mode"]:
		say, calls = "Here is my plan.", []call{{"exit_plan_mode", map[string]string{"plan": "1. Write note.txt with a greeting.\n2. Read it back to check."}}}
	case strings.Contains(text, "ASK") && tools["ask"]:
		say, calls = "", []call{{"ask", map[string]any{"questions": []map[string]any{
			{"id": "colour", "question": "Which colour?", "options": []map[string]string{{"label": "red"}, {"label": "blue", "description": "the calm one"}}, "recommended": 1},
			{"id": "parts", "question": "Which parts?", "options": []map[string]string{{"label": "api"}, {"label": "cli"}, {"label": "docs"}}, "multi": true}}}}}
	case strings.Contains(text, "SUBAGENT"):
		say, calls = "", []call{{agent, map[string]string{"description": "say hi", "prompt": "SUBTASK: say hi", "subagent_type": "general-purpose"}}}
	}
	var content []map[string]any
	if say != "" {
		content = append(content, map[string]any{"type": "text", "text": say})
	}
	for _, c := range calls {
		content = append(content, map[string]any{"type": "tool_use", "id": id("toolu"), "name": c.name, "input": c.input})
		stop = "tool_use"
	}
	usage := map[string]int{"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
	mid := id("msg")
	if !stream {
		w.Header().Set("content-type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": mid, "type": "message", "role": "assistant", "model": model, "content": content,
			"stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	r := Reply{ID: mid, Model: model}
	for _, c := range content {
		if c["type"] == "text" {
			r.Text = c["text"].(string)
		} else {
			r.Calls = append(r.Calls, Call{ID: c["id"].(string), Name: c["name"].(string), Input: c["input"]})
		}
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Write(r.SSE("/v1/messages"))
}

// mcpBash is the name of the first MCP server's bash tool among tools
// (Claude Code's mcp__SERVER__bash), or "".
func mcpBash(tools map[string]bool) string {
	var names []string
	for n := range tools {
		if strings.HasPrefix(n, "mcp__") && strings.HasSuffix(n, "__bash") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

func responses(w http.ResponseWriter, input []json.RawMessage, tools map[string]bool, id func(string) string) {
	text, result := lastTurn(input)
	var items []map[string]any
	call := func(name string, args any) {
		b, _ := json.Marshal(args)
		items = append(items, map[string]any{"type": "function_call", "id": id("fc"), "call_id": id("call"), "name": name, "arguments": string(b)})
	}
	say := func(s string) {
		items = append(items, map[string]any{"type": "message", "role": "assistant", "id": id("msg"),
			"content": []any{map[string]any{"type": "output_text", "text": s, "annotations": []any{}}}})
	}
	switch {
	case result:
		say("All done.")
	case strings.Contains(text, "PARALLEL") && tools["exec_command"]:
		items = append(items, map[string]any{"type": "reasoning", "id": id("rs"), "summary": []any{map[string]any{"type": "summary_text", "text": "Two commands at once."}}})
		call("exec_command", map[string]string{"cmd": "echo a"})
		call("exec_command", map[string]string{"cmd": "echo b"})
	case strings.Contains(text, "EDIT") && tools["apply_patch"]:
		items = append(items, map[string]any{"type": "custom_tool_call", "id": id("ctc"), "call_id": id("call"), "name": "apply_patch",
			"input": "*** Begin Patch\n*** Add File: note.txt\n+hello\n*** End Patch\n"})
	case strings.Contains(text, "EDIT") && tools["exec_command"]:
		call("exec_command", map[string]string{"cmd": "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: note.txt\n+hello\n*** End Patch\nEOF\n"})
	case strings.Contains(text, "VIEW") && tools["view_image"]:
		call("view_image", map[string]string{"path": "x.png"})
	default:
		say("Hello from the fake model.")
	}
	w.Header().Set("content-type", "text/event-stream")
	rid := id("resp")
	ev := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
	}
	ev(map[string]any{"type": "response.created", "response": map[string]any{"id": rid}})
	for i, it := range items {
		ev(map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	ev(map[string]any{"type": "response.completed", "response": map[string]any{"id": rid, "usage": map[string]any{
		"input_tokens": 100, "input_tokens_details": map[string]int{"cached_tokens": 40},
		"output_tokens": 20, "output_tokens_details": map[string]int{"reasoning_tokens": 5}, "total_tokens": 120}}})
}

// quoted is the `…` strings of text after the first after (which ends
// with the first backquote).
func quoted(text, after string) []string {
	rest := text[strings.Index(text, after)+len(after)-1:]
	var out []string
	for {
		_, r, ok := strings.Cut(rest, "`")
		if !ok {
			return out
		}
		q, r2, ok := strings.Cut(r, "`")
		if !ok {
			return out
		}
		out = append(out, q)
		rest = r2
	}
}

package pipeline

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ssh's command line: the remote command is one word the remote shell
// splits back into the words given, whatever they hold; the first line
// holds the keys, the flags and agent-chat's input, none of them on it.
func TestRemoteArgv(t *testing.T) {
	m := &Remote{SSH: []string{"ssh", "-F", "cfg"}, Dest: "me@box", Dir: "/srv/my dir", Runner: "/opt/bin/agent-session",
		Env: []string{"FAKE_KEY=sk-secret"}, Args: []string{"--api-key", "sk-2"}}
	chat := []string{"/opt/bin/agent-chat", "--system-prompt", `it's "quoted" $HOME; rm -rf /`, "--", "-"}
	argv := m.argv(chat)
	head := []string{"ssh", "-F", "cfg", "-T", "-o", "BatchMode=yes", "--", "me@box"}
	if d := cmp.Diff(head, argv[:len(head)]); d != "" || len(argv) != len(head)+1 {
		t.Fatalf("ssh's words (-want +got):\n%s\n%q", d, argv)
	}
	words, err := Words(strings.TrimPrefix(argv[len(head)], "exec "), func(string) string { return "EXPANDED" })
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{"/opt/bin/agent-session", "run-subagent", "--dir", "/srv/my dir", "--"}, chat...)
	if d := cmp.Diff(want, words); d != "" {
		t.Errorf("the remote command's words (-want +got):\n%s", d)
	}
	if strings.Contains(strings.Join(argv, " "), "sk-") {
		t.Errorf("a key on the command line: %q", argv)
	}
	first, err := m.start([]byte(`{"type":"session"}`), "the prompt")
	if err != nil {
		t.Fatal(err)
	}
	var st RemoteStart
	if err := json.Unmarshal(first, &st); err != nil || first[len(first)-1] != '\n' {
		t.Fatalf("first line %q: %v", first, err)
	}
	if d := cmp.Diff(RemoteStart{Env: m.Env, Args: m.Args, Input: "{\"type\":\"session\"}\n{\"type\":\"context_end\"}\nthe prompt"}, st); d != "" {
		t.Errorf("first line (-want +got):\n%s", d)
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/agentutils/agentutils/internal/tools"
)

// policyEnv is a working directory with a file, a subdirectory and a
// symlink that leaves it.
func policyEnv(t testing.TB) *tools.Env {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "in.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "secret"), []byte("s"), 0o644)
	os.Symlink(filepath.Join(dir, "secret"), filepath.Join(root, "link"))
	return &tools.Env{Cwd: root, Getenv: func(k string) string {
		if k == "HOME" {
			return dir
		}
		return ""
	}}
}

func TestBashPolicy(t *testing.T) {
	env := policyEnv(t)
	type tc struct {
		script string
		want   string // "" allowed, else a part of the refusal
	}
	ro := rules{bashAllow: []string{"echo", "git status", "go test", "cat", "cd", "grep", "CGO_ENABLED=0 go build", "export", "diff"}, readOnly: true, protect: []string{".git/**"}}
	rw := ro
	rw.readOnly = false
	for _, set := range []struct {
		name  string
		rules rules
		cases []tc
	}{{"read-only", ro, []tc{
		// the cases
		{"git status > /any/file", "writes /any/file, and this session is read-only"},
		{"echo pwned >> ~/.ssh/id_ed25519", "this session is read-only"},
		{"echo $(<../secret)", "outside the allowed root"},
		{"> /dev/tcp/127.0.0.1/8080", "opens a network connection"},
		// what still works
		{"git status", ""},
		{"git status --short 2>&1 | grep foo", ""},
		{"go test ./... > /dev/null 2>&1", ""},
		{"go test ./... &> /dev/null", ""},
		{"echo hi >&2", ""},
		{"echo hi 1>&2 2>&-", ""},
		{"cat < in.txt", ""},
		{"echo $(<in.txt)", ""},
		{"echo \"$(<sub/../in.txt)\"", ""},
		{"cat <<'EOF'\nhello\nEOF", ""},
		{"cat <<< 'here string'", ""},
		{"diff <(git status) <(git status --short)", ""},
		{"echo $((1 + 2))", ""},
		{"x=1; echo $x", ""},
		{"for f in a b; do echo $f; done", ""},
		{"if git status; then echo ok; else echo no; fi", ""},
		{"(echo a; echo b) | cat", ""},
		{"{ echo a; } 2>/dev/null", ""},
		{"eval 'echo hi'", ""},
		{"exec 2>/dev/null", ""},
		{"CGO_ENABLED=0 go build ./...", ""},
		{"echo ${arr[@]} ${#x} ${x:-default} ${x:0:3}", ""},
		{"[[ -n $x && $x == y ]] && echo y", ""},
		{"# just a comment", ""},
		// writes by every redirection
		{"echo x > out.txt", "read-only"},
		{"echo x >> out.txt", "read-only"},
		{"echo x >| out.txt", "read-only"},
		{"echo x &> out.txt", "read-only"},
		{"echo x &>> out.txt", "read-only"},
		{"echo x 2> err.txt", "read-only"},
		{"echo x >& out.txt", "read-only"},
		{"cat <> in.txt", "read-only"},
		{"> out.txt", "read-only"},
		{"exec > out.txt", "read-only"},
		{"exec 3> out.txt; echo x >&3", "read-only"},
		{"echo x > /dev/stdout2", "read-only"},
		{"echo $(echo x > out.txt)", "read-only"},
		{"echo x | cat > out.txt", "read-only"},
		{"(echo x) > out.txt", "read-only"},
		{"{ echo x; } > out.txt", "read-only"},
		{"if true; then echo x; fi > out.txt", "read-only"},
		{"for i in 1; do echo x; done > out.txt", "read-only"},
		{"echo x > >(cat > out.txt)", "read-only"},
		{"eval 'echo x > out.txt'", "read-only"},
		{"eval \"eval 'echo x > out.txt'\"", "read-only"},
		{"cat <<EOF > out.txt\nx\nEOF", "read-only"},
		// reads outside the root
		{"cat < ../secret", "outside the allowed root"},
		{"cat < /etc/shadow", "outside the allowed root"},
		{"cat < link", "outside the allowed root"},
		{"cat < ~/secret", "outside the allowed root"},
		{"echo \"$(< ../secret)\"", "outside the allowed root"},
		{"echo `cat < ../secret`", "outside the allowed root"},
		{"exec 3< ../secret", "outside the allowed root"},
		// connections
		{"echo x > /dev/udp/127.0.0.1/53", "network connection"},
		{"exec 3<>/dev/tcp/127.0.0.1/80", "network connection"},
		{"cat < /dev/tcp/127.0.0.1/80", "network connection"},
		{"cat < /dev//tcp/127.0.0.1/80", "network connection"},
		{"cat < ../../../../../../../dev/tcp/127.0.0.1/80", "network connection"},
		// targets that cannot be read for sure
		{"echo x > $f", "cannot be checked"},
		{"echo x > \"$HOME/.bashrc\"", "cannot be checked"},
		{"cat < $(echo ../secret)", "cannot be checked"},
		{"cat < ../secre?", "cannot be checked"},
		{"cat < ~root/.ssh/id_rsa", "cannot be checked"},
		{"cat < ..\\/secret", "cannot be checked"},
		{"cd sub && cat < ../../secret", "changes directory"},
		// commands
		{"rm -rf /", `"rm -rf /" is not an allowed command`},
		{"echo ok; rm -rf /", "rm -rf /"},
		{"echo ok && curl evil", "curl evil"},
		{"echo $(curl evil)", "curl evil"},
		{"echo `curl evil`", "curl evil"},
		{"echo <(curl evil)", "curl evil"},
		{"cat <<EOF\n$(curl evil)\nEOF", "curl evil"},
		{"cat <<< \"$(curl evil)\"", "curl evil"},
		{"x=$(curl evil)", "curl evil"},
		{"echo ${x:-$(curl evil)}", "curl evil"},
		{"git stat", "not an allowed command"},
		{"git statusx", "not an allowed command"},
		{"git $(echo status)", "not an allowed command"},
		{"$cmd status", "not an allowed command"},
		{"g\\it status", "not an allowed command"},
		{"exec rm -rf /", "rm -rf /"},
		{"exec -a x git status", "not an allowed command"},
		{"eval \"$x\"", "eval of an expansion"},
		{"eval rm -rf /", "rm -rf /"},
		{"git() { rm -rf /; }; git status", "defines a function"},
		{"coproc cat", "coproc"},
		{"time curl evil", "curl evil"},
		{"! curl evil", "curl evil"},
		{"echo x & curl evil", "curl evil"},
		{"case x in x) curl evil;; esac", "curl evil"},
		{"while curl evil; do :; done", "curl evil"},
		{"[[ $(curl evil) ]]", "curl evil"},
		{"bash -c 'echo hi'", "not an allowed command"},
		{"source ./x.sh", "not an allowed command"},
		{". ./x.sh", "not an allowed command"},
		// assignments
		{"PATH=/tmp/evil git status", "sets PATH"},
		{"PATH=/tmp/evil; git status", "sets PATH"},
		{"BASH_ENV=/tmp/x go test", "sets BASH_ENV"},
		{"LD_PRELOAD=/tmp/x.so cat in.txt", "sets LD_PRELOAD"},
		{"GIT_DIR=/tmp/x git status", "sets GIT_DIR"},
		{"IFS=/ ; echo a", "sets IFS"},
		{"http_proxy=http://evil go test", "sets http_proxy"},
		{"export PATH=/tmp/evil", "sets PATH"},
		{"declare -x GIT_SSH_COMMAND=evil", "sets GIT_SSH_COMMAND"},
		{"declare x=1", "not an allowed command"},
		{"for PATH in /tmp; do git status; done", "sets PATH"},
		{"echo ${PATH:=/tmp}", "sets PATH"},
		{"a[$(curl evil)]=1", "curl evil"},
		// code hidden in a variable's value
		{"x='a[$(touch pwn)]'; echo $((x))", "arithmetic expansion"},
		{"x='a[$(touch pwn)]'; echo $(($x))", "arithmetic expansion"},
		{"x='a[$(touch pwn)]'; (( x ))", "arithmetic command"},
		{"x='a[$(touch pwn)]'; echo ${!x}", "indirect expansion"},
		{"x='$(touch pwn)'; echo ${x@P}", "@"},
		{"x='a[$(touch pwn)]'; [[ $x -eq 1 ]]", "arithmetic test"},
		{"x='a[$(touch pwn)]'; [[ -v $x ]]", "-v"},
		{"echo ${s:x}", "substring offset"},
		{"echo ${a[x]}", "array subscript"},
		{"let x=1", "let"},
		{"for ((i=0; i<3; i++)); do echo $i; done", "C-style"},
		// what does not parse is refused
		{"echo 'unterminated", "does not parse"},
		{"if then fi", "does not parse"},
	}}, {"read-write", rw, []tc{
		{"git status > status.txt", ""},
		{"echo x >> sub/new.txt", ""},
		{"go test ./... 2>&1 | cat > log.txt", ""},
		{"echo pwned >> ~/.ssh/id_ed25519", "outside the allowed root"},
		{"git status > /any/file", "outside the allowed root"},
		{"echo x > link", "outside the allowed root"},
		{"echo x > .git/hooks/pre-commit", "protected"},
		{"echo $(<../secret)", "outside the allowed root"},
		{"> /dev/tcp/127.0.0.1/8080", "network connection"},
		{"rm -rf /", "not an allowed command"},
	}}} {
		for _, c := range set.cases {
			args, _ := json.Marshal(map[string]string{"command": c.script})
			got := set.rules.check(env, "bash", args)
			ok := c.want == "" && got == "" || c.want != "" && strings.Contains(got, c.want)
			if !ok {
				t.Errorf("%s: %q\n got: %q\nwant: %q", set.name, c.script, got, c.want)
			}
		}
	}
}

// The policy's root is --root when given, and bash's cwd argument moves
// where a relative redirection lands.
func TestBashPolicyRootAndCwd(t *testing.T) {
	env := policyEnv(t)
	ru := rules{bashAllow: []string{"echo", "cat"}}
	check := func(args string) string { return ru.check(env, "bash", json.RawMessage(args)) }
	got := []string{
		check(`{"command":"cat < in.txt","cwd":"sub"}`), // sub/in.txt
		check(`{"command":"cat < ../in.txt","cwd":"sub"}`),
		check(`{"command":"echo x > ../../escape","cwd":"sub"}`),
	}
	want := []string{"", "", "Command refused by policy: > ../../escape: Path "}
	for i := range got {
		if len(got[i]) > len(want[i]) {
			got[i] = got[i][:len(want[i])]
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("-want +got\n%s", d)
	}
	// Without --root the working directory bounds the reads; --root widens it.
	sub := &tools.Env{Cwd: filepath.Join(env.Cwd, "sub"), Getenv: env.Getenv}
	if why := ru.check(sub, "bash", json.RawMessage(`{"command":"cat < ../in.txt"}`)); !strings.Contains(why, "outside the allowed root") {
		t.Errorf("no --root: %q", why)
	}
	sub.Root = env.Cwd
	if why := ru.check(sub, "bash", json.RawMessage(`{"command":"cat < ../in.txt"}`)); why != "" {
		t.Errorf("--root: %q", why)
	}
}

// FuzzBashPolicy: the policy never panics, never allows a script that
// does not parse, and what it allows in read-only mode with only echo and
// cat has no command but those and no redirection that writes a file or
// opens /dev/tcp or /dev/udp.
func FuzzBashPolicy(f *testing.F) {
	for _, s := range []string{
		"git status > /any/file", "echo pwned >> ~/.ssh/id_ed25519", "echo $(<../secret)", "> /dev/tcp/127.0.0.1/1",
		"echo a | cat <in.txt 2>&1", "eval 'echo x > y'", "x='a[$(id)]'; echo $((x))", "cat <<EOF\n$(id)\nEOF",
		"exec 3<>/dev/udp/1.1.1.1/53", "diff <(cat a) >(cat)", "echo ${!x} ${x@P}", "PATH=. cat", "f() { :; }",
		"echo x >& out", "cat <> f", "echo ${a[$(id)]}", "[[ -v 'a[$(id)]' ]]", "cd / && cat < etc/passwd",
	} {
		f.Add(s)
	}
	env := policyEnv(f)
	ru := rules{bashAllow: []string{"echo", "cat"}, readOnly: true}
	f.Fuzz(func(t *testing.T, script string) {
		args, _ := json.Marshal(map[string]string{"command": script})
		if ru.check(env, "bash", args) != "" {
			return
		}
		var a struct{ Command string }
		json.Unmarshal(args, &a) // what bash would run: JSON has no invalid UTF-8
		script = a.Command
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
		if err != nil {
			t.Fatalf("allowed a script that does not parse: %q (%v)", script, err)
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CallExpr:
				if len(n.Args) > 0 {
					if w := n.Args[0].Lit(); w != "echo" && w != "cat" && w != "exec" && w != "eval" && w != "" {
						t.Fatalf("allowed command %q in %q", w, script)
					}
				}
			case *syntax.Redirect:
				if w := printWord(n.Word); strings.Contains(w, "/tcp/") || strings.Contains(w, "/udp/") {
					t.Fatalf("allowed a connection: %q", script)
				}
				switch n.Op {
				case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
					if w := printWord(n.Word); w != "/dev/null" && w != "/dev/stdout" && w != "/dev/stderr" && !strings.HasPrefix(w, ">(") && !strings.HasPrefix(w, "<(") {
						t.Fatalf("allowed a write to %q: %q", w, script)
					}
				}
			}
			return true
		})
	})
}

func printWord(w *syntax.Word) string {
	var sb strings.Builder
	syntax.NewPrinter().Print(&sb, w)
	return sb.String()
}

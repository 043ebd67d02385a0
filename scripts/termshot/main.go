// Command termshot takes the screenshots of `agent` in docs/: it runs agent
// in a real terminal (tmux, COLS×ROWS) against the fake provider
// (scripts/fakeprovider -agent), in a scratch git repository and a scratch
// home, plays each scene by its keys, captures the pane with its colours
// (capture-pane -e) and draws it to PNG with headless Chromium.
//
//	make build && PATH=$PWD/bin:$PATH go run ./scripts/termshot [-out docs]
//
// The scenes: the start-up screen, a tool card folded and expanded (ctrl+o),
// and /tree with a label. Each waits for the text that shows it is drawn;
// one that does not appear fails the run, its pane printed.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentutils/agentutils/scripts/internal/interop"
)

// scene is keys sent to the pane, then the text it waits for before the
// capture (shot: the PNG's name; "" takes none).
type scene struct {
	keys [][]string // each a send-keys call's arguments
	want string
	shot string
}

var scenes = []scene{
	{want: "/help for commands", shot: "agent-start.png"},
	{keys: [][]string{{"-l", "RUN `agent-grep -c func GOROOT/src/strings`"}, {"Enter"}},
		want: "more lines", shot: "agent-card-folded.png"},
	{keys: [][]string{{"C-o"}}, want: "tool output expanded", shot: "agent-card-expanded.png"},
	{keys: [][]string{{"C-o"}, {"-l", "/tree"}, {"Enter"}}, want: "RUN `agent-grep"},
	{keys: [][]string{{"Up"}, {"Up"}, {"Up"}, {"C-l"}}, want: "/label "},
	{keys: [][]string{{"-l", "strings survey"}, {"Enter"}}, want: "labelled"},
	{keys: [][]string{{"-l", "/tree"}, {"Enter"}}, want: "strings survey]", shot: "agent-tree.png"},
}

func main() {
	out := flag.String("out", "docs", "the `DIR` the PNGs are written to")
	cols := flag.Int("cols", 100, "the terminal's `COLUMNS`")
	rows := flag.Int("rows", 34, "the terminal's `ROWS`")
	flag.Parse()
	os.Exit(interop.Main("termshot", func(t *interop.T) error { return run(t, *out, *cols, *rows) }))
}

func run(t *interop.T, out string, cols, rows int) error {
	if err := interop.Need([2]string{"tmux", "tmux"}, [2]string{"agent", ""}); err != nil {
		return err
	}
	chromium, err := interop.Chromium()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("/tmp", "ts") // short: the session's path is on the screen
	if err != nil {
		return err
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	home, proj := filepath.Join(tmp, "home"), filepath.Join(tmp, "strings-tour")
	if r := interop.Sh("", fmt.Sprintf(`mkdir -p %[1]q %[2]q && cd %[2]q && git init -q && printf 'package tour\n' > tour.go && git add . && git -c user.name=a -c user.email=a@example.com commit -qm init`, home, proj)); !r.OK() {
		return fmt.Errorf("scratch repository: %s", r.Why())
	}
	if err := fakeProvider(t, home); err != nil {
		return err
	}
	tm := tmux{socket: filepath.Join(tmp, "tmux.sock")}
	t.Cleanup(func() { tm.run("kill-server") })
	// The scenes show cards, not an approval: the command is allowed.
	agent := fmt.Sprintf("env AGENTUTILS_HOME=%q FAKE_KEY=none agent --model fake/fake-model --allowed-tools 'Bash(agent-grep:*)'", home)
	if _, err := tm.run("new-session", "-d", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), "-c", proj, agent); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	goroot := interop.Sh("", "go env GOROOT")
	if !goroot.OK() {
		return fmt.Errorf("go env GOROOT: %s", goroot.Why())
	}
	browser := interop.Browser{Path: chromium, Profile: filepath.Join(tmp, "chromium")}
	for _, sc := range scenes {
		for _, k := range sc.keys {
			k = append([]string(nil), k...)
			k[len(k)-1] = strings.ReplaceAll(k[len(k)-1], "GOROOT", strings.TrimSpace(goroot.Stdout))
			if _, err := tm.run(append([]string{"send-keys", "-t", "0"}, k...)...); err != nil {
				return err
			}
		}
		pane, ok := tm.wait(sc.want, 20*time.Second)
		if os.Getenv("TERMSHOT_DEBUG") != "" {
			fmt.Println(pane)
		}
		if !t.Check(fmt.Sprintf("%q drawn", sc.want), ok, pane) || sc.shot == "" {
			continue
		}
		// The picture ends below the last line drawn: no empty screen.
		pane = strings.TrimRight(pane, "\n ")
		lines := strings.Count(pane, "\n") + 1
		html := filepath.Join(tmp, sc.shot+".html")
		if err := os.WriteFile(html, []byte(page(pane, cols)), 0o644); err != nil {
			return err
		}
		png := filepath.Join(out, sc.shot)
		// The window: the columns at 9 px and a little, the lines at 19.5
		// px, the padding.
		size := fmt.Sprintf("%d,%d", cols*91/10+32, lines*39/2+26)
		err := browser.Screenshot("file://"+html, png, size)
		t.Check("screenshot "+png, err == nil, fmt.Sprint(err))
	}
	return nil
}

// fakeProvider starts scripts/fakeprovider -agent, which writes home's
// models.toml, and waits for its URL.
func fakeProvider(t *interop.T, home string) error {
	bin := filepath.Join(home, "fakeprovider")
	if r := interop.Run(interop.Cmd("", nil, "go", "build", "-o", bin, "./scripts/fakeprovider")); !r.OK() {
		return fmt.Errorf("building the fake provider: %s", r.Why())
	}
	log := filepath.Join(home, "fakeprovider.out")
	if err := t.Start(exec.Command(bin, "-agent", home, "-models", filepath.Join(home, "models.toml")), log); err != nil {
		return err
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(log)
		if u, _, ok := strings.Cut(string(b), "\n"); ok && strings.HasPrefix(u, "http") {
			return nil
		}
	}
	return fmt.Errorf("the fake provider printed no URL")
}

// tmux runs a tmux server of its own on a socket.
type tmux struct{ socket string }

func (m tmux) run(args ...string) (string, error) {
	r := interop.Run(exec.Command("tmux", append([]string{"-S", m.socket}, args...)...))
	if !r.OK() {
		return r.Stdout, fmt.Errorf("tmux %s: %s", strings.Join(args, " "), r.Why())
	}
	return r.Stdout, nil
}

// wait captures the pane until its text holds want, for at most d, and
// returns the last capture with its escapes; after want appears it waits
// a moment more for the frame to settle.
func (m tmux) wait(want string, d time.Duration) (string, bool) {
	for end := time.Now().Add(d); ; time.Sleep(100 * time.Millisecond) {
		plain, _ := m.run("capture-pane", "-p", "-t", "0")
		if strings.Contains(plain, want) {
			time.Sleep(300 * time.Millisecond)
			pane, _ := m.run("capture-pane", "-p", "-e", "-t", "0")
			return pane, true
		}
		if time.Now().After(end) {
			return plain, false
		}
	}
}

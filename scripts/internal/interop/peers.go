package interop

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agentutils/agentutils/internal/fakellm"
)

// The pinned versions of the npm peers more than one check runs.
const (
	ClaudeCode = "2.1.337" // @anthropic-ai/claude-code
	Codex      = "0.171.0" // @openai/codex
)

// Need returns a Skipped error naming the first command not on PATH, with
// the Debian package that has it ("" when none is worth naming).
func Need(cmds ...[2]string) error {
	for _, c := range cmds {
		if _, err := exec.LookPath(c[0]); err != nil {
			if c[1] != "" {
				return Skip("%s not installed (apt-get install %s)", c[0], c[1])
			}
			return Skip("%s not installed", c[0])
		}
	}
	return nil
}

// Chromium is the path of a headless-capable Chromium or Chrome, or a
// Skipped error.
func Chromium() (string, error) {
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", Skip("chromium not installed (apt-get install chromium)")
}

// Sshd is the path of OpenSSH's server, or a Skipped error.
func Sshd() (string, error) {
	if p, err := exec.LookPath("sshd"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/sbin/sshd"); err == nil {
		return "/usr/sbin/sshd", nil
	}
	return "", Skip("sshd not installed (apt-get install openssh-server)")
}

// NPM is a prefix directory npm packages are installed into.
type NPM string

// Bin is the path of a program the prefix's packages installed.
func (p NPM) Bin(name string) string { return filepath.Join(string(p), "node_modules", ".bin", name) }

// Has reports whether every one of the programs is installed in the prefix.
func (p NPM) Has(bins ...string) bool {
	for _, b := range bins {
		if st, err := os.Stat(p.Bin(b)); err != nil || st.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// Version is the version in an installed package's package.json ("?" when
// it cannot be read).
func (p NPM) Version(pkg string) string {
	b, err := os.ReadFile(filepath.Join(string(p), "node_modules", pkg, "package.json"))
	if m := regexp.MustCompile(`"version"\s*:\s*"([^"]+)"`).FindSubmatch(b); err == nil && m != nil {
		return string(m[1])
	}
	return "?"
}

// Install runs npm install of the packages (name@version to pin) into the
// prefix; the error carries the last lines of npm's output. npm missing is
// a Skipped error.
func (p NPM) Install(pkgs ...string) error {
	if _, err := exec.LookPath("npm"); err != nil {
		return Skip("npm not installed (apt-get install npm): %s needed", strings.Join(pkgs, ", "))
	}
	args := append([]string{"install", "--prefix", string(p), "--no-audit", "--no-fund", "--loglevel=error"}, pkgs...)
	r := Run(exec.Command("npm", args...))
	if !r.OK() {
		return fmt.Errorf("npm install %s failed: %s", strings.Join(pkgs, " "), Tail(r.Stdout+r.Stderr, 5))
	}
	return nil
}

// Cache is a directory under the user's cache for installs kept between
// runs: $XDG_CACHE_HOME/agentutils/interop/NAME (~/.cache when unset).
func Cache(name string) string {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "agentutils", "interop", name)
}

// Corpus is ../shared/corpus/SUB beside the repository (AGENTUTILS_CORPUS
// names another corpus, as for lib/llm's tests), the real data the checks
// run over when it is there; ok is false when it is absent.
func (t *T) Corpus(sub string) (dir string, ok bool) {
	dir = filepath.Join(filepath.Dir(t.Root), "shared", "corpus", sub)
	if d := os.Getenv("AGENTUTILS_CORPUS"); d != "" {
		dir = filepath.Join(d, sub)
	}
	st, err := os.Stat(dir)
	return dir, err == nil && st.IsDir()
}

// FakeProvider starts the fake model provider (internal/fakellm) on
// loopback, stopped at the end. sse names recorded streams answered in
// turn, cycling; agent, when set, makes it answer Claude Code and Codex by
// the conversation, editing in that directory instead.
func (t *T) FakeProvider(agent string, sse ...string) *fakellm.Server {
	var steps []fakellm.Step
	for _, f := range sse {
		steps = append(steps, fakellm.Step{SSE: f})
	}
	s := fakellm.New(steps...)
	s.Cycle, s.Agent = true, agent
	t.Cleanup(s.Close)
	return s
}

// FreePort is a TCP port free on 127.0.0.1 a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// WaitPort waits up to d for something to accept connections on the port
// of 127.0.0.1.
func WaitPort(port int, d time.Duration) bool {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return true
		}
	}
	return false
}

// Browser is headless Chromium with a profile of its own, quiet.
type Browser struct {
	Path    string
	Profile string
}

// run runs Chromium headless on args, for at most two minutes.
func (b Browser) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--no-first-run", "--user-data-dir=" + b.Profile, "--allow-file-access-from-files"}, args...)
	r := Run(exec.CommandContext(ctx, b.Path, args...))
	if r.Err != nil || r.Code != 0 {
		return r.Stdout, fmt.Errorf("chromium: %s", r.Why())
	}
	return r.Stdout, nil
}

// Shots is the directory screenshots are kept in for people to look at:
// $ENV, else $TMPDIR/NAME (/tmp/NAME), made when missing.
func Shots(env, name string) (string, error) {
	dir := os.Getenv(env)
	if dir == "" {
		dir = filepath.Join(os.TempDir(), name)
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// Checks loads page (a wrapper page whose script writes its verdicts into
// <pre id="result"> once the page under test has loaded in its iframe) and
// returns those verdicts, one a line.
func (b Browser) Checks(page string) (string, error) {
	dom, err := b.run("--virtual-time-budget=10000", "--dump-dom", page)
	if v, ok := ResultOf(dom); ok {
		return v, nil
	}
	if err == nil {
		err = errors.New("the page wrote no <pre id=\"result\">")
	}
	return "", err
}

// Screenshot writes a PNG of page as a window of size ("W,H").
func (b Browser) Screenshot(page, png, size string) error {
	_, err := b.run("--screenshot="+png, "--window-size="+size, page)
	if err == nil {
		if _, err = os.Stat(png); err != nil {
			err = fmt.Errorf("chromium wrote no screenshot: %w", err)
		}
	}
	return err
}

var resultRE = regexp.MustCompile(`(?s)<pre id="result">(.*?)</pre>`)

// ResultOf is the text of the <pre id="result"> element in a DOM dump,
// unescaped; ok is false when there is none.
func ResultOf(dom string) (string, bool) {
	m := resultRE.FindStringSubmatch(dom)
	if m == nil {
		return "", false
	}
	return html.UnescapeString(m[1]), true
}

// WrapPage is the wrapper page Browser.Checks loads: the page under test
// (src, relative to the wrapper) in a 1200×900 iframe, and once it has
// loaded, check(document, window, want) from the script js, its verdicts
// (or the error it threw) written into <pre id="result">.
func WrapPage(src, js, want string) string {
	return `<!DOCTYPE html><html><body><pre id="result">not run</pre>
<iframe id="f" style="width:1200px;height:900px" src="` + html.EscapeString(src) + `"></iframe>
<script>` + js + `
document.getElementById("f").onload = function () { var w = this.contentWindow;
  try { document.getElementById("result").textContent = check(w.document, w, ` + want + `); }
  catch (e) { document.getElementById("result").textContent = "FAIL script error: " + e; } };
</script></body></html>
`
}

// BatchTask is a line of an agent-batch tasks file for the scripted fake
// model: the cassette testdata/batch/CASSETTE.jsonl (under root) replayed
// on repo, checked by answer.txt holding 42; extra is appended to the
// object's fields (`,"budgets":{"turns":2}`).
func BatchTask(root, id, repo, model, cassette, extra string) string {
	return fmt.Sprintf(`{"id":%q,"repo":%q,"prompt":"Write the answer.","check":"test \"$(cat answer.txt)\" = 42","model":%q,"chatArgs":["--replay",%q,"--retries","0"]%s}`,
		id, repo, model, filepath.Join(root, "testdata", "batch", cassette+".jsonl"), extra)
}

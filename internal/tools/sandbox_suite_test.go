package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	isandbox "github.com/agentutils/agentutils/internal/sandbox"
	"github.com/agentutils/agentutils/lib/sandbox"
)

// The confinement suite: escape vectors run through the bash tool in
// each mode, each judged by its effect outside the sandbox (a file that
// must not exist or change, a listener that must not receive, a process
// that must live, a secret that must not show), never by an exit code;
// and things that must keep working, judged by what they leave in the
// root. Run as root, it runs again as nobody (user namespaces unprivileged).

// A vector is one or more bash calls (a later call may use what an
// earlier one planted) and the outside paths it aims at.
type vector struct {
	name  string
	calls []string
	gone  []string // paths that must not exist afterwards
	tag   bool     // the calls leave processes tagged SBXTAG={T}: none may remain
}

var vectors = []vector{
	// writes, by every route
	{name: "redirect", calls: []string{"echo x > {O}/w"}, gone: []string{"{O}/w"}},
	{name: "append", calls: []string{"echo pwn >> {O}/keep"}},
	{name: "cp", calls: []string{"echo x > f; cp f {O}/w"}, gone: []string{"{O}/w"}},
	{name: "mv", calls: []string{"echo x > f; mv f {O}/w"}, gone: []string{"{O}/w"}},
	{name: "mv out", calls: []string{"mv {O}/keep ./stolen"}},
	{name: "rm", calls: []string{"rm -f {O}/keep; rm -rf {O}/dir"}},
	{name: "ln -s out", calls: []string{"ln -s /etc/passwd {O}/w"}, gone: []string{"{O}/w"}},
	{name: "hard link made in root", calls: []string{"ln {O}/keep hl; echo pwn >> hl; echo pwn > hl"}},
	{name: "symlink dir planted earlier", calls: []string{"ln -s {O} sl", "echo x > sl/w; cp /etc/hostname sl/w2"}, gone: []string{"{O}/w", "{O}/w2"}},
	{name: "symlink file planted earlier", calls: []string{"ln -s {O}/keep sf", "echo pwn > sf; echo pwn >> sf"}},
	{name: "/proc/self/root", calls: []string{"echo x > /proc/self/root{O}/w"}, gone: []string{"{O}/w"}},
	{name: "/proc/self/cwd", calls: []string{"cd {O} && echo x > /proc/self/cwd/w"}, gone: []string{"{O}/w"}},
	{name: "/proc/self/fd", calls: []string{"exec 3<{O}; echo x > /proc/self/fd/3/w"}, gone: []string{"{O}/w"}},
	{name: "fd redirect", calls: []string{"exec 3>{O}/w; echo x >&3"}, gone: []string{"{O}/w"}},
	{name: "touch mkdir mkfifo", calls: []string{"touch {O}/w; mkdir {O}/d; mkfifo {O}/p"}, gone: []string{"{O}/w", "{O}/d", "{O}/p"}},
	{name: "chmod chown", calls: []string{"chmod 777 {O}/keep {O}/dir; chown 65534 {O}/keep"}},
	{name: "truncate", calls: []string{"truncate -s 0 {O}/keep; : > {O}/keep"}},
	{name: "sed -i", calls: []string{"sed -i s/keep/pwn/ {O}/keep"}},
	{name: "dd tee install", calls: []string{"echo x | dd of={O}/w; echo x | tee {O}/w2; install /etc/hostname {O}/w3"}, gone: []string{"{O}/w", "{O}/w2", "{O}/w3"}},
	{name: "tar -x", calls: []string{"echo x > f; tar cf t.tar f; tar xf t.tar -C {O}"}, gone: []string{"{O}/f"}},
	{name: "utime", calls: []string{"touch -d 2001-01-01 {O}/keep"}},
	{name: "python", calls: []string{pyOr("open('{O}/w','w').write('x')", "echo x > {O}/w")}, gone: []string{"{O}/w"}},
	{name: "perl", calls: []string{"perl -e 'open(F, q(>), q({O}/w)); print F 1; rename(q({O}/keep), q({O}/k2))'"}, gone: []string{"{O}/w", "{O}/k2"}},
	{name: "node", calls: []string{"if node -e 0 2>/dev/null; then node -e 'require(\"fs\").writeFileSync(\"{O}/w\", \"x\")'; else sh -c 'echo x > {O}/w'; fi"}, gone: []string{"{O}/w"}},
	{name: "home", calls: []string{"echo pwn >> ~/.bashrc; echo x > ~/w"}, gone: []string{"{H}/w"}},
	{name: "state dir", calls: []string{"echo x > {ST}/w; echo x > {ST}/../w"}, gone: []string{"{ST}/w", "{ST}/../w"}},
	{name: "shared /tmp", calls: []string{"echo x > {OT}/w; echo x > /tmp/sbx-{T}"}, gone: []string{"{OT}/w", "/tmp/sbx-{T}"}},
	{name: "/dev/shm /run /var/tmp", calls: []string{"echo x > /dev/shm/sbx-{T}; echo x > /run/sbx-{T}; echo x > /var/tmp/sbx-{T}"}, gone: []string{"/dev/shm/sbx-{T}", "/run/sbx-{T}", "/var/tmp/sbx-{T}"}},
	{name: "git hook", calls: []string{"echo 'touch {O}/hooked' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit"}, gone: []string{"{R}/.git/hooks/pre-commit"}},
	{name: "git config", calls: []string{"git config core.hooksPath {O}; echo '[core]' >> .git/config"}},
	{name: "git dir moved", calls: []string{"mv .git .g2 && mkdir -p .git/hooks && echo x > .git/hooks/pre-commit; rm -rf .git/hooks"}, gone: []string{"{R}/.git/hooks/pre-commit"}},
	{name: "block device", calls: []string{"mknod disk b 7 0; mknod {O}/d b 7 0"}, gone: []string{"{R}/disk", "{O}/d"}},
	// credential reads: the secret must not show, nor land in the root
	{name: "ssh key", calls: []string{"cat ~/.ssh/id_rsa; cp ~/.ssh/id_rsa leak"}},
	{name: "aws", calls: []string{"cat ~/.aws/credentials; cat {H}/.aws/credentials > leak"}},
	{name: "gnupg netrc", calls: []string{"cat ~/.gnupg/key ~/.netrc ~/.git-credentials"}},
	{name: "gh docker kube", calls: []string{"cat ~/.config/gh/hosts.yml ~/.docker/config.json ~/.kube/config"}},
	{name: "agentutils keys", calls: []string{"cat {H}/.local/share/agentutils/credentials.json {H}/.config/agentutils/mcp.json"}},
	{name: "symlink to key", calls: []string{"ln -s ~/.ssh/id_rsa k", "cat k; cat ~/.ssh/../.ssh/id_rsa"}},
	{name: "find and grep", calls: []string{"find ~ -type f -exec cat {} + ; grep -r . ~ 2>/dev/null"}},
	{name: "python key", calls: []string{pyOr("print(open('{H}/.ssh/id_rsa').read())", "cat {H}/.ssh/id_rsa")}},
	{name: "umount hidden", calls: []string{"umount ~/.ssh; umount -l ~/.ssh; cat ~/.ssh/id_rsa"}},
	{name: "raw disk", calls: []string{"for d in /dev/vda /dev/sda /dev/nvme0n1 /dev/mem; do head -c 4096 $d 2>/dev/null | grep -a -c . ; done; grep -a -m1 SBXSECRET /dev/vda"}},
	// sockets to listeners the test owns
	{name: "tcp /dev/tcp", calls: []string{"echo hi > /dev/tcp/127.0.0.1/{P}"}},
	{name: "udp /dev/udp", calls: []string{"echo hi > /dev/udp/127.0.0.1/{U}"}},
	{name: "tcp6 udp6", calls: []string{"echo hi > /dev/tcp/::1/{P6}; echo hi > /dev/udp/::1/{U6}"}},
	{name: "curl", calls: []string{"curl -s -m 2 http://127.0.0.1:{P}/ http://[::1]:{P6}/"}},
	{name: "python sockets", calls: []string{pyOr("import socket\nfor f,a in ((socket.AF_INET,('127.0.0.1',{P})),(socket.AF_UNIX,'{S}'),(socket.AF_UNIX,'\\0{A}')):\n  try: socket.socket(f).connect(a)\n  except Exception as e: print(e)", "echo hi > /dev/tcp/127.0.0.1/{P}")}},
	{name: "perl unix", calls: []string{"perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Peer => q({S})); IO::Socket::UNIX->new(Peer => qq(\\0{A}))'"}},
	{name: "node sockets", calls: []string{"if node -e 0 2>/dev/null; then node -e 'const n=require(\"net\");for (const a of [\"{S}\",\"\\0{A}\"]) n.connect(a).on(\"error\",()=>{}); n.connect({P},\"127.0.0.1\").on(\"error\",()=>{}); setTimeout(()=>{},300)'; else echo hi > /dev/tcp/127.0.0.1/{P}; fi"}},
	{name: "unix dgram socketpair", calls: []string{pyOr("import socket\na,b=socket.socketpair(socket.AF_UNIX,socket.SOCK_DGRAM)\na.sendto(b'x','{S}d')", "echo hi > /dev/udp/127.0.0.1/{U}")}},
	// other processes: signals, ptrace, /proc
	{name: "kill", calls: []string{"kill -9 {V}; kill -STOP {V}; kill -9 -1; kill -9 -{V}"}},
	{name: "pkill", calls: []string{"pkill -9 -f sbx-victim; pkill -STOP sleep"}},
	{name: "python kill", calls: []string{pyOr("import os\nfor p in range(2, 1<<16):\n  try: p != os.getpid() and os.kill(p, 19)\n  except Exception: pass", "kill -STOP {V}")}},
	{name: "ptrace", calls: []string{"strace -p {V} -o /dev/null & sleep 0.3; gdb -p {V} -batch -ex 'call (int)kill(0,9)' 2>&1 | tail -1"}},
	{name: "/proc of another", calls: []string{"cat /proc/{V}/environ /proc/{V}/cmdline; ls -l /proc/{V}/cwd/; cat /proc/*/environ | tr '\\0' '\\n' | grep SBX"}},
	{name: "/proc/PID/root", calls: []string{"cat /proc/{V}/root{H}/.ssh/id_rsa; echo x > /proc/{V}/root{O}/w; echo x > /proc/1/root{O}/w2"}, gone: []string{"{O}/w", "{O}/w2"}},
	// namespaces and mounts
	{name: "unshare", calls: []string{"unshare -rm sh -c 'mount --bind {O} m; echo x > m/w'; mkdir -p m; unshare -U -r true"}, gone: []string{"{O}/w"}},
	{name: "mount bind", calls: []string{"mkdir m; mount --bind {O} m; echo x > m/w; mount -t tmpfs t ~/.ssh"}, gone: []string{"{O}/w"}},
	{name: "mount proc", calls: []string{"mkdir p; mount -t proc proc p && cat p/{V}/environ"}},
	{name: "chroot nsenter", calls: []string{"chroot / sh -c 'echo x > {O}/w'; nsenter -t {V} -a sh -c 'echo x > {O}/w2; cat ~/.ssh/id_rsa'"}, gone: []string{"{O}/w", "{O}/w2"}},
	{name: "python clone newuser", calls: []string{pyOr("import os\nos.unshare(os.CLONE_NEWUSER|os.CLONE_NEWNS)\nopen('{O}/w','w')", "unshare -r sh -c 'echo x > {O}/w'")}, gone: []string{"{O}/w"}},
	// children that act after the call returns
	{name: "background", tag: true, calls: []string{"export SBXTAG={T}; (while [ ! -e {G} ]; do sleep 0.05; done; echo x > {O}/bg; echo hi > /dev/tcp/127.0.0.1/{P}) > /dev/null 2>&1 &"}, gone: []string{"{O}/bg"}},
	{name: "setsid nohup", tag: true, calls: []string{"export SBXTAG={T}; setsid sh -c 'while [ ! -e {G} ]; do sleep 0.05; done; kill -9 {V}; echo x > {O}/bg' > /dev/null 2>&1 & nohup sh -c 'sleep 30' > /dev/null 2>&1 &"}, gone: []string{"{O}/bg"}},
	{name: "double fork", tag: true, calls: []string{"export SBXTAG={T}; ( (trap '' TERM HUP; while [ ! -e {G} ]; do sleep 0.05; done; echo x > {O}/bg) > /dev/null 2>&1 & ) ; disown -a"}, gone: []string{"{O}/bg"}},
	{name: "daemon", tag: true, calls: []string{pyOr("import os,time\nif os.fork()==0:\n  os.setsid()\n  if os.fork()==0:\n    os.environ['SBXTAG']='{T}'\n    os.execvp('sh',['sh','-c','sleep 30'])\n", "export SBXTAG={T}; setsid sleep 30 > /dev/null 2>&1 &")}},
}

// pyOr is a python3 script, or sh when python3 does not run here.
func pyOr(py, sh string) string {
	return fmt.Sprintf("if python3 -c '' 2>/dev/null; then python3 -c %s\nelse\n%s\nfi", shq(py), sh)
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// works are the things that must keep working inside the sandbox, each
// judged by a file it leaves in the root (want: its content).
type work struct {
	name, cmd, file, want string
	modes                 []string // nil: every mode
	needs                 string   // a program that must be present (else skipped, said so)
}

var ww = []string{sandbox.WorkspaceWrite}

var works = []work{
	{name: "write in root", cmd: "echo ok > out", file: "out", want: "ok\n", modes: ww},
	{name: "pipes", cmd: "seq 1 100 | grep -c 5 | tee out", file: "out", want: "19\n", modes: ww},
	{name: "mktemp", cmd: "f=$(mktemp) && echo ok > $f && cat $f > out && case $f in /tmp/*) ;; *) echo bad > out;; esac", file: "out", want: "ok\n", modes: ww},
	{name: "tmp kept across calls", cmd: "echo ok > /tmp/keep-{T}\x00cat /tmp/keep-{T} > out", file: "out", want: "ok\n", modes: ww},
	{name: "symlinks in root", cmd: "mkdir d && ln -s d l && echo ok > l/f && ln -s f d/g && cat d/g > out", file: "out", want: "ok\n", modes: ww},
	{name: "mv and hard link in root", cmd: "mkdir a b && echo ok > a/f && mv a/f b/f && ln b/f h && cat h > out", file: "out", want: "ok\n", modes: ww},
	{name: "background job waited for", cmd: "(sleep 0.1; echo ok > out) & wait", file: "out", want: "ok\n", modes: ww},
	{name: "git init add commit", cmd: "git init -q repo && cd repo && echo x > f && git add f && git -c user.name=t -c user.email=t@t commit -qm m && git log --format=%s > ../out", file: "out", want: "m\n", modes: ww, needs: "git"},
	{name: "git commit in the workspace", cmd: "echo y > g && git add g && git -c user.name=t -c user.email=t@t commit -qm m2 && git log -1 --format=%s > out", file: "out", want: "m2\n", modes: ww, needs: "git"},
	{name: "go build", cmd: "printf 'module m\\ngo 1.21\\n' > go.mod && printf 'package main\\nfunc main() { println(\"ok\") }\\n' > main.go && go build -o prog . && ./prog 2> out", file: "out", want: "ok\n", modes: ww, needs: "go"},
	{name: "go test", cmd: "printf 'module m\\ngo 1.21\\n' > go.mod && printf 'package m\\nimport \"testing\"\\nfunc TestX(t *testing.T) {}\\n' > m_test.go && go test -count=1 . > /dev/null && echo ok > out", file: "out", want: "ok\n", modes: ww, needs: "go"},
	{name: "npm test", cmd: "echo '{\"name\":\"m\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node -e \\\"require(\\\\\\\"fs\\\\\\\").writeFileSync(\\\\\\\"out\\\\\\\",\\\\\\\"ok\\\\\\\\n\\\\\\\")\\\"\"}}' > package.json && npm test --silent > /dev/null", file: "out", want: "ok\n", modes: ww, needs: "npm"},
	{name: "read-only: reads and pipes", cmd: "cat keep | tr a-z A-Z > /tmp/u-{T} && cat /tmp/u-{T}", want: "KEEP\n", modes: []string{sandbox.ReadOnly}},
	{name: "read-only: mktemp", cmd: "f=$(mktemp) && echo ok > $f && cat $f", want: "ok\n", modes: []string{sandbox.ReadOnly}},
	{name: "devices", cmd: "echo x > /dev/null; head -c 4 /dev/zero | wc -c", want: "4\n"},
}

// world is what lies outside the sandbox: directories, credential stores
// holding a secret, listeners and a process, all the test's own.
type world struct {
	t                              *testing.T
	base, out, outTmp, home, state string
	secret                         string
	socks                          map[string]int // listener name → fd
	repl                           []string       // placeholder → value
	victim                         *exec.Cmd
	runGo                          bool
	codex                          string // when set, calls run in Codex's sandbox (TestSandboxInterop)
}

func newWorld(t *testing.T) *world {
	base, err := os.MkdirTemp("/var/tmp", "sbx-suite-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	outTmp := t.TempDir()
	w := &world{t: t, base: base, out: filepath.Join(base, "out"), outTmp: outTmp, home: filepath.Join(base, "home"),
		state: filepath.Join(base, "state"), secret: fmt.Sprintf("SBXSECRET%dX%d", os.Getpid(), time.Now().UnixNano()), socks: map[string]int{}}
	files := map[string]string{"out/keep": "keep\n", "out/dir/f": "keep\n", "home/.bashrc": "# rc\n"}
	for _, c := range []string{".ssh/id_rsa", ".aws/credentials", ".gnupg/key", ".netrc", ".git-credentials", ".config/gh/hosts.yml",
		".docker/config.json", ".kube/config", ".local/share/agentutils/credentials.json", ".config/agentutils/mcp.json"} {
		files["home/"+c] = w.secret + "\n"
	}
	for name, data := range files {
		p := filepath.Join(base, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(w.state, 0o755)
	if _, err := isandbox.PrivateTmp(w.state, ""); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", w.home)
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "AGENTUTILS_HOME"} {
		t.Setenv(k, "")
	}
	w.listen()
	w.startVictim()
	tag := strconv.FormatInt(time.Now().UnixNano(), 36)
	w.repl = []string{"{O}", w.out, "{OT}", w.outTmp, "{H}", w.home, "{ST}", w.state, "{T}", tag,
		"{S}", filepath.Join(w.out, "sock"), "{G}", filepath.Join(base, "go-"+tag), "{A}", "sbx-abstract-" + tag}
	for _, name := range []string{"tcp", "udp", "tcp6", "udp6"} {
		port := "1"
		if fd, ok := w.socks[name]; ok {
			sa, _ := unix.Getsockname(fd)
			switch a := sa.(type) {
			case *unix.SockaddrInet4:
				port = strconv.Itoa(a.Port)
			case *unix.SockaddrInet6:
				port = strconv.Itoa(a.Port)
			}
		}
		w.repl = append(w.repl, map[string]string{"tcp": "{P}", "udp": "{U}", "tcp6": "{P6}", "udp6": "{U6}"}[name], port)
	}
	return w
}

// listen opens the listeners, non-blocking: a connection or datagram that
// reached one waits in its queue for drain.
func (w *world) listen() {
	open := func(name string, domain, typ int, sa unix.Sockaddr) {
		fd, err := unix.Socket(domain, typ|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		if err == nil {
			err = unix.Bind(fd, sa)
		}
		if err == nil && typ == unix.SOCK_STREAM {
			err = unix.Listen(fd, 64)
		}
		if err != nil {
			w.t.Logf("notice: no %s listener on this machine (%v): its vectors test nothing", name, err)
			return
		}
		w.socks[name] = fd
		w.t.Cleanup(func() { unix.Close(fd) })
	}
	lo4 := [4]byte{127, 0, 0, 1}
	lo6 := [16]byte{15: 1}
	open("tcp", unix.AF_INET, unix.SOCK_STREAM, &unix.SockaddrInet4{Addr: lo4})
	open("udp", unix.AF_INET, unix.SOCK_DGRAM, &unix.SockaddrInet4{Addr: lo4})
	open("tcp6", unix.AF_INET6, unix.SOCK_STREAM, &unix.SockaddrInet6{Addr: lo6})
	open("udp6", unix.AF_INET6, unix.SOCK_DGRAM, &unix.SockaddrInet6{Addr: lo6})
	open("unix", unix.AF_UNIX, unix.SOCK_STREAM, &unix.SockaddrUnix{Name: filepath.Join(w.out, "sock")})
	open("unixgram", unix.AF_UNIX, unix.SOCK_DGRAM, &unix.SockaddrUnix{Name: filepath.Join(w.out, "sockd")})
	os.Chmod(filepath.Join(w.out, "sock"), 0o777)
	os.Chmod(filepath.Join(w.out, "sockd"), 0o777)
	open("abstract", unix.AF_UNIX, unix.SOCK_STREAM, &unix.SockaddrUnix{Name: "@sbx-abstract-" + strconv.FormatInt(time.Now().UnixNano(), 36)})
}

// drained names the listeners that received something since the last call.
func (w *world) drained() []string {
	var got []string
	buf := make([]byte, 64)
	for name, fd := range w.socks {
		for {
			var err error
			if name == "udp" || name == "udp6" || name == "unixgram" {
				_, _, err = unix.Recvfrom(fd, buf, unix.MSG_DONTWAIT)
			} else {
				var nfd int
				if nfd, _, err = unix.Accept(fd); err == nil {
					unix.Close(nfd)
				}
			}
			if err != nil {
				break
			}
			got = append(got, name+" listener received")
		}
	}
	return got
}

func (w *world) startVictim() {
	w.victim = exec.Command("sleep", "100000")
	w.victim.Args[0] = "sbx-victim-" + w.secret
	w.victim.Env = append(os.Environ(), "SBXSECRET="+w.secret)
	w.victim.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := w.victim.Start(); err != nil {
		w.t.Fatal(err)
	}
	v := w.victim
	w.t.Cleanup(func() { v.Process.Kill(); v.Wait() })
}

// victimHarmed says how the victim was harmed ("" when it runs
// untouched), and starts a new one when it was.
func (w *world) victimHarmed() string {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", w.victim.Process.Pid))
	why := ""
	switch {
	case err != nil:
		why = "gone"
	case bytes.Contains(st, []byte("\nState:\tT")) || bytes.Contains(st, []byte("\nState:\tt")):
		why = "stopped"
	case bytes.Contains(st, []byte("\nState:\tZ")):
		why = "killed"
	case !bytes.Contains(st, []byte("\nTracerPid:\t0\n")):
		why = "traced"
	}
	if why != "" {
		w.victim.Process.Kill()
		w.victim.Wait()
		w.startVictim()
	}
	return why
}

// snap is a tree's state: each path's type, mode, size, mtime and content.
func snap(root string) map[string]string {
	m := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if strings.Contains(p, "sandbox-tmp") || strings.HasSuffix(p, ".bash.log") {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		s := fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			s += " " + string(b)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			s += fmt.Sprintf(" uid=%d", st.Uid)
		}
		m[p] = s
		return nil
	})
	return m
}

func diffSnaps(a, b map[string]string) []string {
	var out []string
	for p, s := range a {
		if t, ok := b[p]; !ok {
			out = append(out, p+" removed")
		} else if s != t {
			out = append(out, p+" changed")
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p+" created")
		}
	}
	return out
}

// tagged are the processes whose environment holds SBXTAG=tag.
func tagged(tag string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/environ"); err == nil && bytes.Contains(b, []byte("\x00SBXTAG="+tag+"\x00")) {
			out = append(out, "process "+e.Name()+" left running")
		}
	}
	return out
}

// newRoot is a fresh workspace: a git repository with a file.
func (w *world) newRoot(name string) string {
	root := filepath.Join(w.base, "roots", name)
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, "keep"), []byte("keep\n"), 0o644)
	if _, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command("sh", "-c", "git init -q && git add keep && git -c user.name=t -c user.email=t@t commit -qm init")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			w.t.Fatalf("git init: %v\n%s", err, out)
		}
	}
	return root
}

// codexProfiles are Codex's permission profiles for our modes.
var codexProfiles = map[string]string{sandbox.WorkspaceWrite: ":workspace", sandbox.ReadOnly: ":read-only"}

// call runs one bash call in root, in our sandbox or Codex's.
func (w *world) call(mode, root, script string) string {
	if w.codex == "" {
		return w.bash(&Env{Cwd: root, StateDir: w.state, Now: time.Now, Getenv: os.Getenv, Sandbox: &Sandbox{Mode: mode}}, script)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.codex, "sandbox", "-P", codexProfiles[mode], "-C", root, "--", "bash", "-c", script)
	cmd.Dir = root
	cmd.WaitDelay = 5 * time.Second // a stopped process of its sandbox may hold the output
	// Codex keeps its own files in CODEX_HOME (else ~/.codex): outside
	// what the vectors are judged by.
	home := filepath.Join(w.base, "codex-home")
	os.MkdirAll(home, 0o755)
	cmd.Env = append(os.Environ(), "CODEX_HOME="+home)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

func (w *world) bash(env *Env, script string) string {
	args, _ := json.Marshal(map[string]any{"command": script, "timeout": 60})
	r := Run(context.Background(), All("replace"), env, "bash", args, nil)
	var sb strings.Builder
	for _, c := range r.Content {
		sb.WriteString(c.Text)
	}
	return sb.String()
}

// escapes runs v in mode and returns the evidence of every escape.
func (w *world) escapes(mode string, i int, v vector) []string {
	who := map[bool]string{false: "o", true: "c"}[w.codex != ""]
	root := w.newRoot(fmt.Sprintf("%s-%d-%s", mode, i, who))
	tag := fmt.Sprintf("%s%s%d%s", w.base[len(w.base)-6:], mode[:1], i, who)
	repl := strings.NewReplacer(append([]string{"{T}", tag, "{G}", filepath.Join(w.base, "go-"+tag), "{R}", root,
		"{V}", strconv.Itoa(w.victim.Process.Pid)}, w.repl...)...)
	watch := []string{w.out, w.home, w.outTmp, w.state, filepath.Join(root, ".git", "hooks"), filepath.Join(root, ".git", "config")}
	if mode == sandbox.ReadOnly {
		watch = append(watch, root)
	}
	before := map[string]string{}
	for _, d := range watch {
		for p, s := range snap(d) {
			before[p] = s
		}
	}
	// A path a vector aims at counts when the vector made it (an earlier
	// run in another sandbox may have left it).
	existed := map[string]bool{}
	for _, g := range v.gone {
		_, err := os.Lstat(repl.Replace(g))
		existed[g] = err == nil
	}
	var out strings.Builder
	for _, c := range v.calls {
		out.WriteString(w.call(mode, root, repl.Replace(c)))
	}
	var ev []string
	if v.tag {
		ev = append(ev, tagged(tag)...)
		os.WriteFile(repl.Replace("{G}"), nil, 0o644)
	}
	after := map[string]string{}
	for _, d := range watch {
		for p, s := range snap(d) {
			after[p] = s
		}
	}
	ev = append(ev, diffSnaps(before, after)...)
	for _, g := range v.gone {
		if _, err := os.Lstat(repl.Replace(g)); err == nil && !existed[g] {
			ev = append(ev, repl.Replace(g)+" exists")
		}
	}
	if strings.Contains(out.String(), w.secret) {
		ev = append(ev, "the secret shows in the output")
	}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(w.secret)) {
				ev = append(ev, "the secret landed in "+p)
			}
		}
		return nil
	})
	ev = append(ev, w.drained()...)
	if why := w.victimHarmed(); why != "" {
		ev = append(ev, "the outside process was "+why)
	}
	if len(ev) > 0 {
		ev = append(ev, "output: "+out.String())
	}
	return ev
}

func TestSandboxSuite(t *testing.T) {
	if err := isandbox.Check(); err != nil {
		t.Skipf("notice: the sandbox cannot run here: %v", err)
	}
	runGo := os.Getenv("SBX_SUITE_CHILD") == ""
	if gc, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil && runGo {
		t.Setenv("GOCACHE", strings.TrimSpace(string(gc)))
		t.Setenv("GOTOOLCHAIN", "local")
		t.Setenv("GOFLAGS", "-mod=mod")
	}
	w := newWorld(t)
	w.runGo = runGo
	for _, mode := range []string{sandbox.WorkspaceWrite, sandbox.ReadOnly} {
		t.Run(mode, func(t *testing.T) {
			escaped := 0
			for i, v := range vectors {
				start := time.Now()
				if os.Getenv("SBX_TIME") != "" {
					defer func() { t.Logf("%s %v", v.name, time.Since(start)) }()
				}
				if ev := w.escapes(mode, i, v); len(ev) > 0 {
					escaped++
					t.Errorf("ESCAPE %s: %s", v.name, strings.Join(ev, "; "))
				}
			}
			t.Logf("uid %d, %s: %d vectors, %d escapes", os.Getuid(), mode, len(vectors), escaped)
			w.works(t, mode)
		})
	}
}

// works runs the things that must keep working in mode.
func (w *world) works(t *testing.T, mode string) {
	ran := 0
	for i, k := range works {
		if k.modes != nil && k.modes[0] != mode {
			continue
		}
		if why := w.lacks(k); why != "" {
			t.Logf("notice: %q skipped: %s", k.name, why)
			continue
		}
		if bad := w.work(mode, i, k); bad != "" {
			t.Errorf("%s does not work in %s: %s", k.name, mode, bad)
		}
		ran++
	}
	t.Logf("%s: %d things that must keep working ran", mode, ran)
}

// lacks says why k cannot run here ("" when it can).
func (w *world) lacks(k work) string {
	if k.needs == "" {
		return ""
	}
	if _, err := exec.LookPath(k.needs); err != nil {
		return "no " + k.needs + " here"
	}
	if k.needs == "go" && !w.runGo {
		return "no warm build cache as this uid"
	}
	return ""
}

// work runs k in a fresh root: "" when it worked, else what it did.
func (w *world) work(mode string, i int, k work) string {
	root := w.newRoot(fmt.Sprintf("work-%s-%d-%t", mode, i, w.codex != ""))
	repl := strings.NewReplacer(w.repl...)
	var out string
	for _, c := range strings.Split(repl.Replace(k.cmd), "\x00") {
		out = w.call(mode, root, c)
	}
	got := out
	if k.file != "" {
		b, _ := os.ReadFile(filepath.Join(root, k.file))
		got = string(b)
	}
	if got != k.want {
		return fmt.Sprintf("got %q, want %q (output: %s)", got, k.want, out)
	}
	return ""
}

// TestSandboxSuiteAsNobody runs the suite again as an unprivileged user
// (the user-namespace path a user takes), when the test runs as root.
func TestSandboxSuiteAsNobody(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("notice: not root: TestSandboxSuite already ran unprivileged")
	}
	if os.Getenv("SBX_SUITE_CHILD") != "" || testing.Short() {
		t.Skip()
	}
	if err := isandbox.Check(); err != nil {
		t.Skipf("notice: the sandbox cannot run here: %v", err)
	}
	dir, err := os.MkdirTemp("/var/tmp", "sbx-bin-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "tools.test")
	self, _ := os.ReadFile("/proc/self/exe")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestSandboxSuite$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "SBX_SUITE_CHILD=1", "HOME=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "vectors,") || strings.Contains(l, "notice") || strings.Contains(l, "ESCAPE") || strings.Contains(l, "must keep working") || strings.Contains(l, "does not work") {
			t.Log(strings.TrimSpace(l))
		}
	}
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

// TestSandboxSuiteJudges runs a few harmless vectors without the sandbox:
// each must be judged an escape, or the judging proves nothing.
func TestSandboxSuiteJudges(t *testing.T) {
	w := newWorld(t)
	for i, v := range vectors {
		switch v.name {
		case "redirect", "symlink dir planted earlier", "chmod chown", "git hook", "ssh key", "agentutils keys", "tcp /dev/tcp", "udp /dev/udp", "/proc of another":
		default:
			continue
		}
		if ev := w.escapes(sandbox.Off, i, v); len(ev) == 0 {
			t.Errorf("%s: not judged an escape without the sandbox", v.name)
		}
	}
}

// TestSandboxInterop runs the vectors and the things that must work
// through Codex's sandbox (codex sandbox -P :workspace|:read-only) beside
// ours, and prints a table: ours must refuse all Codex refuses and allow
// all it allows. scripts/interop-sandbox sets SBX_CODEX.
func TestSandboxInterop(t *testing.T) {
	codex := os.Getenv("SBX_CODEX")
	if codex == "" {
		t.Skip("notice: SBX_CODEX names no codex binary (scripts/interop-sandbox installs one)")
	}
	if err := isandbox.Check(); err != nil {
		t.Skipf("notice: the sandbox cannot run here: %v", err)
	}
	if gc, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		t.Setenv("GOCACHE", strings.TrimSpace(string(gc)))
		t.Setenv("GOTOOLCHAIN", "local")
	}
	w := newWorld(t)
	w.runGo = true
	mark := map[bool]string{true: "ESCAPED", false: "refused"}
	for _, mode := range []string{sandbox.WorkspaceWrite, sandbox.ReadOnly} {
		fmt.Printf("\n%-16s %-30s %-9s %s\n", mode, "vector", "ours", "codex")
		ours, theirs := 0, 0
		for i, v := range vectors {
			a := w.escapes(mode, i, v)
			w.codex = codex
			b := w.escapes(mode, i, v)
			w.codex = ""
			fmt.Printf("%-16s %-30s %-9s %s\n", "", v.name, mark[len(a) > 0], mark[len(b) > 0])
			if len(a) > 0 {
				ours++
				if len(b) == 0 {
					t.Errorf("%s %s: Codex refuses it, we do not: %s", mode, v.name, strings.Join(a, "; "))
				}
			}
			if len(b) > 0 {
				theirs++
			}
		}
		worked := map[bool]string{true: "works", false: "FAILS"}
		for i, k := range works {
			if (k.modes != nil && k.modes[0] != mode) || w.lacks(k) != "" {
				continue
			}
			a := w.work(mode, i, k)
			w.codex = codex
			b := w.work(mode, i, k)
			w.codex = ""
			fmt.Printf("%-16s %-30s %-9s %s\n", "", k.name, worked[a == ""], worked[b == ""])
			if a != "" && b == "" {
				t.Errorf("%s %s: works in Codex's sandbox, not in ours: %s", mode, k.name, a)
			}
		}
		fmt.Printf("%-16s %d vectors: %d escaped ours, %d escaped Codex's\n", mode, len(vectors), ours, theirs)
	}
}

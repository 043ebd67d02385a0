package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fullDiskScript runs in a private mount namespace: a 256 KiB tmpfs, a
// session on it, the disk filled, an append that does not fit (it must
// fail and leave the file as it was), the space freed, one more append
// (whole), then open. Exit 77: the tmpfs could not be mounted.
const fullDiskScript = `
mount -t tmpfs -o size=256k tmpfs "$D" || exit 77
S="$D/s.jsonl"
printf '%s\n' "$E1" | "$BIN" append "$S" || exit 1
cp "$S" "$OUT/before"
dd if=/dev/zero of="$D/fill" bs=4k 2>/dev/null
"$BIN" append "$S" < "$OUT/big" 2> "$OUT/fail.err"
echo $? > "$OUT/fail.rc"
cp "$S" "$OUT/after"
rm "$D/fill"
printf '%s\n' "$E2" | "$BIN" append "$S" || exit 1
"$BIN" open --all "$S" > "$OUT/open" 2> "$OUT/open.err" || exit 1
`

// TestFullDisk: an append that runs out of space on a real file system
// is rolled back whole (no torn line left to fill the disk or to be
// glued to the next record), and the next append once there is room is
// clean. Root only (it mounts a tmpfs in a namespace of its own).
func TestFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("full-disk test skipped: needs root to mount a small tmpfs")
	}
	if b, err := exec.Command("unshare", "-m", "--propagation", "private", "true").CombinedOutput(); err != nil {
		t.Skipf("full-disk test skipped: no private mount namespace here (unshare -m: %v %s)", err, b)
	}
	bin := sessionBinary(t)
	d, out := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(out, "big"), []byte(userEvent(strings.Repeat("big ", 100000))+"\n"), 0o644)
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", fullDiskScript)
	cmd.Env = append(os.Environ(), "D="+d, "OUT="+out, "BIN="+bin, "AGENTUTILS_HOME="+t.TempDir(),
		"E1="+userEvent("one"), "E2="+userEvent("two"))
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 77 {
		t.Skipf("full-disk test skipped: cannot mount a tmpfs here: %s", b)
	}
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(out, name))
		return string(b)
	}
	if rc := strings.TrimSpace(read("fail.rc")); rc == "0" {
		t.Fatalf("the append that does not fit succeeded")
	}
	if e := read("fail.err"); !strings.Contains(e, "no space left") || !strings.Contains(e, "rolled back") {
		t.Errorf("stderr of the failed append: %q", e)
	}
	if read("after") != read("before") {
		t.Errorf("the failed append left %d bytes, want the %d before it", len(read("after")), len(read("before")))
	}
	if e := read("open.err"); e != "" {
		t.Errorf("open warns: %s", e)
	}
	var texts []string
	for _, l := range strings.Split(strings.TrimSpace(read("open")), "\n")[1:] {
		for _, w := range []string{"one", "two", "big"} {
			if strings.Contains(l, `"text":"`+w) {
				texts = append(texts, w)
			}
		}
	}
	if strings.Join(texts, ",") != "one,two" {
		t.Errorf("entries after the disk had room again: %v, want one, two", texts)
	}
}

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// procAttr puts the helper in new user, mount and PID namespaces (and a
// network namespace when the network is off), in a session of its own
// (no controlling terminal), killed when its parent dies. Root maps every
// uid to itself, so files keep their owners; a user maps only itself.
func procAttr(s Spec) *syscall.SysProcAttr {
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID)
	if !s.Net {
		flags |= syscall.CLONE_NEWNET
	}
	a := &syscall.SysProcAttr{Cloneflags: flags, Setsid: true, Pdeathsig: syscall.SIGKILL}
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		a.GidMappingsEnableSetgroups = true
	} else {
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		// A user keeps the namespace's CAP_SYS_ADMIN across the exec of
		// the helper, for its mounts; the helper clears it before bash.
		a.AmbientCaps = []uintptr{capSysAdmin}
	}
	return a
}

const capSysAdmin = 21

// Check says why this kernel cannot enforce the sandbox, or nil: it needs
// Landlock and user namespaces.
func Check() error {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return errors.New("this kernel has no Landlock (Linux 5.13 or later, with landlock in the lsm= boot list)")
	}
	if b, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err == nil && strings.TrimSpace(string(b)) == "0" {
		return errors.New("user namespaces are disabled (sysctl user.max_user_namespaces=0)")
	}
	if os.Getuid() != 0 {
		for _, f := range []string{"/proc/sys/kernel/unprivileged_userns_clone", "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"} {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			on := strings.TrimSpace(string(b))
			if (strings.HasSuffix(f, "_clone") && on == "0") || (strings.HasSuffix(f, "_userns") && on == "1") {
				return fmt.Errorf("unprivileged user namespaces are disabled (%s)", f)
			}
		}
	}
	return nil
}

package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/agentutils/agentutils/lib/sandbox"
)

// configs are go-landlock's configurations by ABI: the sandbox uses all
// this kernel offers up to ABI 7 (ABI 8's thread sync is not needed: only
// the thread that execs is restricted).
var configs = []landlock.Config{landlock.V1, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6, landlock.V7}

// restrictFS restricts this thread with Landlock: read and execute
// everywhere but /dev (only its harmless devices), write under the root
// (workspace-write), the private /tmp, /dev/shm and the writable dirs;
// no TCP bind or connect when the network is off (ABI 4); no signals to
// and no abstract unix sockets of processes outside (ABI 6).
func restrictFS(s Spec) error {
	fd, flags, err := rulesetFS(s)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	return llsys.LandlockRestrictSelf(fd, flags)
}

// rulesetFS is the Landlock ruleset of restrictFS, made from the mounts
// this process sees, and its flags for landlock_restrict_self.
func rulesetFS(s Spec) (fd int, flags uint32, err error) {
	cfg, rules, err := fsRules(s)
	if err != nil {
		return -1, 0, err
	}
	var lr []landlock.Rule
	for _, r := range rules {
		rule := landlock.PathAccess(r.access, r.paths...)
		if r.missingOK {
			rule = rule.IgnoreIfMissing()
		}
		lr = append(lr, rule)
	}
	return cfg.NewRulesetFD(lr...)
}

// pathRule grants access beneath paths (those missing skipped when
// missingOK).
type pathRule struct {
	access    landlock.AccessFSSet
	paths     []string
	missingOK bool
}

// The access rights of go-landlock's RODirs, ROFiles, RWFiles and RWDirs.
const (
	accessFile  = llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSTruncate | llsys.AccessFSReadFile
	accessRead  = llsys.AccessFSExecute | llsys.AccessFSReadFile | llsys.AccessFSReadDir
	accessWrite = llsys.AccessFSWriteFile | llsys.AccessFSRemoveDir | llsys.AccessFSRemoveFile | llsys.AccessFSMakeChar |
		llsys.AccessFSMakeDir | llsys.AccessFSMakeReg | llsys.AccessFSMakeSock | llsys.AccessFSMakeFifo |
		llsys.AccessFSMakeBlock | llsys.AccessFSMakeSym | llsys.AccessFSTruncate
)

// fsRules is the Landlock configuration of restrictFS for this kernel's
// ABI, and its rules, each right one the configuration handles.
func fsRules(s Spec) (landlock.Config, []pathRule, error) {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return landlock.Config{}, nil, err
	}
	cfg := configs[min(abi, len(configs)-1)]
	if s.Net {
		cfg.HandledAccessNet = 0
	}
	h := cfg.HandledAccessFS
	ro, roFile := accessRead&h, accessRead&accessFile&h
	var rules []pathRule
	ents, err := os.ReadDir("/")
	if err != nil {
		return cfg, nil, err
	}
	for _, e := range ents {
		p := "/" + e.Name()
		st, err := os.Stat(p)
		switch {
		case err != nil || p == "/dev":
		case st.IsDir():
			rules = append(rules, pathRule{access: ro, paths: []string{p}})
		default:
			rules = append(rules, pathRule{access: roFile, paths: []string{p}})
		}
	}
	rules = append(rules,
		pathRule{access: llsys.AccessFSReadDir, paths: []string{"/dev"}},
		pathRule{access: (accessRead | accessWrite) & accessFile & h, paths: []string{"/dev/null", "/dev/zero", "/dev/full"}, missingOK: true},
		pathRule{access: roFile, paths: []string{"/dev/random", "/dev/urandom"}, missingOK: true})
	rw := []string{"/tmp", "/dev/shm"}
	if s.Mode == sandbox.WorkspaceWrite {
		rw = append(append(rw, s.Root), s.Writable...)
	}
	w := landlock.AccessFSSet(accessRead | accessWrite)
	if abi >= 2 {
		w |= llsys.AccessFSRefer
	}
	rules = append(rules, pathRule{access: w & h, paths: rw, missingOK: true})
	return cfg, rules, nil
}

// heldRules are fsRules with their paths held open (O_PATH), so that a
// ruleset is made again with one system call per path (newRuleset).
type heldRules struct {
	cfg   landlock.Config
	attrs []llsys.PathBeneathAttr
}

func holdRules(s Spec) (*heldRules, error) {
	cfg, rules, err := fsRules(s)
	if err != nil {
		return nil, err
	}
	hr := &heldRules{cfg: cfg}
	for _, r := range rules {
		for _, p := range r.paths {
			fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
			if err == unix.ENOENT && r.missingOK {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %v", p, err)
			}
			hr.attrs = append(hr.attrs, llsys.PathBeneathAttr{ParentFd: fd, AllowedAccess: uint64(r.access)})
		}
	}
	return hr, nil
}

// newRuleset is a new ruleset of hr's rules, and its restrict flags.
func (hr *heldRules) newRuleset() (int, uint32, error) {
	fd, flags, err := hr.cfg.NewRulesetFD()
	if err != nil {
		return -1, 0, err
	}
	for i := range hr.attrs {
		if err := llsys.LandlockAddPathBeneathRule(fd, &hr.attrs[i], 0); err != nil {
			unix.Close(fd)
			return -1, 0, err
		}
	}
	return fd, flags, nil
}

// denied are the system calls a sandboxed process gets EPERM for: ways
// out of the namespaces and mounts, kernel keys and modules, BPF,
// tracing, io_uring (whose operations seccomp cannot see).
var denied = []string{
	"mount", "umount2", "unshare", "setns", "chroot", "pivot_root", "move_mount", "open_tree", "fsopen", "fsmount",
	"fsconfig", "fspick", "mount_setattr", "bpf", "keyctl", "add_key", "request_key", "ptrace", "process_vm_readv",
	"process_vm_writev", "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"perf_event_open", "open_by_handle_at", "userfaultfd", "iopl", "ioperm", "reboot", "swapon", "swapoff", "acct",
	"settimeofday", "clock_settime", "clock_adjtime", "syslog", "quotactl", "io_uring_setup", "io_uring_enter",
	"io_uring_register", "vhangup", "uselib", "lookup_dcookie", "fanotify_init", "nfsservctl",
}

const cloneNewNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWUSER |
	unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWCGROUP

// loadSeccomp installs the filter: denied calls, clone into new
// namespaces, clone3 (ENOSYS, so that libc falls back to clone, whose
// flags the filter sees), TIOCSTI and TIOCLINUX, unix sockets (Landlock
// before ABI 9 does not govern connecting to a socket file), and with
// the network off every socket family but IPv4, IPv6 (an empty network
// namespace) and netlink. Another architecture's calls (x32, i386 on
// amd64) are refused whole.
func loadSeccomp(s Spec) error {
	filter, err := seccompFilter(s)
	if err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return errno
	}
	return nil
}

// seccompFilter is loadSeccomp's program.
func seccompFilter(s Spec) ([]unix.SockFilter, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range denied {
		if _, ok := info.SyscallNames[n]; ok {
			names = append(names, n)
		}
	}
	eq := func(name string, arg uint32, v uint64) seccomp.NameWithConditions {
		return seccomp.NameWithConditions{Name: name, Conditions: seccomp.ArgumentConditions{{Argument: arg, Operation: seccomp.Equal, Value: v}}}
	}
	conds := []seccomp.NameWithConditions{
		{Name: "clone", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: cloneNewNamespaces}}},
		eq("ioctl", 1, unix.TIOCSTI), eq("ioctl", 1, unix.TIOCLINUX),
		eq("socket", 0, unix.AF_UNIX),
		{Name: "socketpair", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.Equal, Value: unix.AF_UNIX}, {Argument: 1, Operation: seccomp.BitsSet, Value: unix.SOCK_DGRAM}}},
	}
	if !s.Net {
		for f := uint64(0); f < 16; f++ {
			if f != unix.AF_UNIX && f != unix.AF_INET && f != unix.AF_INET6 {
				conds = append(conds, eq("socket", 0, f))
			}
		}
		conds = append(conds, seccomp.NameWithConditions{Name: "socket", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.GreaterThan, Value: unix.AF_NETLINK}}})
	}
	policy := seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: []seccomp.SyscallGroup{
		{Names: names, NamesWithCondtions: conds, Action: seccomp.ActionErrno},
	}}
	if _, ok := info.SyscallNames["clone3"]; ok {
		policy.Syscalls = append(policy.Syscalls, seccomp.SyscallGroup{Names: []string{"clone3"}, Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS)})
	}
	insts, err := policy.Assemble()
	if err != nil {
		return nil, err
	}
	// The library lets another architecture's calls through; refuse them.
	prog := append([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_KILL_PROCESS},
	}, insts...)
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return filter, nil
}

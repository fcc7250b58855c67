package external

import (
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// keepFlag makes IsolateMain keep a program instead of isolating it.
const keepFlag = "--keep"

// keep makes cmd start under a keeper, where the system gives no PID
// namespace: helper (testbed itself, serving IsolateCommand with
// keepFlag) runs the program as a child subreaper (PR_SET_CHILD_SUBREAPER),
// so that every process the program starts stays among its descendants
// whatever it does (a new session, a new process group, a double fork,
// its own fds closed). When the program exits, or the keeper's pipe is
// released (by kill, or by the kernel when testbed dies, SIGKILL
// included), the keeper kills all of them and exits as the program did.
// cmd keeps a process group of its own, which the keeper shares with the
// program: a signal to the group reaches the program (the keeper ignores
// it). It returns nil, and leaves cmd as it was, when the pipe cannot be
// made.
func keep(cmd *exec.Cmd, helper string) *keeper {
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	cmd.Args = append([]string{helper, IsolateCommand, keepFlag, "--", cmd.Path}, cmd.Args...)
	cmd.Path = helper
	cmd.ExtraFiles = append([]*os.File{r}, cmd.ExtraFiles...)
	// No parent-death signal: the keeper outlives testbed by the time it
	// takes to end what it keeps.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return &keeper{life: w, end: r}
}

// keepMain runs the program (its path, then its argv) as keep says, the
// keeper's pipe's read end as fd 3, and returns the exit status to end
// with.
func keepMain(rest []string) int {
	if len(rest) < 2 {
		return helperFail(errNoProgram)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return helperFail(err)
	}
	syscall.CloseOnExec(3)
	life := os.NewFile(3, "life")
	// The group's SIGTERM, SIGINT and SIGHUP are the program's: it gets
	// them itself, and the keeper stays to end what it leaves.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	children := make(chan os.Signal, 1)
	signal.Notify(children, syscall.SIGCHLD)
	cmd := &exec.Cmd{Path: rest[0], Args: rest[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}} // the program ends with its keeper
	if err := cmd.Start(); err != nil {
		return helperFail(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	gone := make(chan struct{})
	go func() {
		io.Copy(io.Discard, life) // nothing comes: this ends when testbed releases its end, or dies
		close(gone)
	}()
	var err error
	for waiting := true; waiting; {
		select {
		case err = <-exited:
			waiting = false
		case <-gone:
			cmd.Process.Kill()
			err = <-exited
			waiting = false
		case <-children:
			// What the program started and left, ended since: reaped
			// one by one (not wait4(-1), which could take the program's
			// own exit from cmd.Wait).
			for pid, p := range procs() {
				if p.ppid == os.Getpid() && p.zombie && pid != cmd.Process.Pid {
					syscall.Wait4(pid, nil, syscall.WNOHANG, nil)
				}
			}
		}
	}
	sweep()
	return exitAs(err)
}

// sweep kills every descendant of this process, a child subreaper, until
// none is left, and reaps them: what a process killed leaves running
// comes to this one, and is killed in the next pass.
func sweep() {
	self := os.Getpid()
	for {
		left := descendants(self)
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		for {
			if pid, _ := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); pid <= 0 {
				break
			}
		}
		if len(left) == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// procs are the processes of this PID namespace, by /proc.
func procs() map[int]procStat {
	entries, _ := os.ReadDir("/proc")
	all := make(map[int]procStat, len(entries))
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			if st, ok := statOf(pid); ok {
				all[pid] = st
			}
		}
	}
	return all
}

// descendants are the processes under pid that are not zombies.
func descendants(pid int) []int {
	children := map[int][]int{}
	for p, info := range procs() {
		if !info.zombie {
			children[info.ppid] = append(children[info.ppid], p)
		}
	}
	var out []int
	for queue := children[pid]; len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, children[queue[0]]...)
	}
	return out
}

package external

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// listener reports whether what listens on port of the machine is the
// program: a process in its PID namespace or its process group, or one it
// started. When another process does, who names it ("another process (pid
// 123, python3)". When nothing listens on port now, it is neither (false,
// ""): what accepted a connection a moment ago was gone (a port another
// process listened on for a moment, or a connection to itself). When /proc
// cannot tell (no table to read, or the socket's holder cannot be found
// while it still listens), the program is taken to.
func (p *process) listener(port int) (ours bool, who string) {
	inodes, read := listening(port)
	if !read || p.cmd.Process == nil {
		return true, ""
	}
	if len(inodes) == 0 {
		return false, ""
	}
	if afterTable != nil {
		afterTable(port)
	}
	root := p.cmd.Process.Pid
	ns := func(pid int) string {
		s, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid))
		return s
	}
	rootNS := ns(root)
	if rootNS == ns(os.Getpid()) {
		rootNS = "" // not in a namespace of its own
	}
	table := procs()
	member := func(pid int) bool {
		for range 64 { // up the parents, to the program or to the top
			st, ok := table[pid]
			if !ok {
				return false
			}
			if pid == root || st.pgid == root {
				return true
			}
			pid = st.ppid
		}
		return false
	}
	var others []int
	for pid := range table {
		if member(pid) || (rootNS != "" && ns(pid) == rootNS) {
			if holds(pid, inodes) {
				return true, ""
			}
		} else {
			others = append(others, pid)
		}
	}
	for _, pid := range others {
		if holds(pid, inodes) {
			return false, fmt.Sprintf("another process (pid %d, %s)", pid, table[pid].comm)
		}
	}
	if still, _ := listening(port); !overlap(still, inodes) {
		return false, "" // the sockets closed while their holder was looked for
	}
	return true, ""
}

// overlap reports whether a and b share an inode.
func overlap(a, b map[string]bool) bool {
	for k := range a {
		if b[k] {
			return true
		}
	}
	return false
}

// procStat is what /proc/<pid>/stat says of a process's place.
type procStat struct {
	comm       string
	ppid, pgid int
	zombie     bool // it has exited, and waits to be reaped
}

// statOf reads /proc/<pid>/stat.
func statOf(pid int) (procStat, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return procStat{}, false
	}
	f := strings.Fields(s[end+1:]) // state, ppid, pgrp, …
	if len(f) < 3 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	return procStat{comm: s[open+1 : end], ppid: ppid, pgid: pgid, zombie: f[0] == "Z"}, true
}

// holds reports whether process pid has one of the sockets inodes open.
func holds(pid int, inodes map[string]bool) bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		link, err := os.Readlink(dir + "/" + fd.Name())
		if err == nil && strings.HasPrefix(link, "socket:[") && inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
			return true
		}
	}
	return false
}

// listening are the inodes of the TCP sockets that listen on port, on any
// address of this network namespace, and whether a table of them could be
// read.
func listening(port int) (inodes map[string]bool, read bool) {
	inodes = map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		read = true
		sc := bufio.NewScanner(f)
		sc.Scan() // the header
		for sc.Scan() {
			// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // TCP_LISTEN
				continue
			}
			_, hex, ok := strings.Cut(fields[1], ":")
			if p, err := strconv.ParseUint(hex, 16, 16); ok && err == nil && int(p) == port {
				inodes[fields[9]] = true
			}
		}
		f.Close()
	}
	return inodes, read
}

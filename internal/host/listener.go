package host

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// ErrNoListener is a server address no socket on this host listens at.
var ErrNoListener = errors.New("no process found listening there")

// ErrListenerHidden is a listening socket whose process cannot be seen
// (another user's, without the privilege to read its open files).
var ErrListenerHidden = errors.New("the process listening there cannot be seen")

// tcpListen is the kernel's TCP_LISTEN state in /proc/net/tcp.
const tcpListen = 0x0A

// Listener is the process listening at network ("tcp": "host:port" on
// this host; "unix": a socket's path) on this host, as procRoot shows it: its
// PID and command name. It finds the listening socket's inode in
// /proc/net/tcp, tcp6 or unix and the process holding it among /proc/*/fd,
// the lowest PID when several do (a server's children inherit it).
func Listener(procRoot, network, address string) (pid int, comm string, err error) {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return 0, "", err
	}
	inodes, err := listeningInodes(fs, network, address)
	if err != nil {
		return 0, "", err
	}
	if len(inodes) == 0 {
		return 0, "", fmt.Errorf("%w: %s %s", ErrNoListener, network, address)
	}
	procs, err := fs.AllProcs()
	if err != nil {
		return 0, "", err
	}
	slices.SortFunc(procs, func(a, b procfs.Proc) int { return a.PID - b.PID })
	for _, p := range procs {
		fds, err := p.FileDescriptorTargets()
		if err != nil {
			continue // gone, or another user's
		}
		for _, t := range fds {
			if n, ok := socketInode(t); ok && inodes[n] {
				comm, _ := p.Comm()
				return p.PID, comm, nil
			}
		}
	}
	return 0, "", fmt.Errorf("%w: %s %s: no process this one may inspect holds its socket (run as its user or root, or give --db-cgroup)", ErrListenerHidden, network, address)
}

// listeningInodes are the inodes of the sockets listening at address.
func listeningInodes(fs procfs.FS, network, address string) (map[uint64]bool, error) {
	out := map[uint64]bool{}
	switch network {
	case "unix":
		u, err := fs.NetUNIX()
		if err != nil {
			return nil, err
		}
		for _, r := range u.Rows {
			if r.Path == address && r.Flags&(1<<16) != 0 { // __SO_ACCEPTCON
				out[r.Inode] = true
			}
		}
	case "tcp":
		host, p, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		port, err := strconv.ParseUint(p, 10, 16)
		if err != nil {
			return nil, fmt.Errorf("port %q: %w", p, err)
		}
		want := net.ParseIP(host)
		for _, read := range []func() (procfs.NetTCP, error){fs.NetTCP, fs.NetTCP6} {
			rows, err := read()
			if err != nil {
				continue // no IPv6, say
			}
			for _, r := range rows {
				if r.St == tcpListen && r.LocalPort == port && listensFor(r.LocalAddr, want) {
					out[r.Inode] = true
				}
			}
		}
	default:
		return nil, fmt.Errorf("network %q: want tcp or unix", network)
	}
	return out, nil
}

// listensFor reports whether a socket bound to local accepts connections
// to want: the same address, or a wildcard (0.0.0.0, ::) of either family
// (an IPv6 wildcard takes IPv4 too unless bound v6-only, which
// /proc/net/tcp6 does not say).
func listensFor(local, want net.IP) bool {
	return want == nil || local.IsUnspecified() || local.Equal(want)
}

// socketInode reads a /proc/PID/fd link's target "socket:[INODE]".
func socketInode(target string) (uint64, bool) {
	s, ok := strings.CutPrefix(target, "socket:[")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64)
	return n, err == nil
}

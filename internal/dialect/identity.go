package dialect

import (
	"net/netip"
	"strings"
)

// HostKey is a host as a Target's Identity names it: every name of the
// loopback interface (localhost and its subdomains, 127.0.0.0/8, ::1, IPv4
// in IPv6 form) is "loopback", so that localhost and 127.0.0.1 are one
// server; an IP address in its canonical form; a DNS name in lower case
// without its final dot. Names are not resolved: two different names of one
// remote server are two hosts.
func HostKey(host string) string {
	if a, err := netip.ParseAddr(host); err == nil {
		a = a.Unmap()
		if a.IsLoopback() {
			return "loopback"
		}
		return a.String()
	}
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return "loopback"
	}
	return h
}

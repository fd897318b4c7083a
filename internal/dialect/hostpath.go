package dialect

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// ParseServerURL parses raw as a URL of the dialect named name, with the
// scheme name or alias and an authority ("//"), refusing the shapes whose
// user info would be misread or whose host would be taken for part of the
// path (HostInPath). The errors wrap ErrBadTarget, begin with name and never
// contain the password.
func ParseServerURL(raw, name, alias string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error quotes the input, password included: never show it.
		return nil, fmt.Errorf("%w: %s: malformed URL (percent-encode special characters in the user name and password)", ErrBadTarget, name)
	}
	if u.Scheme != name && u.Scheme != alias {
		return nil, fmt.Errorf("%w: %s: scheme %q is not %s or %s", ErrBadTarget, name, u.Scheme, name, alias)
	}
	if err := HostInPath(name, u); err != nil {
		return nil, err // postgres:/127.0.0.1/db, mysql:///h:3306/db
	}
	if u.Opaque != "" || !strings.HasPrefix(raw[len(u.Scheme)+1:], "//") {
		return nil, fmt.Errorf("%w: %s: URL must start with %s://", ErrBadTarget, name, u.Scheme)
	}
	if CutUserInfo(raw) {
		return nil, fmt.Errorf("%w: %s: malformed URL: an '@' after the host (percent-encode special characters in the user name and password)", ErrBadTarget, name)
	}
	return u, nil
}

// HostInPath refuses a URL that has no host but whose path begins with
// one: postgres:/127.0.0.1/db or postgres:///127.0.0.1/db, a slash too few
// or too many after the scheme. Such a URL parses, and would connect to the
// default host (PostgreSQL's Unix socket, as the user running rightsize)
// with the host taken for part of the database name. name is the dialect's,
// for the message, which suggests the URL meant (with the user name, never
// the password). The error wraps ErrBadTarget; nil when u has a host or its
// path does not begin with one.
//
// The path's first segment is taken for a host when it is an IP address or
// a host:port, or when another segment follows it and it is a dotted name
// or localhost. A dotted name alone (postgres:///my.app) is a database
// name, as it may legitimately be.
func HostInPath(name string, u *url.URL) error {
	if u.Host != "" {
		return nil
	}
	path := u.Opaque
	if path == "" {
		path = u.Path
	}
	first, rest, more := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	host, ok := hostLike(first, more)
	if !ok {
		return nil
	}
	if strings.ContainsAny(rest, "@:/") {
		rest = "DATABASE" // not plain: it may hold what was typed as a password
	}
	meant := url.URL{Scheme: u.Scheme, Host: host, Path: "/" + rest}
	if user := u.User.Username(); user != "" && !strings.Contains(user, "@") {
		meant.User = url.User(user)
	}
	return fmt.Errorf("%w: %s: %q is in the URL's path, not its host (the URL has none, so it would connect elsewhere); did you mean %s?",
		ErrBadTarget, name, first, meant.String())
}

// hostLike reports whether seg, a path's first segment, looks like a host,
// and returns it as a URL writes it (an IPv6 address in brackets).
func hostLike(seg string, more bool) (string, bool) {
	if seg == "" || strings.ContainsAny(seg, "@?#") {
		return "", false
	}
	if a, err := netip.ParseAddr(seg); err == nil {
		if a.Is6() {
			return "[" + seg + "]", true
		}
		return seg, true
	}
	if h, port, err := net.SplitHostPort(seg); err == nil && port != "" && strings.Trim(port, "0123456789") == "" {
		if _, err := netip.ParseAddr(h); err == nil || dnsName(h) {
			return seg, true
		}
		return "", false
	}
	if more && (strings.EqualFold(seg, "localhost") || strings.Contains(seg, ".") && dnsName(seg)) {
		return seg, true
	}
	return "", false
}

// dnsName reports whether s is made of DNS labels: letters, digits and
// hyphens, separated by dots.
func dnsName(s string) bool {
	for _, label := range strings.Split(s, ".") {
		if label == "" || strings.Trim(label, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != "" {
			return false
		}
	}
	return true
}

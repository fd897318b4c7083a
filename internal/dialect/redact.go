package dialect

import (
	"net/url"
	"strings"
)

// Passwords never leave the dialect boundary. A parsed Target prints
// without one (Target.String, which each dialect builds from its parsed
// settings); the functions here are the one implementation of everything
// else: a location as typed (which may not parse), and error texts that may
// quote a password. The dialects scrub their drivers' errors with Scrub and
// ScrubError; package history shows its catalog locations with Redact and
// ScrubLocation.

// Redact returns a location safe to print, as typed but for the URL's
// password and its password parameters, removed.
func Redact(raw string) string {
	u, ok := parseURL(raw)
	if !ok {
		// Not a URL with an authority: a file path is safe to show; a
		// libpq keyword string (password=...) or an opaque or malformed
		// URL with user info (postgres:bob:pw@host) may hold a password.
		if hasPrefixFold(raw, "sqlite:") || !strings.ContainsAny(raw, "@=") {
			return raw
		}
		return "(unparsable location)"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.User(u.User.Username())
		}
	}
	u.RawQuery = redactQuery(u.RawQuery)
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// redactQuery drops from a raw query each parameter that names a password
// anywhere (a '?' typed in the host or path puts "password=" inside another
// parameter's name or value), and each one a parser would skip (a bad
// escape, a semicolon): url.Values never sees those, so it cannot be
// trusted to remove them. The parameters kept stay as typed, in order.
func redactQuery(raw string) string {
	if raw == "" {
		return raw
	}
	kept := make([]string, 0, strings.Count(raw, "&")+1)
	for _, pair := range strings.Split(raw, "&") {
		p, err := url.QueryUnescape(pair)
		if err != nil || strings.Contains(pair, ";") || strings.Contains(strings.ToLower(p), "password") {
			continue
		}
		kept = append(kept, pair)
	}
	return strings.Join(kept, "&")
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// secretKey reports whether a parameter named k may hold a password:
// password, sslpassword, and any name ending in either (a '?' typed in the
// path makes postgresql://u@?/db?password=x's key "/db?password").
func secretKey(k string) bool {
	return strings.HasSuffix(strings.ToLower(k), "password")
}

// parseURL parses raw as a URL with an authority. ok is false when it is
// not one, when an '@' after the authority says that a '/', '?' or '#'
// typed unescaped in the user info cut it short (the rest of a password
// would then be in the path, query or fragment), or when it has a
// fragment: a connection URL has none, and a '#' typed unescaped anywhere
// puts what follows it, a password= parameter perhaps, out of the query.
func parseURL(raw string) (*url.URL, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Opaque != "" || strings.Contains(raw, "#") || strings.Contains(u.Path+u.RawQuery, "@") {
		return nil, false
	}
	return u, true
}

// CutUserInfo reports whether raw, a URL with an authority
// ("scheme://user:password@host"), has an '@' after that authority: a '/',
// '?' or '#' typed unescaped in the password ended the authority early, and
// the rest of the password is in the path, query or fragment, where a
// parser would take it for a database or a parameter (and print it). A
// dialect refuses such a URL, without quoting it.
func CutUserInfo(raw string) bool {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return false
	}
	end := strings.IndexAny(rest, "/?#")
	return end >= 0 && strings.Contains(rest[end:], "@")
}

// ScrubLocation returns msg, a text that may quote the location raw (a
// driver's error), with raw's passwords replaced: the whole location by its
// Redact form, and every form (see Scrub) of what a password can be told to
// be as typed (the user info's after its first ':', to the first or the last
// '@'; a password= value) and, in a URL, of its password and password=
// parameters decoded.
func ScrubLocation(msg, raw string) string {
	if raw == "" {
		return msg
	}
	msg = strings.ReplaceAll(msg, raw, Redact(raw))
	var secrets []string
	rest := raw
	if _, after, ok := strings.Cut(raw, "://"); ok {
		rest = after
	} else if _, after, ok := strings.Cut(raw, ":"); ok {
		rest = after
	}
	for _, at := range []int{strings.Index(rest, "@"), strings.LastIndex(rest, "@")} {
		if at >= 0 {
			if _, p, ok := strings.Cut(rest[:at], ":"); ok {
				secrets = append(secrets, p)
			}
		}
	}
	for _, f := range strings.Fields(raw) {
		if k, v, ok := strings.Cut(f, "="); ok && secretKey(k) {
			secrets = append(secrets, v, strings.Trim(v, "'"))
		}
	}
	if u, ok := parseURL(raw); ok {
		if u.User != nil {
			if p, ok := u.User.Password(); ok {
				secrets = append(secrets, p)
			}
		}
		for k, vs := range u.Query() {
			if secretKey(k) {
				secrets = append(secrets, vs...)
			}
		}
	}
	return Scrub(msg, secrets...)
}

// libpqEscape is a value's form inside a quoted libpq keyword/value string.
var libpqEscape = strings.NewReplacer(`\`, `\\`, `'`, `\'`)

// Scrub replaces with "xxxxx" every form in which each secret may appear in
// msg: as it is, query-escaped, path-escaped and escaped for a quoted libpq
// keyword value. Empty secrets are skipped. Over-redaction is accepted (a
// one-letter password blanks that letter everywhere).
func Scrub(msg string, secrets ...string) string {
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s), libpqEscape.Replace(s)} {
			msg = strings.ReplaceAll(msg, form, "xxxxx")
		}
	}
	return msg
}

// ScrubError returns err with its text passed through Scrub, keeping its
// chain so that errors.Is and errors.As (and so Classify) still see the
// driver's errors underneath; err itself when its text holds no secret.
func ScrubError(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if s := Scrub(msg, secrets...); s != msg {
		return &scrubbedError{msg: s, err: err}
	}
	return err
}

type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

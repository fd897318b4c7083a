package k8sjob

import (
	"fmt"
	"regexp"
	"strings"
)

// The API's rules for the names the manifest holds, with the API's words
// (k8s.io/apimachinery/pkg/util/validation, v0.37): e2e/k8sjob_test.go
// checks these functions return what the API's do.

// DNS1123LabelMaxLength is the longest DNS label (RFC 1123).
const DNS1123LabelMaxLength = 63

const (
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	configMapKeyFmt     = `[-._a-zA-Z0-9]+`

	dns1123SubdomainMaxLength = 253
)

var (
	dns1123LabelRegexp     = regexp.MustCompile("^" + dns1123LabelFmt + "$")
	dns1123SubdomainRegexp = regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
	configMapKeyRegexp     = regexp.MustCompile("^" + configMapKeyFmt + "$")
)

// IsDNS1123Label returns what is wrong with value as a DNS label (a
// namespace's or a Job's name), nil when nothing is.
func IsDNS1123Label(value string) []string {
	var errs []string
	if len(value) > DNS1123LabelMaxLength {
		errs = append(errs, maxLenError(DNS1123LabelMaxLength))
	}
	if !dns1123LabelRegexp.MatchString(value) {
		if dns1123SubdomainRegexp.MatchString(value) {
			errs = append(errs, "must not contain dots")
		} else {
			errs = append(errs, regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
				dns1123LabelFmt, "my-name", "123-abc"))
		}
	}
	return errs
}

// IsDNS1123Subdomain returns what is wrong with value as a DNS subdomain
// (a Secret's name), nil when nothing is.
func IsDNS1123Subdomain(value string) []string {
	return lengthAndFormat(value, dns1123SubdomainMaxLength, dns1123SubdomainRegexp,
		regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
			dns1123SubdomainFmt, "example.com"))
}

// IsConfigMapKey returns what is wrong with value as a ConfigMap's or a
// Secret's key, nil when nothing is.
func IsConfigMapKey(value string) []string {
	errs := lengthAndFormat(value, dns1123SubdomainMaxLength, configMapKeyRegexp,
		regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
			configMapKeyFmt, "key.name", "KEY_NAME", "key-name"))
	switch {
	case value == ".":
		errs = append(errs, `must not be '.'`)
	case value == "..":
		errs = append(errs, `must not be '..'`)
	case strings.HasPrefix(value, ".."):
		errs = append(errs, `must not start with '..'`)
	}
	return errs
}

// lengthAndFormat is what is wrong with value as a name of at most maxLen
// characters that re matches (mismatch: the problem when it does not).
func lengthAndFormat(value string, maxLen int, re *regexp.Regexp, mismatch string) []string {
	var errs []string
	if len(value) > maxLen {
		errs = append(errs, maxLenError(maxLen))
	}
	if !re.MatchString(value) {
		errs = append(errs, mismatch)
	}
	return errs
}

func maxLenError(length int) string {
	return fmt.Sprintf("must be no more than %d characters", length)
}

func regexError(msg, re string, examples ...string) string {
	msg += " (e.g. "
	for i, e := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + e + "', "
	}
	return msg + "regex used for validation is '" + re + "')"
}

package result

import "strings"

// FileSafe keeps the characters of a label that result file names and
// catalog keys keep: letters, digits, '-' and '_' ("read 70%" → "read70").
func FileSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

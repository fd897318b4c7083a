package report

import "strconv"

// Plural is n and the noun, in the plural unless n is 1: "1 thread",
// "4 threads", "0 steps". The noun must make its plural with an s.
func Plural(n int, noun string) string { return strconv.Itoa(n) + " " + NounFor(n, noun) }

// NounFor is the noun in the plural unless n is 1, without the count:
// "the database", "the databases".
func NounFor(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

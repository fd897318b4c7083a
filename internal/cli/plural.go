package cli

import "strconv"

// plural is n and the noun, in the plural unless n is 1: "1 thread",
// "4 threads", "0 steps". The noun must make its plural with an s.
func plural(n int, noun string) string { return strconv.Itoa(n) + " " + nounFor(n, noun) }

// nounFor is the noun in the plural unless n is 1, without the count:
// "the database", "the databases".
func nounFor(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// Package shellword quotes words for a POSIX shell, so that a command line
// rightsize prints (a study's steps, a hint such as "mkdir -p DIR" or
// "--target URL") can be pasted as it is: each word comes back as it was,
// and nothing in it (a ';', a $(...), a quote) runs. It exists because
// several packages print such lines (cli, history) and they must quote
// them one way; it is pure, computing on strings only.
package shellword

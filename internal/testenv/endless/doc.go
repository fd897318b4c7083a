// Package endless gives tests of bounded input readers streams that never
// end: a prefix and then one byte for ever (/dev/zero is Reader{}), or a
// head and then one row for ever, each counting the bytes it gave, so a
// test can assert that a reader refused the input having read no more than
// its cap.
package endless

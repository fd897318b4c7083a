package svgchart

import "unicode"

// FontFamily is the face the SVG names for all its text: Arial's metrics
// (Liberation Sans and Helvetica share them), the generic sans-serif last.
const FontFamily = "Liberation Sans,Arial,Helvetica,sans-serif"

// advance is the face's advance width of the printable ASCII characters
// (space to tilde), in thousandths of the font size (Helvetica's AFM
// widths, which Arial and Liberation Sans match).
var advance = [95]uint16{
	278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space to /
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // 0 to 9
	278, 278, 584, 584, 584, 556, 1015, // : to @
	667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, // A to M
	722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, // N to Z
	278, 278, 278, 469, 556, 333, // [ to `
	556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, // a to m
	556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, // n to z
	334, 260, 334, 584, // { to ~
}

// TextWidth is the width of s set at size points: the table's widths for
// ASCII, a full em for wide East Asian characters, and a digit's width
// (0.556 em) for any other character (σ, κ, ×, …, accented letters).
func TextWidth(s string, size float64) float64 {
	w := 0
	for _, r := range s {
		switch {
		case r >= ' ' && r <= '~':
			w += int(advance[r-' '])
		case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hangul, r) || unicode.Is(unicode.Hiragana, r) ||
			unicode.Is(unicode.Katakana, r) || (r >= 0xFF01 && r <= 0xFF60):
			w += 1000
		case unicode.IsPrint(r):
			w += 556
		}
	}
	return float64(w) * size / 1000
}

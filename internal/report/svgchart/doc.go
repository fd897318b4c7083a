// Package svgchart writes the report's charts as static SVG: plots with
// labelled axes (linear, logarithmic or categories), a grid at the
// labelled ticks, lines with markers, glyphs, bars (side by side or
// stacked), shaded bands and legends, stacked in one column and aligned
// on their axes. It exists so that the report draws what its charts need
// and nothing more: no font data (text is measured with a fixed table of
// one sans-serif face's advance widths, the face the SVG names, and the
// browser draws it), no raster, PDF or EPS backend.
//
// Lengths are in points (1/72 in), the SVG's user units; the SVG scales to
// its container's width. Every text is escaped with encoding/xml. The
// package is pure: it computes on the values given and writes a string.
package svgchart

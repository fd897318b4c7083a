package observers

import (
	"io"
	"runtime/debug"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/report"
)

// Version returns the build's version: the module version or VCS revision.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel-" + rev
}

// SweepMarkdown is the report written beside a sweep file: the sweep as a
// Markdown document, as analyze --format markdown writes it.
func SweepMarkdown(w io.Writer, a *analysis.Result) error {
	return report.SweepReport(w, a, report.Markdown)
}

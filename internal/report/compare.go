package report

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/sizing"
)

// A comparison report is several configurations swept over one axis
// (analysis.CompareConfigs): the headline (who wins at the compared step,
// by how much, and each configuration's knee), the configuration table,
// the notes, and in HTML the charts (chart_compare.go): the grouped bars,
// then the overlaid curves.

// CompareHeadline is the answer of a comparison, in lines: first which
// configuration wins at the compared step and by how much over the next
// ("B: 7,436/s at rate 2x, +18 % over A (6,300/s)"), then each
// configuration's knee, one line each, in the rows' order.
func CompareHeadline(c analysis.ConfigComparison) []string {
	if len(c.Rows) == 0 {
		return []string{"no configurations"}
	}
	best := c.Rows[0]
	var win string
	switch {
	case best.NeverMet != "":
		var each []string
		for _, r := range c.Rows {
			each = append(each, r.Config+" "+bestStep(r))
		}
		win = fmt.Sprintf("No configuration met %s; each one's best step: %s.", best.NeverMet, strings.Join(each, ", "))
	case !(best.Throughput > 0):
		win = fmt.Sprintf("No configuration completed any event at %s.", c.At)
	case len(c.Rows) == 1 || c.Rows[1].NeverMet != "":
		win = fmt.Sprintf("%s: %s/s at %s", best.Config, Grouped(best.Throughput), c.At) + neverMetLines(c.Rows) + "."
	case !(c.Rows[1].Throughput > 0):
		// A zero baseline: no lead in percent, what the next did.
		next := c.Rows[1]
		did := "completed none there"
		if math.IsNaN(next.Throughput) {
			did = "has no figures there"
		}
		win = fmt.Sprintf("%s: %s/s at %s; %s %s", best.Config, Grouped(best.Throughput), c.At, next.Config, did) + neverMetLines(c.Rows) + "."
	default:
		next := c.Rows[1]
		win = fmt.Sprintf("%s: %s/s at %s, %s over %s (%s/s)", best.Config, Grouped(best.Throughput), c.At,
			pctOver(best.Throughput, next.Throughput), next.Config, Grouped(next.Throughput))
		if len(c.Rows) > 2 {
			win += fmt.Sprintf(", the next of %d configurations", len(c.Rows))
		}
		win += leadCI(c.Lead) + neverMetLines(c.Rows) + "."
	}
	out := []string{win}
	if ownSteps(c) {
		return out // the steps vary the work: no knee to name
	}
	for _, r := range c.Rows {
		out = append(out, kneeLine(r, c.ConfigNamed(r.Config).Sweep, c.Axis))
	}
	return out
}

// neverMetLines names the configurations whose capacity search never met
// its objective, each with what it did at its best step (the one nearest
// the objective): "; pg15 never met p99 <= 20 ms, its best step 1,510/s
// at p99 64 ms (rate 1600/s)".
func neverMetLines(rows []analysis.ConfigRow) string {
	var b strings.Builder
	for _, r := range rows {
		if r.NeverMet == "" {
			continue
		}
		fmt.Fprintf(&b, "; %s never met %s", r.Config, r.NeverMet)
		if r.Step != "-" {
			fmt.Fprintf(&b, ", its best step %s", bestStep(r))
		}
	}
	return b.String()
}

// bestStep is what a row's step did: "1,510/s at p99 64 ms (rate
// 1600/s)"; "no step" for a search without one.
func bestStep(r analysis.ConfigRow) string {
	if r.Step == "-" {
		return "no step"
	}
	return fmt.Sprintf("%s/s at p99 %s (%s)", groupedOr(r.Throughput, "-"), msOr(r.P99Ms, "-"), r.Step)
}

// msOr is Ms(v), or none when v is not a finite number.
func msOr(v float64, none string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return none
	}
	return Ms(v)
}

// fixed is v with digits after the point, or none when v is not a finite
// number (a step a configuration lacks, a search that found no step).
func fixed(v float64, digits int, none string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return none
	}
	return strconv.FormatFloat(v, 'f', digits, 64)
}

// groupedOr is Grouped(v), or none when v is not a finite number.
func groupedOr(v float64, none string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return none
	}
	return Grouped(v)
}

// leadCI is the lead's confidence interval in words, where both
// configurations were swept more than once: "; 95 % interval +12 % to
// +28 % over 3 and 3 sweeps", and whether it rules out no difference.
func leadCI(l analysis.Lead) string {
	if math.IsNaN(l.LowPct) || math.IsNaN(l.HighPct) {
		return ""
	}
	s := fmt.Sprintf("; 95 %% interval %+.0f %% to %+.0f %% over %d and %d sweeps", l.LowPct, l.HighPct, l.BestN, l.NextN)
	if l.LowPct <= 0 {
		s += ", which includes no difference"
	}
	return s
}

// repeated reports whether any configuration was swept more than once at
// the compared step (the table then shows how often and the interval).
func repeated(c analysis.ConfigComparison) bool {
	return slices.ContainsFunc(c.Rows, func(r analysis.ConfigRow) bool { return r.Repeats > 1 })
}

// ciCell is a row's interval of the mean throughput, "-" for one sweep.
func ciCell(r analysis.ConfigRow) string {
	if math.IsNaN(r.ThroughputLow) || math.IsNaN(r.ThroughputHigh) {
		return "-"
	}
	return Grouped(r.ThroughputLow) + " to " + Grouped(r.ThroughputHigh)
}

// ownSteps reports whether the configurations were swept over their
// workload's own steps (fileio's read mixes), where no knee is sought.
func ownSteps(c analysis.ConfigComparison) bool {
	for _, cf := range c.Configs {
		if cf.Sweep == nil || !cf.Sweep.OwnSteps {
			return false
		}
	}
	return len(c.Configs) > 0
}

// kneeLine is one configuration's knee in words; sw is its sweep (nil:
// not known).
func kneeLine(r analysis.ConfigRow, sw *analysis.Result, axis string) string {
	if !r.Found {
		if sw != nil {
			if peak, ok := peakedBefore(sw); ok {
				return fmt.Sprintf("%s: no knee found (%s), but throughput peaked at %s: the knee is at or before it.", r.Config, r.Knee.Reason, peak)
			}
		}
		return fmt.Sprintf("%s: no knee in the range of %s (%s).", r.Config, axis, r.Knee.Reason)
	}
	return fmt.Sprintf("%s: knee at %s (%s method), %s/s, p99 %s.", r.Config, r.KneeStep, r.Knee.Method, groupedOr(r.KneeThroughput, "-"), msOr(r.KneeP99Ms, "-"))
}

// pctOver is a's lead over b in whole percent: "+18 %"; "-" when b did
// nothing (CompareHeadline then says so in words).
func pctOver(a, b float64) string {
	if !(b > 0) || math.IsNaN(a) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return "-"
	}
	return fmt.Sprintf("%+.0f %%", 100*(a/b-1))
}

// SortConfigs orders a comparison's rows by config (name), throughput
// (the default, most first), avg or p99 (least first). Ranks stay those of
// throughput.
func SortConfigs(rows []analysis.ConfigRow, by string) error {
	var key func(a, b analysis.ConfigRow) int
	switch by {
	case "", "none", "throughput":
		key = func(a, b analysis.ConfigRow) int { return a.Rank - b.Rank }
	case "config", "label":
		key = func(a, b analysis.ConfigRow) int { return strings.Compare(a.Config, b.Config) }
	case "avg":
		key = func(a, b analysis.ConfigRow) int { return leastFirst(a.AvgMs, b.AvgMs) }
	case "p99":
		key = func(a, b analysis.ConfigRow) int { return leastFirst(a.P99Ms, b.P99Ms) }
	default:
		return fmt.Errorf("sort %q: a comparison sorts by config, throughput, avg or p99", by)
	}
	slices.SortStableFunc(rows, key)
	return nil
}

// leastFirst orders a before b when it is less; a figure that is not a
// number (none) comes after every figure.
func leastFirst(a, b float64) int {
	if an, bn := math.IsNaN(a), math.IsNaN(b); an || bn {
		return cmp.Compare(boolInt(an), boolInt(bn))
	}
	return cmp.Compare(a, b)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// busyCell is the host's CPU busy (user + system) at a row's step.
func busyCell(r analysis.ConfigRow) string {
	if r.Host == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f", r.Host.CPU.User+r.Host.CPU.System)
}

func kneeCell(r analysis.ConfigRow) string {
	if !r.Found {
		return "none in range"
	}
	return fmt.Sprintf("%s (%s)", r.KneeStep, r.Knee.Method)
}

func ratioCell(r analysis.ConfigRow, digits int) string {
	if r.NeverMet != "" {
		return "never met"
	}
	return fixed(r.RatioToBest, digits, "-")
}

// objectiveCell is the CSV's cell of whether a row met the objective its
// configurations were compared at: "met", "never met p99 <= 20 ms", or
// "-" for a capacity that is a knee (no objective searched).
func objectiveCell(r analysis.ConfigRow) string {
	switch {
	case r.NeverMet != "":
		return "never met " + r.NeverMet
	case r.Found && r.Knee.Method == "search":
		return "met"
	}
	return "-"
}

// ConfigTable writes the configuration table of a comparison, one row per
// configuration at the compared step in the rows' order: its rank,
// throughput and ratio to the best, average and p99 response time, the
// host's CPU busy % and the knee. CSV adds the step and axis value, with
// more digits.
func ConfigTable(w io.Writer, c analysis.ConfigComparison, f Format) error {
	if f == CSV {
		cw := csv.NewWriter(w)
		head := []string{"config", "rank", "step", "x", "throughput", "ratio to best", "avg ms", "p99 ms", "cpu busy %", "knee", "knee method"}
		objective := c.Objective != ""
		if objective {
			head = append(head, "objective")
		}
		_ = cw.Write(head)
		for _, r := range c.Rows {
			knee, method := "", ""
			if r.Found {
				knee, method = r.KneeStep, r.Knee.Method
			}
			busy := ""
			if r.Host != nil {
				busy = fmt.Sprintf("%.1f", r.Host.CPU.User+r.Host.CPU.System)
			}
			// A figure that is not a number is an empty cell.
			x := strconv.FormatFloat(r.X, 'g', -1, 64)
			if math.IsNaN(r.X) || math.IsInf(r.X, 0) {
				x = ""
			}
			line := []string{r.Config, fmt.Sprint(r.Rank), r.Step, x, fixed(r.Throughput, 2, ""),
				fixed(r.RatioToBest, 4, ""), fixed(r.AvgMs, 3, ""), fixed(r.P99Ms, 3, ""), busy, knee, method}
			if objective {
				line = append(line, objectiveCell(r))
			}
			_ = cw.Write(line)
		}
		cw.Flush()
		return cw.Error()
	}
	ew := &errWriter{w: w}
	configTable(c).write(ew, f, true)
	return ew.err
}

// configTable is the configuration table of ConfigTable and CompareHTML;
// where a configuration was swept more than once, the figures are means
// and two columns say over how many sweeps and the mean throughput's
// 95 % interval.
func configTable(c analysis.ConfigComparison) table {
	rep := repeated(c)
	t := table{head: []string{"configuration", "rank", "throughput/s", "vs best", "avg ms", "p99 ms", "cpu busy %", "knee"}}
	if rep {
		t.head = slices.Insert(t.head, 3, "sweeps", "95 % interval /s")
	}
	own := ownSteps(c)
	for _, r := range c.Rows {
		knee := kneeCell(r)
		if own {
			knee = "-" // the steps vary the work: no knee is sought
		} else if sw := c.ConfigNamed(r.Config).Sweep; !r.Found && sw != nil {
			if peak, ok := peakedBefore(sw); ok {
				knee = "at or before " + peak + " (peak)"
			}
		}
		line := []string{r.Config, fmt.Sprint(r.Rank), groupedOr(r.Throughput, "-"), ratioCell(r, 2),
			fixed(r.AvgMs, 3, "-"), fixed(r.P99Ms, 3, "-"), busyCell(r), knee}
		if rep {
			line = slices.Insert(line, 3, fmt.Sprint(r.Repeats), ciCell(r))
		}
		t.rows = append(t.rows, line)
	}
	return t
}

// CompareReport writes a comparison as a document, the headline first:
// in Markdown the headline is the title and the knees a list; in text its
// lines lead. Then what was compared, the configuration table and the
// notes.
func CompareReport(w io.Writer, c analysis.ConfigComparison, f Format) error {
	if f == CSV {
		return ConfigTable(w, c, f)
	}
	ew := &errWriter{w: w}
	h := CompareHeadline(c)
	what := fmt.Sprintf("%s, %d configurations swept over %s; compared at %s (the table: ranked by throughput there).",
		c.Workload, len(c.Rows), c.Axis, c.At)
	if f == Markdown {
		ew.printf("# %s\n\n", h[0])
		for _, l := range h[1:] {
			ew.printf("- %s\n", l)
		}
		ew.printf("\n%s\n\n", what)
	} else {
		ew.printf("%s\n", h[0])
		for _, l := range h[1:] {
			ew.printf("  %s\n", l)
		}
		ew.printf("\n%s\n\n", what)
	}
	if ew.err != nil {
		return ew.err
	}
	if err := ConfigTable(w, c, f); err != nil {
		return err
	}
	for _, t := range compareTables(c) {
		if f == Markdown {
			ew.printf("\n## %s\n\n", t.title)
		} else {
			ew.printf("\n%s:\n", t.title)
		}
		t.write(ew, f, true)
	}
	for _, n := range c.Notes {
		if f == Markdown {
			ew.printf("\n> %s\n", n)
		} else {
			ew.printf("\nnote: %s\n", n)
		}
	}
	return ew.err
}

// CompareDoc is what a comparison's HTML page shows.
type CompareDoc struct {
	Title      string
	Comparison analysis.ConfigComparison
	// Runs are result files shown beside the comparison (a table); Plan
	// a capacity plan (both optional).
	Runs []*result.Run
	Plan *sizing.Report
	// Tool is the rightsize version that wrote the report.
	Tool string
}

type compareView struct {
	Title, Tool string
	Headline    string
	Knees       []string
	What        string
	Head        []string
	Rows        []configCells
	Tables      []tableView
	Notes       []string
	Charts      []chart
	Configs     []configSteps
	Params      []params
	At          string
	RunRows     []RunRow
	PlanText    string
}

// configCells are a configuration table's row in HTML: its cells, and
// whether it is the best configuration's.
type configCells struct {
	Cells []string
	Best  bool
}

type configSteps struct {
	Name  string
	ID    string
	Steps []StepRow
}

// CompareHTML writes a comparison as one self-contained HTML page: the
// headline before anything else, the configuration table and notes, the
// grouped bars (average response time by step, host CPU busy under them),
// the overlaid curves (throughput, average and p99 response time, host CPU
// busy) with one series per configuration, each configuration's steps and
// parameters. Text from users (configuration names, labels) is escaped by
// html/template.
func CompareHTML(w io.Writer, d CompareDoc) error {
	c := d.Comparison
	h := CompareHeadline(c)
	v := compareView{Title: d.Title, Tool: d.Tool, Headline: h[0], Knees: h[1:], Notes: c.Notes, At: c.At,
		What: fmt.Sprintf("%s, %d configurations swept over %s; the table compares them at %s, ranked by throughput there.",
			c.Workload, len(c.Rows), c.Axis, c.At)}
	if v.Title == "" {
		v.Title = fmt.Sprintf("%s: %d configurations over %s", c.Workload, len(c.Rows), c.Axis)
	}
	t := configTable(c)
	v.Head = t.head
	for i, r := range c.Rows {
		v.Rows = append(v.Rows, configCells{Cells: t.rows[i], Best: r.Rank == 1})
	}
	v.Tables = tableViews(compareTables(c))
	charts, err := compareCharts(c)
	if err != nil {
		return err
	}
	v.Charts = charts
	for _, cf := range c.Configs {
		v.Configs = append(v.Configs, configSteps{Name: cf.Name, ID: cf.Sweep.ID, Steps: sweepRows(cf.Sweep)})
		if len(cf.Runs) > 0 {
			p := paramsOnce(cf.Runs[:1]).Shared
			p.Name = cf.Name + " (its first step)"
			v.Params = append(v.Params, p)
		}
	}
	if len(d.Runs) > 0 {
		v.RunRows = RunRows(d.Runs)
	}
	if d.Plan != nil {
		var b bytes.Buffer
		if err := Plan(&b, d.Plan, Text); err != nil {
			return err
		}
		v.PlanText = b.String()
	}
	return comparePage.Execute(w, v)
}

var comparePage = template.Must(template.Must(template.New("compare").Funcs(pageFuncs).Parse(pageParts)).Parse(`{{template "head" .}}
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:72em;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ddd}
.headline{border-left:4px solid #4e79a7;background:#f3f6fa;padding:.6em 1em;margin:1em 0}
.headline .answer{font-size:1.2em;font-weight:600;margin:.2em 0 .4em}
.headline ul{margin:.2em 0;padding-left:1.2em}
.scroll{overflow-x:auto}
table{border-collapse:collapse;margin:.5em 0}th,td{padding:.25em .6em;border-bottom:1px solid #eee;text-align:right}
th:first-child,td:first-child{text-align:left}th{background:#f6f6f6}tr.best td{font-weight:600}
.chart{margin:1em 0}.chart svg{max-width:100%;height:auto}.note{color:#666;font-size:.9em}
pre{background:#f8f8f8;padding:.8em;overflow-x:auto;white-space:pre-wrap}
dl{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dt{color:#555}dd{margin:0;word-break:break-all}
</style></head><body>
<h1>{{.Title}}</h1>
<section class="headline" id="headline"><p class="answer">{{.Headline}}</p>
<ul>{{range .Knees}}<li>{{.}}</li>{{end}}</ul></section>
<p>{{.What}}</p>
<h2>Configurations at {{.At}}</h2>
<div class="scroll"><table class="configs"><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr{{if .Best}} class="best"{{end}}>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{range .Notes}}<p class="note">{{.}}</p>{{end}}
` + tablesHTML + `
{{template "charts" .}}
<h2>Each configuration's steps</h2>
{{range .Configs}}<h3>{{.Name}} <span class="note">sweep {{.ID}}</span></h3>
{{$open := openRows .Steps}}<div class="scroll"><table class="steps"><thead><tr><th>step</th><th>throughput/s</th>{{if $open}}<th>offered/s</th><th>late</th><th>dropped</th>{{end}}<th>avg ms</th><th>p95 ms</th><th>p99 ms</th><th>errors</th><th>retries</th><th>deadlocks</th><th>CPU user %</th><th>sys %</th><th>iowait %</th><th>steal %</th><th>run queue</th></tr></thead><tbody>
{{range .Steps}}<tr><td>{{.Label}}</td><td>{{f2 .Throughput}}</td>{{if $open}}{{range openCells .}}<td>{{.}}</td>{{end}}{{end}}<td>{{f3 .AvgMs}}</td><td>{{f3 .P95Ms}}</td><td>{{f3 .P99Ms}}</td><td>{{.Errors}}</td><td>{{.Retries}}</td><td>{{.Deadlocks}}</td>{{with .Host}}<td>{{f0 .CPU.User}}</td><td>{{f0 .CPU.System}}</td><td>{{f0 .CPU.Iowait}}</td><td>{{f0 .CPU.Steal}}</td><td>{{.RunQueue}}</td>{{else}}<td>-</td><td>-</td><td>-</td><td>-</td><td>-</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{end}}
{{if .RunRows}}<h2>Runs</h2>
{{template "runs" .}}
{{end}}
{{if .PlanText}}<h2>Capacity plan</h2><pre>{{.PlanText}}</pre>{{end}}
{{if .Params}}<h2>Parameters</h2>{{end}}
{{range .Params}}<h3>{{.Name}}</h3><dl>{{range .Entries}}<dt>{{index . 0}}</dt><dd>{{index . 1}}</dd>{{end}}</dl>
{{range .Notes}}<p class="note">{{.}}</p>{{end}}{{end}}
<p class="note">Written by {{.Tool}}. Figures from the sweep and result files; JSON stays the source of truth.</p>
</body></html>
`))

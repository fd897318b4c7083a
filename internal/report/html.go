package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/sizing"
)

// Doc is what a report shows: runs (single runs, or a sweep's steps in
// order), the sweep itself, and a plan, each optional.
type Doc struct {
	Title string
	Runs  []*result.Run
	Sweep *analysis.Result
	Plan  *sizing.Report
	// Tool is the rightsize version that wrote the report.
	Tool string
}

// HTML writes the report as one self-contained HTML file: inline CSS, the
// charts as inline SVG (no script, no network). Every text that came from a
// user or a database (labels, targets, error messages, options) is escaped
// by html/template.
func HTML(w io.Writer, d Doc) error {
	v := htmlView{Title: d.Title, Tool: d.Tool, Headline: Headline(d)}
	if v.Title == "" {
		v.Title = "rightsize report"
	}
	add := func(title, note string, svg string, err error) error {
		if err != nil {
			return fmt.Errorf("chart %q: %w", title, err)
		}
		if svg != "" {
			v.Charts = append(v.Charts, chart{Title: title, Note: note, SVG: template.HTML(svg)})
		}
		return nil
	}
	if sw := d.Sweep; sw != nil {
		if err := sweepView(&v, sw, add); err != nil {
			return err
		}
	}
	if d.Sweep == nil {
		for _, r := range d.Runs {
			if t, ok := typesTable(r.Summary.Types, r.Summary.SlowestFrequent); ok {
				if len(d.Runs) > 1 {
					t.title = runName(r) + ": " + t.title
				}
				v.Types = append(v.Types, tableViews([]table{t})...)
			}
		}
	}
	for _, r := range d.Runs {
		if t, ok := errorsTable(r); ok {
			if len(d.Runs) > 1 {
				t.title = runName(r) + ": " + t.title
			}
			v.Errors = append(v.Errors, tableViews([]table{t})...)
		}
	}
	if len(d.Runs) > 0 {
		v.RunRows = RunRows(d.Runs)
		v.Figures = runFigures(d.Runs)
	}
	for _, r := range d.Runs {
		name := r.Label
		if name == "" {
			name = r.ID
		}
		svg, err := timelineChart(r, "Per interval: "+name)
		if err := add("Over time: "+name, "grey: the warm-up, excluded from the figures", svg, err); err != nil {
			return err
		}
	}
	for _, r := range d.Runs {
		name := r.Label
		if name == "" {
			name = r.ID
		}
		kinds, svgs, err := percentileCharts(r)
		if err != nil {
			return fmt.Errorf("chart %q: %w", "Latency percentiles: "+name, err)
		}
		for i, svg := range svgs {
			title := "Latency percentiles: " + name
			if kinds[i] != "" {
				title += ", " + kindTitle(kinds[i])
			}
			if err := add(title, "each operation's HDR histogram", svg, nil); err != nil {
				return err
			}
		}
	}
	v.Params = paramsOnce(d.Runs)
	if p := d.Plan; p != nil {
		var b bytes.Buffer
		if err := Plan(&b, p, Text); err != nil {
			return err
		}
		v.PlanText = b.String()
	}
	return page.Execute(w, v)
}

// sweepView fills v with a sweep's part of the page: its steps, verdict,
// tables and charts (add puts each chart on the page).
func sweepView(v *htmlView, sw *analysis.Result, add func(title, note, svg string, err error) error) error {
	v.Sweep, v.Verdict = sw, SweepSentences(sw)
	v.Steps = sweepRows(sw)
	if a := sw.Search; a != nil {
		svg, err := searchChart(a)
		if err := add("Capacity search", "each probe's load against its response time (log scale); the dashed line is the objective; ringed: the highest load that met it", svg, err); err != nil {
			return err
		}
		v.Search = tableViews([]table{searchTable(a)})
	}
	svg, err := responseCPUChart(sw)
	if err := add("Response time and host CPU by step", "bars: average and p99 response time; lines: the host's CPU", svg, err); err != nil {
		return err
	}
	svg, err = typesCPUChart(sw)
	if err := add("Frequent transaction types and host CPU by step", "bars: the p95 response time of each transaction type among those that make up most of the mix; lines: the host's CPU", svg, err); err != nil {
		return err
	}
	if t, ok := typeSteps(sw); ok {
		v.Types = tableViews([]table{t})
	}
	for _, mk := range []func(*analysis.Result) (table, bool){waitSteps, statementSteps} {
		if t, ok := mk(sw); ok {
			v.Waits = append(v.Waits, tableViews([]table{t})...)
		}
	}
	svg, err = ashChart(sw)
	if err := add("What the database waited on, by step", "stacked bars: the database's average active sessions by wait class (sampled from the server itself); lines: the host's CPU", svg, err); err != nil {
		return err
	}
	svg, err = guestHostChart(sw)
	if err := add("Guest CPU beside the host's view", "bars: the guest's CPU busy and, where known, the hypervisor's host CPU and a limited cgroup's use of its limit; lines: the waits the guest cannot see (ready and co-stop per vCPU, throttled periods, CPU pressure)", svg, err); err != nil {
		return err
	}
	if !sw.OwnSteps {
		svg, err = throughputChart(sw)
		if err := add("Throughput by "+sw.Axis, "the USL fit dashed, the knee ringed", svg, err); err != nil {
			return err
		}
	}
	return nil
}

type chart struct {
	Title, Note string
	SVG         template.HTML
}

type params struct {
	Name    string
	Entries [][2]string
	Notes   []string
}

type htmlView struct {
	Title, Tool string
	Sweep       *analysis.Result
	Headline    []string // the answer, before anything else
	Verdict     []string // the sweep's, in sentences
	Steps       []StepRow
	Types       []tableView // the transaction types: a run's, or a sweep's by step
	Errors      []tableView // the runs' error messages
	Waits       []tableView // the server's waits by step
	Search      []tableView // a capacity search's probes
	RunRows     []RunRow
	Figures     []figureBlock
	Charts      []chart
	Params      paramView
	PlanText    string
}

func sweepRows(sw *analysis.Result) []StepRow {
	rows := make([]StepRow, len(sw.Steps))
	for i, st := range sw.Steps {
		rows[i] = StepRowOf(st)
	}
	return rows
}

// pageFuncs are the functions both HTML pages' templates use.
var pageFuncs = template.FuncMap{
	"f2":        func(v float64) string { return fmt.Sprintf("%.2f", v) },
	"f3":        func(v float64) string { return fmt.Sprintf("%.3f", v) },
	"f0":        func(v float64) string { return fmt.Sprintf("%.0f", v) },
	"openRows":  openRows,
	"openCells": openCells,
	"extraHeads": func(rows []StepRow) []string {
		var out []string
		for _, c := range stepColumnsOf(rows) {
			out = append(out, c.head)
		}
		return out
	},
	"extraRow": func(r StepRow, rows []StepRow) []string { return stepCells(r, stepColumnsOf(rows), "%.1f", "-") },
	"short":    ShortTarget,
	"upper":    upper,
}

var page = template.Must(template.Must(template.New("report").Funcs(pageFuncs).Parse(pageParts)).Parse(`{{template "head" .}}
<style>
*,*::before,*::after{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:84em;color:#222;padding:0 1.5em}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ddd}
.scroll{max-width:100%;overflow-x:auto}
table{border-collapse:collapse;margin:.5em 0}th,td{padding:.25em .6em;border-bottom:1px solid #eee;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left;white-space:nowrap}th{background:#f6f6f6}td{white-space:nowrap}
th.text,td.text{text-align:left;white-space:normal;overflow-wrap:anywhere;min-width:8em}
table.textlast th:last-child,table.textlast td:last-child{text-align:left;white-space:normal;min-width:16em}
.chart{margin:1.5em 0;max-width:70em}.chart svg{display:block;width:100%;height:auto}.note{color:#666;font-size:.9em}
pre{background:#f8f8f8;padding:.8em;overflow-x:auto;white-space:pre-wrap}
dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.2em 1em}dt{color:#555}dd{margin:0;overflow-wrap:anywhere}
.answer{background:#f1f6fd;border-left:4px solid #2f6fb2;padding:.4em 1em;margin:1em 0}.answer p{margin:.35em 0}
</style></head><body>
<h1>{{.Title}}</h1>
{{if .Headline}}<section class="answer" id="answer">{{range .Headline}}<p>{{.}}</p>{{end}}</section>{{end}}
{{with .Sweep}}
<h2>Sweep {{.ID}}: {{.Workload}} over {{.Axis}}</h2>
{{if .BaselineRate}}<p>1x = {{f2 .BaselineRate}}/s per instance{{if .Baseline}} (measured: {{.Baseline}}){{end}}</p>{{end}}
{{if not .HostIsServer}}<p class="note">The database ran on another host: the host figures are the load generator's.</p>{{end}}
{{end}}
{{if .Steps}}
{{$open := openRows .Steps}}<div class="scroll"><table><thead><tr><th>step</th><th>throughput/s</th>{{if $open}}<th>offered/s</th><th>late</th><th>dropped</th>{{end}}<th>avg ms</th><th>p95 ms</th><th>p99 ms</th><th>errors</th><th>retries</th><th>deadlocks</th><th>CPU user %</th><th>sys %</th><th>iowait %</th><th>steal %</th><th>run queue</th>{{range extraHeads .Steps}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Steps}}<tr><td>{{.Label}}</td><td>{{f2 .Throughput}}</td>{{if $open}}{{range openCells .}}<td>{{.}}</td>{{end}}{{end}}<td>{{f3 .AvgMs}}</td><td>{{f3 .P95Ms}}</td><td>{{f3 .P99Ms}}</td><td>{{.Errors}}</td><td>{{.Retries}}</td><td>{{.Deadlocks}}</td>{{with .Host}}<td>{{f0 .CPU.User}}</td><td>{{f0 .CPU.System}}</td><td>{{f0 .CPU.Iowait}}</td><td>{{f0 .CPU.Steal}}</td><td>{{.RunQueue}}</td>{{else}}<td>-</td><td>-</td><td>-</td><td>-</td><td>-</td>{{end}}{{range extraRow . $.Steps}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{end}}
{{if .Errors}}<h2>Errors</h2>{{end}}
{{template "tables" .Errors}}
{{if .Types}}<h2>Transaction types</h2>{{end}}
{{template "tables" .Types}}
{{if .Search}}<h2>The capacity search</h2>{{end}}
{{template "tables" .Search}}
{{if .Waits}}<h2>What the database waited on</h2>{{end}}
{{template "tables" .Waits}}
{{with .Sweep}}{{if $.Verdict}}<h2>Verdict</h2>{{range $.Verdict}}<p>{{.}}</p>{{end}}
<ul>{{range .Knees}}<li><b>{{.Method}}</b>: {{.Reason}}</li>{{end}}{{with .Demand}}<li><b>service demand</b>: {{.SweetSpot.Reason}}</li>{{end}}</ul>{{end}}{{end}}
{{if .RunRows}}
<h2>Runs</h2>
{{template "runs" .}}
{{end}}
{{if .Figures}}<h2>The workload's figures</h2>{{end}}
{{range .Figures}}{{if .Title}}<p><b>{{.Title}}</b></p>{{end}}
{{range .Tables}}{{if .Title}}<p>{{.Title}}</p>{{end}}<div class="scroll"><table><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{end}}{{range .Lines}}<p>{{.}}</p>{{end}}{{range .Notes}}<p class="note">{{.}}</p>{{end}}{{end}}
{{template "charts" .}}
{{if .PlanText}}<h2>Capacity plan</h2><pre>{{.PlanText}}</pre>{{end}}
{{with .Params}}{{with .Shared}}{{if .Entries}}<h2>Parameters</h2>
<h3>{{.Name}}</h3><dl>{{range .Entries}}<dt>{{index . 0}}</dt><dd>{{index . 1}}</dd>{{end}}</dl>
{{range .Notes}}<p class="note">{{.}}</p>{{end}}{{end}}{{end}}
{{if .Keys}}<h3>What differs</h3><div class="scroll"><table><thead><tr><th>run</th>{{range .Keys}}<th class="text">{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr><td>{{.Name}}</td>{{range .Cells}}<td class="text">{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>{{end}}
{{range .Rows}}{{$n := .Name}}{{range .Notes}}<p class="note">{{$n}}: {{.}}</p>{{end}}{{end}}{{end}}
<p class="note">Written by {{.Tool}}. Figures from the result files; JSON stays the source of truth.</p>
</body></html>
`))

// pageParts are the pieces the report's and the comparison's pages share:
// the head up to the style, the runs table and the charts.
const pageParts = `
{{define "tables"}}{{range .}}<p>{{upper .Title}}</p><div class="scroll"><table{{if .TextLast}} class="textlast"{{end}}><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{end}}{{end}}
{{define "head"}}<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="{{.Tool}}">
<title>{{.Title}}</title>{{end}}
{{define "runs"}}<div class="scroll"><table><thead><tr><th>label</th><th>workload</th><th>target</th><th>throughput</th><th>unit</th><th>avg ms</th><th>p95 ms</th><th>p99 ms</th><th>errors</th></tr></thead><tbody>
{{range .RunRows}}<tr><td>{{.Label}}</td><td>{{.Workload}}</td><td title="{{.Target}}">{{short .Target}}</td><td>{{f2 .Throughput}}</td><td>{{.Unit}}</td><td>{{f3 .AvgMs}}</td><td>{{f3 .P95Ms}}</td><td>{{f3 .P99Ms}}</td><td>{{.Errors}}</td></tr>
{{end}}</tbody></table></div>{{end}}
{{define "charts"}}{{if .Charts}}<h2>Charts</h2>{{end}}
{{range .Charts}}<figure class="chart"><figcaption><b>{{.Title}}</b> <span class="note">{{.Note}}</span></figcaption>{{.SVG}}</figure>
{{end}}{{end}}
`

package study

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// steps reads the list of steps, each with the study's options under its
// own.
func (p *parser) steps(n *yaml.Node, line int, common []Option) []Stage {
	if n == nil {
		p.add(line, "steps: missing (a list of sweeps and runs)")
		return nil
	}
	switch {
	case n.Kind != yaml.SequenceNode:
		p.add(n.Line, "steps: want a list of sweeps and runs, not %s", kindName(n))
		return nil
	case len(n.Content) == 0:
		p.add(n.Line, "steps: an empty list: a study runs at least one sweep or run")
		return nil
	}
	var out []Stage
	seen := map[string]int{}
	for i, sn := range n.Content {
		st := p.step(sn, i, common)
		if st.Name != "" {
			if first, dup := seen[st.Name]; dup {
				p.add(st.Line, "step %s: a second step of this name (the first is at line %d)", st.Name, first)
			}
			seen[st.Name] = st.Line
		}
		out = append(out, st)
	}
	return out
}

func (p *parser) step(n *yaml.Node, i int, common []Option) Stage {
	what := "step " + strconv.Itoa(i+1)
	f := p.fields(n, what, "name", "sweep", "run", "config", "axis", "values", "options")
	st := Stage{Line: n.Line, Name: p.str(f["name"], what+": name")}
	switch {
	case f["name"] == nil:
		p.add(n.Line, "%s: name missing (it names the step's files and finds it in the history to resume)", what)
	case !nameRE.MatchString(st.Name):
		p.add(f["name"].Line, "%s: name %q: want 1 to 64 letters, digits, '-' or '_'", what, st.Name)
	default:
		what = "step " + st.Name
	}
	switch {
	case f["sweep"] != nil && f["run"] != nil:
		p.add(n.Line, "%s: sweep and run both given: a step is one of them", what)
	case f["sweep"] != nil:
		st.Sweep, st.Workload = true, p.str(f["sweep"], what+": sweep")
	case f["run"] != nil:
		st.Workload = p.str(f["run"], what+": run")
	default:
		p.add(n.Line, "%s: neither sweep: WORKLOAD nor run: WORKLOAD", what)
	}
	if (f["sweep"] != nil) != (f["run"] != nil) && st.Workload == "" {
		p.add(n.Line, "%s: name the workload (oltp_read_write, tpcc, fileio, ...)", what)
	}
	st.Config = p.str(f["config"], what+": config")
	own := p.options(f["options"], what+": options")
	if f["sweep"] == nil || f["run"] == nil {
		p.axis(&st, f, what, own)
	}
	st.Options = merge(common, own)
	return st
}

// axis reads a sweep's axis and values.
func (p *parser) axis(st *Stage, f map[string]*yaml.Node, what string, own []Option) {
	if f["axis"] != nil {
		st.Axis, st.AxisLine = strings.TrimPrefix(p.str(f["axis"], what+": axis"), "--"), f["axis"].Line
	}
	switch {
	case !st.Sweep && (f["axis"] != nil || f["values"] != nil):
		p.add(firstLine(f["axis"], f["values"]), "%s: a run has no axis or values (make it a sweep, or give the flag under options)", what)
		return
	case !st.Sweep:
		return
	case f["axis"] == nil:
		p.add(st.Line, "%s: a sweep needs an axis (threads, rate, instances, or a workload's list such as read)", what)
	case !flagRE.MatchString(st.Axis):
		p.add(st.AxisLine, "%s: axis %q is not a flag name", what, st.Axis)
	case reserved[st.Axis] != "":
		p.add(st.AxisLine, "%s: axis %s: %s", what, st.Axis, reserved[st.Axis])
	}
	for _, o := range own {
		if o.Name == st.Axis {
			p.add(o.Line, "%s: %s is the axis: give its values under values, not options", what, o.Name)
		}
	}
	if f["values"] == nil {
		p.add(st.Line, "%s: values missing (the axis's values, a list: [1x, 2x, 3x])", what)
		return
	}
	st.Values = p.value(f["values"], what+": values", true)
}

func firstLine(ns ...*yaml.Node) int {
	for _, n := range ns {
		if n != nil {
			return n.Line
		}
	}
	return 0
}

// merge is the study's options with a step's: a step's option replaces the
// study's of its name, in the study's place; the step's others follow.
func merge(common, own []Option) []Option {
	out := slices.Clone(common)
	for _, o := range own {
		if i := slices.IndexFunc(out, func(c Option) bool { return c.Name == o.Name }); i >= 0 {
			out[i] = o
		} else {
			out = append(out, o)
		}
	}
	return out
}

func (p *parser) plan(n *yaml.Node, s *Study) *Sizing {
	f := p.fields(n, "plan", "step", "target-rate", "cpu-target", "verify")
	pl := &Sizing{Line: n.Line, Stage: p.str(f["step"], "plan: step"), TargetRate: p.str(f["target-rate"], "plan: target-rate"), CPUTarget: 80}
	switch st := s.StageByName(pl.Stage); {
	case f["step"] == nil:
		p.add(n.Line, "plan: step missing (the sweep to right-size from)")
	case st == nil:
		p.add(f["step"].Line, "plan: step %q is not a step of the study", pl.Stage)
	case !st.Sweep:
		p.add(f["step"].Line, "plan: step %s is a run: the plan right-sizes from a sweep", pl.Stage)
	}
	if f["target-rate"] == nil {
		p.add(n.Line, "plan: target-rate missing (events per second, or a multiple of the sweep's baseline: 3x)")
	} else if msg := checkTargetRate(pl.TargetRate, s.StageByName(pl.Stage)); msg != "" {
		p.add(f["target-rate"].Line, "plan: target-rate %q: %s", pl.TargetRate, msg)
	}
	if c := f["cpu-target"]; c != nil {
		v, err := strconv.ParseFloat(p.str(c, "plan: cpu-target"), 64)
		if err != nil || !(v > 0 && v <= 100) {
			p.add(c.Line, "plan: cpu-target %q: want a percentage above 0 and at most 100", c.Value)
		}
		pl.CPUTarget = v
	}
	if v := f["verify"]; v != nil {
		b, err := strconv.ParseBool(p.str(v, "plan: verify"))
		if err != nil {
			p.add(v.Line, "plan: verify %q: want true or false", v.Value)
		}
		pl.Verify = b
	}
	return pl
}

// checkTargetRate is what is wrong with a plan's target rate, "" if
// nothing: events per second (3000) or a multiple of the sweep's baseline
// (3x), a finite number above 0; a multiple only of a sweep that has a
// baseline (it sweeps the rate, or gives baseline-rate). Checked when the
// file is read, so that a study does not fail at its plan after its steps.
func checkTargetRate(v string, st *Stage) string {
	num, mult := strings.CutSuffix(strings.ToLower(strings.TrimSpace(v)), "x")
	n, err := strconv.ParseFloat(num, 64)
	switch {
	case err != nil || !(n > 0) || math.IsInf(n, 0):
		return "want events per second (3000) or a multiple of the sweep's baseline (3x), above 0"
	case mult && st != nil && st.Axis != "rate" && !slices.ContainsFunc(st.Options, func(o Option) bool { return o.Name == "baseline-rate" }):
		return fmt.Sprintf("a multiple of a baseline, but step %s sweeps %s and gives no baseline-rate: give events per second", st.Name, st.Axis)
	}
	return ""
}

// formats are the report formats and the extension of their default file.
var formats = map[string]string{"html": "html", "md": "md", "markdown": "md", "csv": "csv", "text": "txt"}

func (p *parser) report(n *yaml.Node, line int, s *Study) Report {
	r := Report{Line: line, Format: "html"}
	var f map[string]*yaml.Node
	if n != nil {
		r.Line = n.Line
		f = p.fields(n, "report", "format", "path", "steps")
	}
	if v := f["format"]; v != nil {
		r.Format = p.str(v, "report: format")
		if formats[r.Format] == "" {
			p.add(v.Line, "report: format %q: want html, md, csv or text", r.Format)
		}
	}
	r.Path = "report." + formats[r.Format]
	if v := f["path"]; v != nil {
		r.Path = p.str(v, "report: path")
		p.reportPath(v.Line, r.Path, s)
	}
	if v := f["steps"]; v != nil {
		r.Stages = p.value(v, "report: steps", false).At(Small)
		for _, name := range r.Stages {
			if s.StageByName(name) == nil {
				p.add(v.Line, "report: steps: %q is not a step of the study", name)
			}
		}
	} else {
		for _, st := range s.Stages {
			r.Stages = append(r.Stages, st.Name)
		}
	}
	return r
}

// reportPath checks the report's path: a file name in the study's
// directory (neither absolute nor leaving it), not the name of a file the
// study's steps or plan write.
func (p *parser) reportPath(line int, path string, s *Study) {
	switch {
	case path == "" || path == "." || strings.ContainsAny(path, `/\`) || !filepath.IsLocal(path):
		p.add(line, "report: path %q: want a file name (report.html), written in the study's directory (--dir): no folder, not absolute, no '..'", path)
		return
	case strings.HasSuffix(strings.ToLower(path), ".json"):
		p.add(line, "report: path %q: the study's results and plan are its .json files: name the report .html, .md, .csv or .txt", path)
		return
	}
	for _, st := range s.Stages {
		if st.Writes(path) {
			p.add(line, "report: path %q: step %s writes %s.json and %s-* (a sweep's steps, its Markdown): name the report otherwise", path, st.Name, st.Name, st.Name)
			return
		}
	}
}

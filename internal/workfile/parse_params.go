package workfile

import (
	"math"
	"regexp"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/rightsize/rightsize/internal/datagen"
)

func (p *parser) params(n *yaml.Node) []Param {
	var out []Param
	pairs := p.pairs(n, "params")
	if len(pairs) > maxParams {
		p.add(pairs[maxParams][0].Line, "params: more than %d", maxParams)
		pairs = pairs[:maxParams]
	}
	for _, kv := range pairs {
		name := p.name(kv[0], "parameter")
		prm := p.param(kv[1], "parameter "+name, false)
		prm.Name, prm.Line = name, kv[0].Line
		out = append(out, prm)
	}
	return out
}

// paramKeys are each kind's keys.
var paramKeys = map[Kind][]string{
	Int:       {"type", "min", "max", "dist", "parameter"},
	Decimal:   {"type", "min", "max", "scale", "dist", "parameter"},
	Seq:       {"type", "start", "step", "after"},
	Choice:    {"type", "values"},
	Pattern:   {"type", "pattern"},
	Timestamp: {"type", "from", "to", "dist", "parameter"},
	Sample:    {"type", "column", "limit", "dist", "parameter", "min", "max"},
}

const kindList = "int, decimal, seq, choice, pattern, timestamp or sample"

// param reads a parameter, or a column's generator (column: no sample).
func (p *parser) param(n *yaml.Node, what string, column bool) Param {
	prm := Param{Line: n.Line}
	if n.Kind != yaml.MappingNode {
		p.fields(n, what) // the problem
		return prm
	}
	var typ *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "type" {
			typ = n.Content[i+1]
		}
	}
	if typ == nil {
		p.add(n.Line, "%s: type missing (%s)", what, kindList)
		return prm
	}
	s, ok := p.scalar(typ, what+": type")
	if !ok {
		return prm
	}
	for k, name := range kindNames {
		if name == s && name != "" {
			prm.Kind = Kind(k)
		}
	}
	switch {
	case prm.Kind == 0:
		p.add(typ.Line, "%s: unknown type %q (want %s)", what, s, kindList)
		return prm
	case prm.Kind == Sample && column:
		p.add(typ.Line, "%s: a column cannot be a sample (a sample is read from the target at run time)", what)
		return prm
	}
	f := p.fields(n, what+" ("+s+")", paramKeys[prm.Kind]...)
	switch prm.Kind {
	case Int:
		p.intRange(&prm, f, n.Line, what)
	case Decimal:
		p.decimalRange(&prm, f, n.Line, what)
	case Seq:
		p.seq(&prm, f, what)
		if column && f["after"] != nil {
			p.add(f["after"].Line, "%s: after is for a parameter (a key a transaction inserts); a column's seq numbers the rows prepare loads", what)
			prm.Table, prm.Column = "", ""
		}
	case Choice:
		p.choice(&prm, f, n.Line, what)
	case Pattern:
		p.pattern(&prm, f, n.Line, what)
	case Timestamp:
		p.timestamp(&prm, f, n.Line, what)
	case Sample:
		p.sample(&prm, f, n.Line, what)
	}
	return prm
}

// distribution reads dist and parameter.
func (p *parser) distribution(prm *Param, f map[string]*yaml.Node, what string) bool {
	if d := f["dist"]; d != nil {
		s, ok := p.scalar(d, what+": dist")
		if !ok {
			return false
		}
		k, err := datagen.ParsePgbenchKind(s)
		if err != nil {
			p.add(d.Line, "%s: %v", what, err)
			return false
		}
		prm.Dist = k
	}
	pn := f["parameter"]
	switch {
	case pn == nil && prm.Dist != datagen.PgbenchUniform:
		p.add(p.keyLine(f["dist"]), "%s: dist %s needs a parameter (%s)", what, prm.Dist, parameterRule(prm.Dist))
		return false
	case pn == nil:
		return true
	case prm.Dist == datagen.PgbenchUniform:
		p.add(p.keyLine(pn), "%s: parameter given, but dist is uniform (give dist: gaussian, exponential or zipfian)", what)
		return false
	}
	v, ok := p.number(pn, what+": parameter")
	if !ok {
		return false
	}
	if err := datagen.CheckPgbench(prm.Dist, v); err != nil {
		p.add(pn.Line, "%s: %v", what, err)
		return false
	}
	prm.Parameter = v
	return true
}

func parameterRule(k datagen.PgbenchKind) string {
	switch k {
	case datagen.PgbenchGaussian:
		return ">= 2.0: the range spans ±parameter standard deviations"
	case datagen.PgbenchExponential:
		return "> 0: about parameter % of draws fall in the range's first 1 %"
	}
	return "in (0, 1) or [1.001, 1000]: value k is drawn in proportion to 1/k^parameter"
}

// build makes the distribution over [Min, Max].
func (p *parser) build(prm *Param, ok bool, line int, what string) {
	if !ok {
		return
	}
	d, err := datagen.NewPgbench(prm.Dist, prm.Min, prm.Max, prm.Parameter)
	if err != nil {
		p.add(line, "%s: %v", what, err)
		return
	}
	prm.dist = d
}

func (p *parser) intRange(prm *Param, f map[string]*yaml.Node, line int, what string) {
	ok := p.need(f, line, what, "min", "max")
	if ok {
		var ok1, ok2 bool
		prm.Min, ok1 = p.integer(f["min"], what+": min")
		prm.Max, ok2 = p.integer(f["max"], what+": max")
		ok = ok1 && ok2
	}
	ok = p.distribution(prm, f, what) && ok
	p.build(prm, ok, p.lineOf(f["max"], line), what)
}

// need reports the keys of f that are missing.
func (p *parser) need(f map[string]*yaml.Node, line int, what string, keys ...string) bool {
	ok := true
	for _, k := range keys {
		if f[k] == nil {
			p.add(line, "%s: %s missing", what, k)
			ok = false
		}
	}
	return ok
}

func (p *parser) lineOf(n *yaml.Node, line int) int {
	if n == nil {
		return line
	}
	return n.Line
}

func (p *parser) decimalRange(prm *Param, f map[string]*yaml.Node, line int, what string) {
	ok := p.need(f, line, what, "min", "max")
	var lo, hi int64
	var slo, shi int
	if ok {
		var ok1, ok2 bool
		lo, slo, ok1 = p.decimal(f["min"], what+": min")
		hi, shi, ok2 = p.decimal(f["max"], what+": max")
		ok = ok1 && ok2
	}
	prm.Scale = max(slo, shi)
	if sn := f["scale"]; sn != nil {
		if sc, good := p.integer(sn, what+": scale"); !good {
			ok = false
		} else if sc < int64(prm.Scale) || sc > maxScale {
			p.add(sn.Line, "%s: scale %d: want %d to %d (min and max have %d decimals)", what, sc, prm.Scale, maxScale, prm.Scale)
			ok = false
		} else {
			prm.Scale = int(sc)
		}
	}
	if ok {
		var ok1, ok2 bool
		prm.Min, ok1 = rescale(lo, slo, prm.Scale)
		prm.Max, ok2 = rescale(hi, shi, prm.Scale)
		if !ok1 || !ok2 {
			p.add(p.keyLine(f["max"]), "%s: min and max at %d decimals exceed 64-bit integers", what, prm.Scale)
			ok = false
		}
	}
	if ok && prm.Max < prm.Min {
		p.add(f["max"].Line, "%s: max %s is below min %s", what, f["max"].Value, f["min"].Value)
		ok = false
	}
	ok = p.distribution(prm, f, what) && ok
	p.build(prm, ok, p.lineOf(f["max"], line), what)
}

// rescale converts units of 10^-from into units of 10^-to (to >= from).
func rescale(v int64, from, to int) (int64, bool) {
	for range to - from {
		if v > math.MaxInt64/10 || v < math.MinInt64/10 {
			return 0, false
		}
		v *= 10
	}
	return v, true
}

func (p *parser) seq(prm *Param, f map[string]*yaml.Node, what string) {
	prm.Start, prm.Step = 1, 1
	if n := f["start"]; n != nil {
		prm.Start, _ = p.integer(n, what+": start")
	}
	if n := f["step"]; n != nil {
		if v, ok := p.integer(n, what+": step"); ok && v == 0 {
			p.add(n.Line, "%s: step 0 repeats one value", what)
		} else if ok {
			prm.Step = v
		}
	}
	if n := f["after"]; n != nil {
		if s, ok := p.scalar(n, what+": after"); ok {
			m := columnRefRE.FindStringSubmatch(s)
			if m == nil {
				p.add(n.Line, "%s: after %q: want table.column", what, s)
			} else {
				prm.Table, prm.Column = m[1], m[2]
			}
		}
		if prm.Step < 0 {
			p.add(n.Line, "%s: after goes past a column's highest value: it needs a step above 0", what)
		}
	}
}

func (p *parser) choice(prm *Param, f map[string]*yaml.Node, line int, what string) {
	if !p.need(f, line, what, "values") {
		return
	}
	prm.choiceInt = true
	var total int64
	items := p.listMax(f["values"], what+": values", maxChoices)
	if vn := f["values"]; isNull(vn) || vn.Kind == yaml.SequenceNode && len(vn.Content) == 0 {
		p.add(p.keyLine(vn), "%s: values empty", what)
	}
	for _, item := range items {
		c := ChoiceValue{Weight: 1}
		v := item
		if item.Kind == yaml.MappingNode {
			g := p.fields(item, what+": value", "value", "weight")
			if v = g["value"]; v == nil {
				p.add(item.Line, "%s: value missing", what)
				continue
			}
			if w := g["weight"]; w != nil {
				c.Weight, _ = p.integer(w, what+": weight")
				if c.Weight < 0 {
					p.add(w.Line, "%s: weight %d is negative", what, c.Weight)
					c.Weight = 0
				}
			}
		}
		s, ok := p.scalar(v, what+": value")
		if !ok {
			continue
		}
		c.Text = s
		if v.Tag == "!!int" {
			c.Int, _ = p.integer(v, what+": value")
		} else {
			prm.choiceInt = false
		}
		if total > math.MaxInt64-c.Weight {
			p.add(v.Line, "%s: the weights add up beyond 64-bit integers", what)
			return
		}
		total += c.Weight
		prm.Choices = append(prm.Choices, c)
		prm.cum = append(prm.cum, total)
		prm.texts = append(prm.texts, []byte(s))
	}
	if len(prm.Choices) > 0 && total == 0 {
		p.add(p.keyLine(f["values"]), "%s: every weight is 0: nothing can be drawn", what)
	}
}

// maxPattern bounds a pattern's length (a value, not a document).
const maxPattern = 4096

func (p *parser) pattern(prm *Param, f map[string]*yaml.Node, line int, what string) {
	if !p.need(f, line, what, "pattern") {
		return
	}
	s, ok := p.scalar(f["pattern"], what+": pattern")
	if !ok {
		return
	}
	prm.Pattern = s
	switch {
	case s == "":
		p.add(f["pattern"].Line, "%s: pattern empty", what)
		return
	case len(s) > maxPattern:
		p.add(f["pattern"].Line, "%s: pattern longer than %d bytes", what, maxPattern)
		return
	}
	for i := 0; i < len(s); i++ {
		c, lit := s[i], s[i] != '#' && s[i] != '@'
		if c == '\\' {
			if i+1 == len(s) {
				p.add(f["pattern"].Line, "%s: pattern ends with a lone \\ (write \\\\ for a backslash)", what)
				return
			}
			i++
			c, lit = s[i], true
		}
		prm.pat = append(prm.pat, c)
		prm.lit = append(prm.lit, lit)
	}
}

func (p *parser) timestamp(prm *Param, f map[string]*yaml.Node, line int, what string) {
	ok := p.need(f, line, what, "from")
	var from, to time.Duration
	if ok {
		from, ok = p.duration(f["from"], what+": from")
	}
	if n := f["to"]; n != nil {
		var ok2 bool
		to, ok2 = p.duration(n, what+": to")
		ok = ok && ok2
	}
	prm.Min, prm.Max = int64(from/time.Second), int64(to/time.Second)
	if ok && prm.Max < prm.Min {
		p.add(p.lineOf(f["to"], line), "%s: from %s is after to %s", what, from, to)
		ok = false
	}
	ok = p.distribution(prm, f, what) && ok
	p.build(prm, ok, line, what)
}

// columnRefRE is a sample's table.column (schema.table.column).
var columnRefRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)\.([A-Za-z_][A-Za-z0-9_]*)$`)

// maxSample bounds the values a runner loads for one sample.
const maxSample = 10_000_000

func (p *parser) sample(prm *Param, f map[string]*yaml.Node, line int, what string) {
	prm.Limit = 100_000
	if p.need(f, line, what, "column") {
		if s, ok := p.scalar(f["column"], what+": column"); ok {
			m := columnRefRE.FindStringSubmatch(s)
			if m == nil {
				p.add(f["column"].Line, "%s: column %q: want table.column", what, s)
			} else {
				prm.Table, prm.Column = m[1], m[2]
			}
		}
	}
	if n := f["limit"]; n != nil {
		if v, ok := p.integer(n, what+": limit"); ok && (v < 1 || v > maxSample) {
			p.add(n.Line, "%s: limit %d: want 1 to %d", what, v, maxSample)
		} else if ok {
			prm.Limit = int(v)
		}
	}
	if f["min"] == nil && f["max"] == nil {
		p.distribution(prm, f, what)
		return
	}
	// A range to draw from when the column holds no values (a copy whose
	// table is empty or smaller): capture writes the one production's held.
	prm.HasRange = true
	p.intRange(prm, f, line, what)
}

package main

// Reading what the tools print and comparing it object by object.

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// One problem a tool printed: where (line of the file, 0 when none) and
// what (the text after the file and line).
type problem struct {
	line int
	doc  string // " (document N)" after the line, when the tool said so
	text string
}

var locRe = regexp.MustCompile(`^(\d+)(?::\d+)?( \(document \d+\))?: `)

// parseOutput splits a tool's standard error into problems (warnings and
// the closing "... and N more errors" are returned apart).
// What dra-slice validate -v says besides problems (tool/tool.c and
// model/workloads.c's notes, the -v summary line (tool/progress.c), and the
// release the feature gates are taken
// from: a cluster snapshot's, --kubernetes-version or
// DRA_KUBERNETES_VERSION, as the release suites set it).
var verboseNoteRe = regexp.MustCompile(`^(\d+ objects? read, \d+ errors?, [0-9.]+ s$|skipped \d+ objects? of kinds |\d+ objects? given more than once|\d+ files? named more than once|.*: expanded into \d+ pods?$|Kubernetes [0-9.]+'s feature gates \((the snapshot .* is of a .* server|--kubernetes-version|DRA_KUBERNETES_VERSION)\)$)`)

func parseOutput(out, prog, file string) (probs []problem, more int) {
	var cur *problem
	flush := func() {
		if cur != nil {
			probs = append(probs, *cur)
			cur = nil
		}
	}
	warn := false
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if strings.HasPrefix(l, prog+": ") {
			flush()
			rest := strings.TrimPrefix(l, prog+": ")
			warn = strings.HasPrefix(rest, "warning: ")
			if warn {
				continue
			}
			if verboseNoteRe.MatchString(rest) {
				continue
			}
			if strings.HasPrefix(rest, "... and ") && strings.HasSuffix(rest, " more errors") {
				more, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rest, "... and "), " more errors"))
				continue
			}
			p := problem{text: rest}
			if strings.HasPrefix(rest, file+":") {
				after := rest[len(file)+1:]
				if m := locRe.FindStringSubmatch(after); m != nil {
					p.line, _ = strconv.Atoi(m[1])
					p.doc = m[2]
					p.text = after[len(m[0]):]
				} else {
					p.text = after
				}
			}
			cur = &p
			continue
		}
		if cur != nil && !warn {
			cur.text += "\n" + l
		}
	}
	flush()
	return probs, more
}

// nulEscaped writes a NUL byte as Go's %q does (\x00), as both tools do
// in an object's name.
func nulEscaped(s string) string { return strings.ReplaceAll(s, "\x00", `\x00`) }

// How dra-slice and upstream-validate name an object.
func refOf(o *node, namespaced bool) string {
	kind := o.str("kind")
	if kind == "" {
		kind = "object"
	}
	md := o.get("metadata")
	name, ns := md.str("name"), md.str("namespace")
	kind, name, ns = nulEscaped(kind), nulEscaped(name), nulEscaped(ns)
	if md != nil && md.kind == 'o' && namespaced && ns == "" {
		if v := md.get("namespace"); v == nil || v.kind == 'z' || v.kind == 's' {
			ns = "default"
		}
	}
	if name == "" {
		if gen := nulEscaped(md.str("generateName")); gen != "" {
			if ns != "" {
				return kind + "/" + ns + "/" + gen + "*"
			}
			return kind + "/" + gen + "*"
		}
		return "<unnamed " + kind + ">"
	}
	if ns != "" {
		return kind + "/" + ns + "/" + name
	}
	return kind + "/" + name
}

var goFieldRe = regexp.MustCompile(`Go struct field [A-Za-z0-9_]+\.([A-Za-z0-9_.]+) of type`)
var indexRe = regexp.MustCompile(`\[[^\]]*\]`)

// verdict of one object's comparison
type verdict int

const (
	same        verdict = iota // the same problems
	sameVerdict                // both refuse it; the messages cannot be compared (decoding errors)
	beyondLimit                // nested deeper than the tools read (see compareObject)
	differ
)

// compareObject compares one object's problems (texts after the object's
// name).  Upstream's decoding errors stop at the first wrong type, where
// dra-slice goes on and reports every one as "must be of type": the first
// must be among dra-slice's, and nothing else is compared for that object.
//
// dra-slice prints the first 100 problems and how many more there were
// (more): then its problems must be among upstream's, as many in all.
func compareObject(c, u []string, more int, ref string) (verdict, []string, []string) {
	for _, t := range c {
		if r := refusedReading(toolSide, t, ref); r != nil && r.beyond {
			return beyondLimit, nil, nil
		}
	}
	for _, t := range u {
		t = stripRef(t, ref)
		if ref == "" { // a whole file: each problem names its object
			t = withoutObject(t)
		}
		if !strings.HasPrefix(t, "decode: ") && !strings.HasPrefix(t, "yaml: ") {
			continue
		}
		if len(c) == 0 {
			return differ, nil, u
		}
		if m := goFieldRe.FindStringSubmatch(t); m != nil {
			for _, ct := range c {
				ct = stripRef(ct, ref)
				if ref == "" { // a whole file: each problem names its object
					ct = withoutObject(ct)
				}
				path := ct
				if i := strings.Index(ct, ": "); i >= 0 {
					path = ct[:i]
				}
				if strings.HasPrefix(indexRe.ReplaceAllString(path, ""), m[1]) && strings.Contains(ct, "must be of type") {
					return same, nil, nil
				}
			}
		}
		// both refuse it; dra-slice goes on where upstream stops (a list
		// too long is reported before its items' types)
		return sameVerdict, nil, nil
	}
	// dra-slice's reader refuses what upstream's decoder refuses (a field
	// given twice, a type): both refuse, in their own words
	if anyRefusedReading(toolSide, c, ref) && anyRefusedReading(peerSide, u, ref) {
		return sameVerdict, nil, nil
	}
	var cs, us []string
	for _, t := range c {
		cs = append(cs, normalize(t))
	}
	for _, t := range u {
		us = append(us, normalize(t))
	}
	sort.Strings(cs)
	sort.Strings(us)
	var onlyC, onlyU []string
	i, j := 0, 0
	for i < len(cs) || j < len(us) {
		switch {
		case j >= len(us) || i < len(cs) && cs[i] < us[j]:
			onlyC = append(onlyC, cs[i])
			i++
		case i >= len(cs) || us[j] < cs[i]:
			onlyU = append(onlyU, us[j])
			j++
		default:
			i++
			j++
		}
	}
	onlyC, onlyU = matchCapped(onlyC, onlyU)
	if len(onlyC) == 0 && len(onlyU) == 0 || more > 0 && len(onlyC) == 0 && len(cs)+more == len(us) {
		return same, nil, nil
	}
	return differ, onlyC, onlyU
}

// The two sides of a comparison: dra-slice, upstream-validate.
type side int

const (
	toolSide side = 1 << iota
	peerSide
)

// readRefusal: how a side says it refused a document as it read it, before
// validating any field: a problem beginning with prefix and ending with
// suffix (either may be empty).  A document both sides refuse so is refused
// by both, in their own words; the messages are not compared.
type readRefusal struct {
	sides          side
	prefix, suffix string
	// beyond: dra-slice refuses a document nested deeper than 64 levels
	// as it reads it (its documented limit; no object of the API comes
	// near), where Go's decoder reads to 10,000 levels: such a case is
	// not compared at all
	beyond bool
}

// readRefusals: every way either side refuses a document unread.
var readRefusals = []readRefusal{
	{sides: toolSide, suffix: "nesting deeper than 64 levels", beyond: true},
	{sides: toolSide | peerSide, prefix: "invalid JSON: "},
	{sides: toolSide | peerSide, prefix: "duplicate field "},
	{sides: toolSide, prefix: "invalid YAML: "},
	{sides: peerSide, prefix: "yaml: "},
	{sides: peerSide, prefix: "decode: "},
	// .inf and .nan: dra-slice's reader refuses them; sigs.k8s.io/yaml's
	// json.Marshal does too, "json: unsupported value: NaN", without a line
	{sides: toolSide, suffix: " cannot be represented in JSON"},
	{sides: peerSide, prefix: "json: unsupported value: "},
	// the API server refuses a document without kind or apiVersion, or with
	// one that is not a string, before it decodes it (dra-slice's reader
	// refuses the integer past int64 such a mutation makes)
	{sides: peerSide, prefix: "kind: Required value: object has no kind"},
	{sides: peerSide, prefix: "apiVersion: Required value: object has no apiVersion"},
	{sides: peerSide, prefix: "kind: Invalid value: ", suffix: ": must be of type string"},
	{sides: peerSide, prefix: "apiVersion: Invalid value: ", suffix: ": must be of type string"},
}

// refusedReading: the way side refused a document unread with problem t
// (after its object's name, ref, or in a whole file any object's), or nil.
func refusedReading(s side, t, ref string) *readRefusal {
	t = stripRef(t, ref)
	for _, text := range []string{t, withoutObject(t)} {
		for i := range readRefusals {
			r := &readRefusals[i]
			if r.sides&s != 0 && strings.HasPrefix(text, r.prefix) && strings.HasSuffix(text, r.suffix) &&
				len(text) >= len(r.prefix)+len(r.suffix) {
				return r
			}
		}
	}
	return nil
}

// anyRefusedReading: whether one of side's problems refuses its document unread.
func anyRefusedReading(s side, problems []string, ref string) bool {
	for _, t := range problems {
		if refusedReading(s, t, ref) != nil {
			return true
		}
	}
	return false
}

// normalize: what must be left out of a problem to compare it (the place
// of the first of two objects of one name is a field's line in dra-slice,
// the document's in upstream-validate).
func normalize(text string) string {
	if i := strings.Index(text, ", first defined at "); i >= 0 && strings.Contains(text[:i], "duplicate object ") {
		return text[:i]
	}
	return sortedGateErrors(generatedRe.ReplaceAllString(text, "${1}*****${2}"))
}

// sortedGateErrors: a --feature-gates list refused with several errors,
// "[e1, e2]" as utilerrors.NewAggregate prints them, in sorted order.
// Upstream's order is a Go map's, random: unsafeSetFromMap ranges over the
// gates given, and the dependency check over a map too (k8s.io/component-base
// featuregate/feature_gate.go); dra-slice names them in the list's order.
func sortedGateErrors(text string) string {
	if !strings.HasPrefix(text, "[") || !strings.HasSuffix(text, "]") {
		return text
	}
	var msgs []string
	for _, p := range strings.Split(text[1:len(text)-1], ", ") {
		if len(msgs) > 0 && !gateErrorRe.MatchString(p) { // an error's own ", "
			msgs[len(msgs)-1] += ", " + p
			continue
		}
		msgs = append(msgs, p)
	}
	if !gateErrorRe.MatchString(msgs[0]) {
		return text
	}
	sort.Strings(msgs)
	return "[" + strings.Join(msgs, ", ") + "]"
}

// gateErrorRe: how each error of featuregate's Set begins.
var gateErrorRe = regexp.MustCompile(`^(cannot set feature gate |unrecognized feature gate: |[A-Za-z0-9]+ is enabled$)`)

// generatedRe: the name the API server generated for an object with only
// generateName (named "prefix*"), in a problem of metadata.name.  Its last
// 5 characters are random (k8s.io/apiserver pkg/storage/names,
// SimpleNameGenerator: utilrand.String(5)); dra-slice writes "*****" for
// them, and so does the comparison for upstream's.
var generatedRe = regexp.MustCompile(`^(.*\*: metadata\.name: Invalid value: ".*)[bcdfghjklmnpqrstvwxz2456789]{5}(": .*)$`)

var cappedRe = regexp.MustCompile(`\.\.\.\((\d+) more bytes\)`)

// cappedMatch: whether u is c with each "...(N more bytes)" of c standing
// for N bytes of u.
func cappedMatch(c, u string) bool {
	p, last := 0, 0
	for _, m := range cappedRe.FindAllStringSubmatchIndex(c, -1) {
		lit := c[last:m[0]]
		if !strings.HasPrefix(u[p:], lit) {
			return false
		}
		n, _ := strconv.Atoi(c[m[2]:m[3]])
		p += len(lit) + n
		if p > len(u) {
			return false
		}
		last = m[1]
	}
	return u[p:] == c[last:]
}

// matchCapped pairs dra-slice's problems whose long parts it cut
// ("...(N more bytes)": object names, values and messages are capped in
// print) with upstream's that read the same elsewhere.
func matchCapped(onlyC, onlyU []string) ([]string, []string) {
	var restC []string
	for _, c := range onlyC {
		found := -1
		if cappedRe.MatchString(c) {
			for j, u := range onlyU {
				if cappedMatch(c, u) {
					found = j
					break
				}
			}
		}
		if found < 0 {
			restC = append(restC, c)
			continue
		}
		onlyU = append(onlyU[:found:found], onlyU[found+1:]...)
	}
	return restC, onlyU
}

func stripRef(text, ref string) string {
	if strings.HasPrefix(text, ref+": ") {
		return text[len(ref)+2:]
	}
	return text
}

func describe(onlyC, onlyU []string) string {
	var b strings.Builder
	for _, t := range onlyC {
		fmt.Fprintf(&b, "    dra-slice only: %s\n", indent(t))
	}
	for _, t := range onlyU {
		fmt.Fprintf(&b, "    upstream only:  %s\n", indent(t))
	}
	return b.String()
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n                    ") }

// A List's item named by its place (items[0] <unnamed A>, items[1].items[0]
// DeviceClass/x).
var itemRefRe = regexp.MustCompile(`^items\[\d+\](?:\.items\[\d+\])* `)

// withoutObject: a whole file's problem without the name of its object
// (Kind/name, Kind/namespace/name, <unnamed ...>, a List's item before
// one of these).
func withoutObject(t string) string {
	u := itemRefRe.ReplaceAllString(t, "")
	if i := strings.Index(u, ": "); i >= 0 && (strings.Contains(u[:i], "/") || strings.HasPrefix(u, "<")) {
		return u[i+2:]
	}
	return t
}

// sameDocs: whether two problem lists name the same documents (the texts
// are compared apart, a decoding error of upstream's standing for the
// several problems dra-slice finds in its document).
func sameDocs(c, u []problem) bool {
	docs := func(ps []problem) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.doc)
		}
		sort.Strings(out)
		return slices.Compact(out)
	}
	return slices.Equal(docs(c), docs(u))
}

// withDocs: the problems' texts, each after its document's number.
func withDocs(ps []problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, strings.TrimSpace(p.doc+" "+p.text))
	}
	return out
}

package main

// Running many cases with few processes of each tool: every case is a file
// of its own (a reading error stops only its file, as a document's would
// stop a JSON Lines batch), the files of a group are named to one run of
// each tool, and what the tools print is split by file.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// splitByFile splits a tool's standard error by the file each problem
// names (warnings and notes without a file are dropped); ok is false when
// a problem names no file of files, or a count of problems left out is
// printed: then the files must be run one by one.
func splitByFile(out, prog string, files []string) (map[string]string, bool) {
	known := make(map[string]bool, len(files))
	for _, f := range files {
		known[f] = true
	}
	by := map[string]*strings.Builder{}
	var cur *strings.Builder
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if l == "" && cur == nil {
			continue
		}
		if !strings.HasPrefix(l, prog+": ") {
			if cur != nil {
				cur.WriteString(l + "\n")
			}
			continue
		}
		rest := strings.TrimPrefix(l, prog+": ")
		warn := strings.HasPrefix(rest, "warning: ")
		f := strings.TrimPrefix(rest, "warning: ")
		if i := strings.IndexByte(f, ':'); i >= 0 && known[f[:i]] {
			f = f[:i]
		} else {
			f = ""
		}
		if f == "" {
			if warn || verboseNoteRe.MatchString(rest) {
				cur = nil
				continue
			}
			return nil, false
		}
		if by[f] == nil {
			by[f] = &strings.Builder{}
		}
		cur = by[f]
		cur.WriteString(l + "\n")
	}
	m := make(map[string]string, len(by))
	for f, b := range by {
		m[f] = b.String()
	}
	return m, true
}

// runGroup validates cases, each as a JSON Lines file of one line: the
// peer in one run (--each-file: each file as if alone), dra-slice in runs
// of files without two objects of one name (it would report the second as
// a duplicate) nor a Namespace beside other kinds (a claim's admin access
// looks its Namespace up).  A tool's output that cannot be split by file
// is made again one file at a time.
func (r *runner) runGroup(cases []*testCase, gates string) {
	r.mu.Lock()
	r.nbatch++
	dir := filepath.Join(*work, "batches", fmt.Sprintf("g%05d", r.nbatch))
	r.mu.Unlock()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	files := make([]string, len(cases))
	type sub struct {
		files []string
		keys  map[string]bool
		ns    bool
	}
	var subs []*sub
	for i, c := range cases {
		files[i] = filepath.Join(dir, fmt.Sprintf("c%04d.jsonl", i))
		if err := os.WriteFile(files[i], []byte(c.text+"\n"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		key := c.ref
		named := !strings.HasPrefix(key, "<") && !strings.HasSuffix(key, "*")
		ns := c.obj.str("kind") == "Namespace"
		var in *sub
		for _, s := range subs {
			if s.ns == ns && !(named && s.keys[key]) {
				in = s
				break
			}
		}
		if in == nil {
			in = &sub{keys: map[string]bool{}, ns: ns}
			subs = append(subs, in)
		}
		in.files = append(in.files, files[i])
		in.keys[key] = true
	}
	cm := map[string]string{}
	for _, s := range subs {
		for f, out := range r.runSplit(*draSlice, "dra-slice", s.files, gates) {
			cm[f] = out
		}
	}
	um := r.runSplit(*peer, "upstream-validate", files, gates)
	for i, c := range cases {
		cp, more := parseOutput(cm[files[i]], "dra-slice", files[i])
		up, _ := parseOutput(um[files[i]], "upstream-validate", files[i])
		r.judge(c, cp, up, more)
	}
	_ = os.RemoveAll(dir)
}

// runSplit runs one tool over files, its output split by file.
func (r *runner) runSplit(bin, prog string, files []string, gates string) map[string]string {
	r.sem <- struct{}{}
	out, _ := runTool(bin, gates, files...)
	<-r.sem
	if len(files) == 1 {
		return map[string]string{files[0]: out}
	}
	m, ok := splitByFile(out, prog, files)
	if ok {
		return m
	}
	if gateError(out, prog) {
		// refused before any file was read: each file alone gets the same
		m = map[string]string{}
		for _, f := range files {
			m[f] = out
		}
		return m
	}
	r.mu.Lock()
	r.nsplit++
	r.mu.Unlock()
	m = map[string]string{}
	for _, f := range files {
		m[f] = r.runSplit(bin, prog, []string{f}, gates)[f]
	}
	return m
}

// gateError: whether a tool's output, but for its notes, is its refusal
// of the --feature-gates list (one line: featuregate's Set's errors,
// alone or "[e1, e2]"), which names no file.
func gateError(out, prog string) bool {
	n := 0
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		rest, ok := strings.CutPrefix(l, prog+": ")
		switch {
		case !ok:
			return false
		case verboseNoteRe.MatchString(rest):
		case gateErrorRe.MatchString(strings.TrimPrefix(rest, "[")):
			n++
		default:
			return false
		}
	}
	return n == 1
}

// runFiles runs both tools over files, each tool's output split by file.
func (r *runner) runFiles(files []string, gates string) [2]map[string]string {
	return [2]map[string]string{r.runSplit(*draSlice, "dra-slice", files, gates),
		r.runSplit(*peer, "upstream-validate", files, gates)}
}

// judge compares one case's problems, as both tools printed them.
func (r *runner) judge(c *testCase, cprobs, uprobs []problem, more int) {
	// texts keep their object's name; a strict decoding error names the
	// object before its namespace is defaulted (dra-slice), which is
	// written as the other problems name it
	texts := func(ps []problem) []string {
		var out []string
		for _, p := range ps {
			t := p.text
			if c.ref0 != c.ref && strings.HasPrefix(t, c.ref0+": ") {
				t = c.ref + t[len(c.ref0):]
			}
			out = append(out, t)
		}
		return out
	}
	cs, us := texts(cprobs), texts(uprobs)
	v, oc, ou := compareObject(cs, us, more, c.ref)
	if c.dup && v == differ && len(cs) > 0 && (len(us) > 0 || !validated[groupKind(c.obj)] && onlyDuplicates(cs)) {
		// a field given twice: dra-slice's reader refuses the document,
		// the API server's decoder the object; both refuse (an object of
		// a kind neither validates is skipped by upstream-validate, and
		// refused by dra-slice's reader before its kind is looked at)
		v, oc, ou = sameVerdict, nil, nil
	}
	r.mu.Lock()
	r.results = append(r.results, result{c, v, oc, ou})
	r.mu.Unlock()
}

// onlyDuplicates: whether every problem is a field given twice.
func onlyDuplicates(ps []string) bool {
	for _, p := range ps {
		if !strings.HasPrefix(stripRef(p, ""), "duplicate field ") && !strings.Contains(p, ": duplicate field ") {
			return false
		}
	}
	return true
}

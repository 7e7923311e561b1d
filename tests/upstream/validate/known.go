package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// A disagreement where upstream itself is wrong (tests/upstream/validate/
// KNOWN): counted apart from the failures, and reported in full.
type knownEntry struct {
	name string         // its first word
	why  string         // the rest of its first line: what upstream gets wrong, and its issue
	re   *regexp.Regexp // matched against the disagreement's lines
}

// loadKnown reads KNOWN: blank lines and lines starting with # are
// comments; an entry is a line "NAME why..." and, indented below it, a
// regular expression that a disagreement's "dra-slice only"/"upstream
// only" lines must match (a missing file is no entries).
func loadKnown(path string) ([]knownEntry, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []knownEntry
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if l[0] != ' ' && l[0] != '\t' {
			name, why, _ := strings.Cut(t, " ")
			out = append(out, knownEntry{name: name, why: strings.TrimSpace(why)})
			continue
		}
		if len(out) == 0 || out[len(out)-1].re != nil {
			return nil, fmt.Errorf("%s:%d: a pattern needs an entry line above it, one pattern per entry", path, n)
		}
		re, err := regexp.Compile(t)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		out[len(out)-1].re = re
	}
	for _, k := range out {
		if k.re == nil {
			return nil, fmt.Errorf("%s: entry %s has no pattern", path, k.name)
		}
	}
	return out, sc.Err()
}

// matchKnown: the entry whose pattern matches a disagreement (describe's
// text), or -1.
func matchKnown(known []knownEntry, desc string) int {
	for i, k := range known {
		if k.re.MatchString(desc) {
			return i
		}
	}
	return -1
}

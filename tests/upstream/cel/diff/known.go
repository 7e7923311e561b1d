package main

// Disagreements that are upstream's own bugs, listed in
// tests/upstream/cel/KNOWN and counted apart from failures.

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// knownBug is one line of KNOWN: the fields that differ (as category
// names them, or "*" for any), the expressions it covers and why
// upstream is wrong.
type knownBug struct {
	fields string
	expr   *regexp.Regexp
	why    string
}

// readKnown reads path; a missing file lists nothing.
func readKnown(path string) ([]knownBug, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []knownBug
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		t := sc.Text()
		if strings.TrimSpace(t) == "" || strings.HasPrefix(t, "#") {
			continue
		}
		parts := strings.SplitN(t, "\t", 3)
		if len(parts) != 3 || parts[0] == "" || parts[2] == "" {
			return nil, fmt.Errorf("%s:%d: want FIELDS<TAB>REGEXP<TAB>WHY", path, line)
		}
		re, err := regexp.Compile(parts[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		out = append(out, knownBug{parts[0], re, parts[2]})
	}
	return out, sc.Err()
}

// matchKnown is the entry covering a disagreement in fields on expr, or nil.
func matchKnown(known []knownBug, expr, fields string) *knownBug {
	for i := range known {
		if (known[i].fields == "*" || known[i].fields == fields) && known[i].expr.MatchString(expr) {
			return &known[i]
		}
	}
	return nil
}

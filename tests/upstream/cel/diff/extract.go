package main

// Selectors written in the project: every `expression:` of a YAML or JSON
// object (DeviceClass, ResourceClaim and template selectors, also inside
// bats heredocs and C string literals), and every expression given to
// dra-select on a command line in bats files, scripts, docs and man pages
// (-e/--expr values, `eval` and `check` arguments, --var values).
// Expressions that contain a shell expansion ($...) are left out.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/yaml"
)

type extracted struct {
	expr, where string // where: first file:line it was found at
}

var (
	reYAMLExpr = regexp.MustCompile(`(?:^|[\s{,-])expression:\s*(.*)$`)
	reJSONExpr = regexp.MustCompile(`"expression"\s*:\s*("(?:[^"\\]|\\.)*")`)
	reCString  = regexp.MustCompile(`"((?:[^"\\\n]|\\.)*)"`)
	reShellVar = regexp.MustCompile(`\$[A-Za-z_{(]`)
)

// extractSelectors walks dirs under root.
func extractSelectors(root string, dirs []string) []extracted {
	seen := map[string]bool{}
	var out []extracted
	add := func(expr, where string) {
		expr = strings.TrimSpace(expr)
		// A NUL never reaches the CEL: the project's readers refuse it
		// (tests/bats/robustness-input.bats, cel-nul.json), and a command
		// line cannot hold one.
		if expr == "" || seen[expr] || reShellVar.MatchString(expr) || strings.ContainsRune(expr, 0) {
			return
		}
		seen[expr] = true
		out = append(out, extracted{expr, where})
	}
	var paths []string
	for _, d := range dirs {
		_ = filepath.WalkDir(filepath.Join(root, d), func(p string, e os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if e.IsDir() {
				if n := e.Name(); n == "node_modules" || n == "seeds" || n == "cel-diff" || n == "cel-conformance" {
					return filepath.SkipDir
				}
				return nil
			}
			paths = append(paths, p)
			return nil
		})
	}
	sort.Strings(paths)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || bytes.IndexByte(data, 0) >= 0 || len(data) > 4<<20 {
			continue
		}
		rel, _ := filepath.Rel(root, p)
		text := string(data)
		if strings.HasSuffix(p, ".c") || strings.HasSuffix(p, ".h") {
			text = cStrings(text)
		}
		lines := strings.Split(text, "\n")
		for i, line := range lines {
			where := rel + ":" + strconv.Itoa(i+1)
			for _, m := range reJSONExpr.FindAllStringSubmatch(line, -1) {
				var s string
				if json.Unmarshal([]byte(m[1]), &s) == nil {
					add(s, where)
				}
			}
			if m := reYAMLExpr.FindStringSubmatch(line); m != nil && !strings.HasPrefix(strings.TrimSpace(m[1]), "\"expression\"") {
				if s, ok := yamlScalar(m[1], lines[i+1:], indentOf(line)); ok {
					add(s, where)
				}
			}
			for j := i + 1; strings.HasSuffix(line, "\\") && j < len(lines); j++ {
				line = strings.TrimSuffix(line, "\\") + " " + lines[j]
			}
			if strings.HasSuffix(p, ".1") {
				line = deroff(line)
			}
			if strings.Contains(line, "dra-select") || strings.Contains(line, "S ") {
				for _, e := range commandExprs(line, strings.Contains(text, `S() { "$DRA_BIN/dra-select"`)) {
					add(e, where)
				}
			}
		}
	}
	return out
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// yamlScalar reads the value after "expression:" (plain, quoted, flow
// mapping remainder or block scalar with the lines after it).
func yamlScalar(rest string, next []string, indent int) (string, bool) {
	rest = strings.TrimSpace(rest)
	doc := "expression: " + rest
	if strings.HasPrefix(rest, "|") || strings.HasPrefix(rest, ">") {
		var b strings.Builder
		b.WriteString("expression: " + rest + "\n")
		for _, l := range next {
			if strings.TrimSpace(l) != "" && indentOf(l) <= indent {
				break
			}
			b.WriteString(l + "\n")
		}
		doc = b.String()
	}
	for _, d := range []string{doc, strings.TrimRight(doc, "} "), strings.TrimRight(strings.TrimRight(doc, "} "), ","), strings.TrimSuffix(strings.TrimRight(doc, " "), "}]")} {
		var m map[string]any
		if yaml.Unmarshal([]byte(d), &m) == nil {
			if s, ok := m["expression"].(string); ok {
				return s, true
			}
		}
	}
	return "", false
}

// cStrings is the text of a C file's string literals, unescaped, each
// followed by the rest of its line's literals (so that YAML written as
// adjacent literals reads as lines).
func cStrings(src string) string {
	var b strings.Builder
	for _, line := range strings.Split(src, "\n") {
		for _, m := range reCString.FindAllStringSubmatch(line, -1) {
			if s, err := strconv.Unquote(`"` + m[1] + `"`); err == nil {
				b.WriteString(s)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

var roff = strings.NewReplacer(`\-`, "-", `\(aq`, "'", `\(dq`, `"`, `\(ga`, "`", `\e`, `\`, `\&`, "", `\fB`, "", `\fI`, "", `\fR`, "", `\fP`, "", `\(em`, "-", `\ `, " ")

func deroff(s string) string {
	s = strings.TrimPrefix(s, ".B ")
	s = strings.TrimPrefix(s, ".IP ")
	return roff.Replace(s)
}

// shellWords splits a line as the shell would, near enough: quotes,
// backslashes, and the operators | ; & < > ( ) as words of their own.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	in := false
	flush := func() {
		if in {
			words = append(words, cur.String())
		}
		cur.Reset()
		in = false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return words
			}
			cur.WriteString(line[i+1 : i+1+j])
			in = true
			i += j + 1
		case c == '"':
			in = true
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(line[i])
			}
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			in = true
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !in:
			flush()
			return words
		case strings.IndexByte("|;&<>()", c) >= 0:
			flush()
			words = append(words, string(c))
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	flush()
	return words
}

// Options of dra-select that take a value.
var valued = map[string]bool{"-c": true, "--class": true, "-e": true, "--expr": true, "--claim": true, "-n": true,
	"--namespace": true, "-r": true, "--request": true, "--var": true, "-d": true, "--device": true,
	"--feature-gates": true, "-o": true, "--output": true, "--validate": true, "--explain": false}

func commandExprs(line string, sHelper bool) []string {
	w := shellWords(line)
	var out []string
	for i := 0; i < len(w); i++ {
		base := filepath.Base(w[i])
		if base != "dra-select" && !(sHelper && w[i] == "S") {
			continue
		}
		sub := ""
		for j := i + 1; j < len(w) && !isOperator(w[j]); j++ {
			a := w[j]
			switch {
			case a == "-e" || a == "--expr":
				if j+1 < len(w) {
					out = append(out, w[j+1])
				}
				j++
			case strings.HasPrefix(a, "--expr="):
				out = append(out, strings.TrimPrefix(a, "--expr="))
			case a == "--var":
				if j+1 < len(w) {
					if _, cel, ok := strings.Cut(w[j+1], "="); ok {
						out = append(out, cel)
					}
				}
				j++
			case valued[a]:
				j++
			case strings.HasPrefix(a, "-"):
			case sub == "" && (a == "eval" || a == "check" || a == "select" || a == "lint" || a == "repl"):
				sub = a
			case sub == "eval":
				out = append(out, a)
				sub = "eval-done"
			case sub == "check":
				out = append(out, a)
			}
		}
	}
	return out
}

func isOperator(w string) bool { return len(w) == 1 && strings.IndexByte("|;&<>()", w[0]) >= 0 }

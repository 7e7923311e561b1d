package main

// Comparing one expression's answers, field by field.

import (
	"sort"
	"strings"
)

type diff struct {
	field, c, up string
}

func str(p *string) string {
	if p == nil {
		return "<none>"
	}
	return *p
}

func compareCompiled(prefix string, c, u compiled, out *[]diff) {
	add := func(f, a, b string) {
		if a != b {
			*out = append(*out, diff{prefix + "." + f, a, b})
		}
	}
	add("error", c.Error, u.Error)
	if c.Error == "" && u.Error == "" {
		add("type", c.Type, u.Type)
		add("min", string(c.Min), string(u.Min))
		add("max", string(c.Max), string(u.Max))
	}
}

// compare lists where the C answer (c) differs from upstream's (u).
func compare(c, u response) []diff {
	var out []diff
	if u.Panic != "" || u.Timeout != "" { // nothing to compare with
		return nil
	}
	if c.Timeout != "" { // the tools' failure
		return []diff{{"timeout", c.Timeout, "an answer"}}
	}
	compareCompiled("stored", c.Stored, u.Stored, &out)
	compareCompiled("new", c.New, u.New, &out)
	if c.Eval.Compile != u.Eval.Compile {
		out = append(out, diff{"eval.compile", c.Eval.Compile, u.Eval.Compile})
	}
	// What upstream itself does not do the same way twice (the order of
	// a Go map) is not compared.
	if c.Eval.Compile == "" && u.Eval.Compile == "" && u.Unstable == "" {
		if str(c.Eval.Error) != str(u.Eval.Error) {
			out = append(out, diff{"eval.error", str(c.Eval.Error), str(u.Eval.Error)})
		} else if str(c.Eval.Value) != str(u.Eval.Value) {
			out = append(out, diff{"eval.value", str(c.Eval.Value), str(u.Eval.Value)})
		}
		if c.Eval.Cost != "" && u.Eval.Cost != "" && c.Eval.Cost != u.Eval.Cost {
			out = append(out, diff{"eval.cost", string(c.Eval.Cost), string(u.Eval.Cost)})
		}
	}
	return out
}

// category names the fields that differ, e.g. "eval.cost,stored.max".
func category(ds []diff) string {
	var fs []string
	for _, d := range ds {
		fs = append(fs, d.field)
	}
	sort.Strings(fs)
	return strings.Join(fs, ",")
}

package main

// Shrinking a generated disagreement: replace a node by one of its kids
// or by the simplest value of its type, and drop the device, for as long
// as the two sides still disagree in the same fields.

import (
	"strings"
)

// simplest is the smallest expression of type t.
func simplest(t typ) string {
	switch t.k {
	case kBool:
		return "true"
	case kInt:
		return "1"
	case kUint:
		return "1u"
	case kDouble:
		return "1.0"
	case kString:
		return `"a"`
	case kBytes:
		return `b"a"`
	case kList:
		return "[" + simplest(*t.elem) + "]"
	case kMap:
		return `{"a": ` + simplest(*t.elem) + "}"
	case kOpt:
		return "optional.none()"
	case kSemver:
		return `semver("1.0.0")`
	case kQuantity:
		return `quantity("1")`
	case kDuration:
		return `duration("1s")`
	case kTimestamp:
		return `timestamp("2024-01-01T00:00:00Z")`
	case kIP:
		return `ip("10.0.0.1")`
	case kCIDR:
		return `cidr("10.0.0.0/8")`
	case kURL:
		return `url("https://example.com")`
	case kDyn:
		return "dyn(1)"
	}
	return "null"
}

// nodes lists every node of the tree with a setter that replaces it.
func nodes(root **node) []**node {
	out := []**node{root}
	for i := 0; i < len(out); i++ {
		n := *out[i]
		for k := range n.kids {
			out = append(out, &n.kids[k])
		}
	}
	return out
}

func shrink(c, u *proc, f failure) failure {
	if f.it.tree == nil {
		return f
	}
	want := category(f.diffs)
	try := func(it item) (failure, bool) {
		cr, err1 := c.ask(it.req)
		ur, err2 := u.ask(it.req)
		if err1 != nil || err2 != nil {
			return f, false
		}
		ds := compare(cr, ur)
		if category(ds) != want {
			return f, false
		}
		return failure{it, ds, cr, ur}, true
	}
	best := f
	tree := f.it.tree
	for budget, progress := 400, true; progress && budget > 0; {
		progress = false
		for _, slot := range nodes(&tree) {
			if budget <= 0 {
				break
			}
			orig := *slot
			var cands []*node
			for _, k := range orig.kids {
				cands = append(cands, k)
			}
			if s := simplest(orig.t); orig.String() != s && (len(orig.kids) > 0 || len(orig.tpl) > len(s)) {
				cands = append(cands, leaf(orig.t, s))
			}
			for _, cand := range cands {
				budget--
				*slot = cand
				it := best.it
				it.tree = tree
				it.req.Expr = tree.String()
				if len(it.req.Expr) < len(best.it.req.Expr) {
					if nf, ok := try(it); ok {
						best = nf
						progress = true
						break
					}
				}
				*slot = orig
			}
			if progress {
				break
			}
		}
	}
	// Drop the device when the expression does not use it.
	if best.it.dev != nil && !strings.Contains(best.it.req.Expr, "device") {
		it := best.it
		it.dev, it.req.Driver, it.req.Device = nil, "", nil
		if nf, ok := try(it); ok {
			best = nf
		}
	}
	return best
}

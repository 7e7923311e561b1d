package main

// A seeded random generator of CEL expressions over a DRA device: typed
// productions for every type the DRA environment has (bool, int, uint,
// double, string, bytes, lists, maps, optionals, semver, quantity,
// durations, timestamps, IP, CIDR, URL, dyn attributes), with the macros
// and the libraries Kubernetes enables (strings v2, lists v3 and the
// Kubernetes lists, sets, regex, quantity, semver, IP/CIDR, URL, format,
// two-variable comprehensions, cel.bind, optionals).  A few holes are
// filled with a value of the wrong type on purpose, and the leaves are
// chosen to reach the error paths: division by zero, overflow, bad
// conversions, missing keys, indexes out of range, bad regexes, costs
// past the limit.
//
// Expressions are trees (node) so that a disagreement can be shrunk.

import (
	"math/rand"
	"strconv"
	"strings"
)

type kind int

const (
	kBool kind = iota
	kInt
	kUint
	kDouble
	kString
	kBytes
	kList
	kMap
	kOpt
	kSemver
	kQuantity
	kDuration
	kTimestamp
	kIP
	kCIDR
	kURL
	kDyn
	kNull
	nKinds
)

type typ struct {
	k    kind
	elem *typ // list element, map value, optional value
}

func (t typ) String() string {
	names := [...]string{"bool", "int", "uint", "double", "string", "bytes", "list", "map", "optional", "semver",
		"quantity", "duration", "timestamp", "ip", "cidr", "url", "dyn", "null"}
	if t.elem != nil {
		return names[t.k] + "(" + t.elem.String() + ")"
	}
	return names[t.k]
}

func (t typ) eq(u typ) bool {
	if t.k != u.k || (t.elem == nil) != (u.elem == nil) {
		return false
	}
	return t.elem == nil || t.elem.eq(*u.elem)
}

var (
	tBool, tInt, tUint, tDouble = typ{k: kBool}, typ{k: kInt}, typ{k: kUint}, typ{k: kDouble}
	tString, tBytes, tDyn       = typ{k: kString}, typ{k: kBytes}, typ{k: kDyn}
	tSemver, tQuantity          = typ{k: kSemver}, typ{k: kQuantity}
	tDuration, tTimestamp       = typ{k: kDuration}, typ{k: kTimestamp}
	tIP, tCIDR, tURL, tNull     = typ{k: kIP}, typ{k: kCIDR}, typ{k: kURL}, typ{k: kNull}
)

func listOf(e typ) typ { return typ{k: kList, elem: &e} }
func mapOf(e typ) typ  { return typ{k: kMap, elem: &e} }
func optOf(e typ) typ  { return typ{k: kOpt, elem: &e} }

// node: text with $0, $1, ... standing for the kids.
type node struct {
	t    typ
	tpl  string
	kids []*node
}

func (n *node) String() string {
	if len(n.kids) == 0 {
		return n.tpl
	}
	var b strings.Builder
	for i := 0; i < len(n.tpl); i++ {
		c := n.tpl[i]
		if c == '$' && i+1 < len(n.tpl) && n.tpl[i+1] >= '0' && n.tpl[i+1] <= '9' {
			kid := n.kids[int(n.tpl[i+1]-'0')]
			s := kid.String()
			if len(kid.kids) > 0 || strings.ContainsAny(s, " ") || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "!") {
				s = "(" + s + ")"
			}
			b.WriteString(s)
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func (n *node) size() int {
	s := 1
	for _, k := range n.kids {
		s += k.size()
	}
	return s
}

type binding struct {
	name string
	t    typ
}

type gen struct {
	r     *rand.Rand
	scope []binding
	vars  int
	// rangeArgs, when set, are the only arguments of lists.range
	// (release.go).
	rangeArgs []string
}

func newGen(seed int64) *gen { return &gen{r: rand.New(rand.NewSource(seed))} }

func (g *gen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }
func (g *gen) chance(p float64) bool    { return g.r.Float64() < p }

// Scalar element types lists and maps are made of.
func (g *gen) scalar() typ {
	ts := []typ{tInt, tString, tBool, tDouble, tUint, tSemver, tQuantity, tBytes, tDuration}
	w := []int{6, 6, 3, 2, 1, 2, 2, 1, 1}
	return ts[g.weighted(w)]
}

func (g *gen) weighted(w []int) int {
	sum := 0
	for _, x := range w {
		sum += x
	}
	n := g.r.Intn(sum)
	for i, x := range w {
		if n < x {
			return i
		}
		n -= x
	}
	return len(w) - 1
}

// anyType: a random type for a hole that takes anything.
func (g *gen) anyType(depth int) typ {
	switch g.r.Intn(10) {
	case 0:
		if depth > 1 {
			return listOf(g.scalar())
		}
	case 1:
		if depth > 1 {
			return mapOf(g.scalar())
		}
	case 2:
		return tDyn
	}
	return g.scalar()
}

// ---- device access ----

var (
	domains   = []string{"gpu.example.com", "gpu.example.com", "gpu.example.com", "other.example.com", "missing.example.com"}
	intAttrs  = []string{"cores", "index", "memory", "rack"}
	strAttrs  = []string{"model", "family", "zone"}
	boolAttrs = []string{"ecc", "virt"}
	verAttrs  = []string{"driverVersion", "fw"}
	listAttrs = map[kind][]string{kInt: {"numa"}, kString: {"tags"}, kBool: {"flags"}, kSemver: {"compat"}}
	capNames  = []string{"memory", "cores", "bandwidth", "slices", "nosuch"}
)

func (g *gen) domain() string { return strconv.Quote(g.pick(domains...)) }

// attr: device.attributes[D].name in one of its spellings.
func (g *gen) attr(name string) string {
	d := g.domain()
	switch g.r.Intn(6) {
	case 0:
		return "device.attributes[" + d + "][" + strconv.Quote(name) + "]"
	case 1:
		return "device.attributes[" + d + "][?" + strconv.Quote(name) + "].orValue(" + g.pick("0", `""`, "false", "dyn(null)") + ")"
	}
	return "device.attributes[" + d + "]." + name
}

func (g *gen) attrOf(t typ) (string, bool) {
	var names []string
	switch t.k {
	case kInt:
		names = intAttrs
	case kString:
		names = strAttrs
	case kBool:
		names = boolAttrs
	case kSemver:
		names = verAttrs
	case kList:
		names = listAttrs[t.elem.k]
	case kDyn:
		names = append(append(append([]string{}, intAttrs...), strAttrs...), verAttrs...)
	}
	if len(names) == 0 {
		return "", false
	}
	if g.chance(0.05) { // sometimes the wrong kind of attribute
		names = append(append([]string{}, strAttrs...), intAttrs...)
	}
	return g.attr(g.pick(names...)), true
}

func (g *gen) capacity() string {
	d := g.domain()
	n := g.pick(capNames...)
	if g.chance(0.3) {
		return "device.capacity[" + d + "][" + strconv.Quote(n) + "]"
	}
	return "device.capacity[" + d + "]." + n
}

// ---- leaves ----

func leaf(t typ, s string) *node { return &node{t: t, tpl: s} }

func (g *gen) scoped(t typ) (string, bool) {
	var names []string
	for _, b := range g.scope {
		if b.t.eq(t) || t.k == kDyn {
			names = append(names, b.name)
		}
	}
	if len(names) == 0 {
		return "", false
	}
	return g.pick(names...), true
}

func (g *gen) leaf(t typ) *node {
	if v, ok := g.scoped(t); ok && g.chance(0.5) {
		return leaf(t, v)
	}
	if a, ok := g.attrOf(t); ok && g.chance(0.25) {
		return leaf(t, a)
	}
	switch t.k {
	case kBool:
		if g.chance(0.15) {
			return leaf(t, "device.allowMultipleAllocations")
		}
		return leaf(t, g.pick("true", "false"))
	case kInt:
		return leaf(t, g.pick("0", "1", "2", "3", "-1", "7", "42", "-100", "1000000", "9223372036854775807",
			"-9223372036854775808", "4611686018427387904"))
	case kUint:
		return leaf(t, g.pick("0u", "1u", "7u", "18446744073709551615u", "9223372036854775808u"))
	case kDouble:
		return leaf(t, g.pick("0.0", "1.5", "-2.25", "1e100", "0.1", "-0.0", "3.0", "1e-300", "9.223372036854775807e18"))
	case kString:
		if g.chance(0.1) {
			return leaf(t, "device.driver")
		}
		return leaf(t, g.pick(`""`, `"a"`, `"gpu"`, `"A100"`, `"ñandú"`, `"a b c"`, `"1.2.3"`, `"v1.2"`, `"10Gi"`,
			`"1.5"`, `"x\ny"`, `"10.0.0.1"`, `"::1"`, `"10.0.0.0/8"`, `"https://example.com:8080/p?q=1"`,
			`"dns-label"`, `"Bad_Label"`, `"a,b,c"`, `"[a-z]+"`, `"(["`, `"\u00e9\U0001F600"`, `"  pad  "`, `"-12"`, `"abc"`))
	case kBytes:
		return leaf(t, g.pick(`b""`, `b"abc"`, `b"\xff\x00"`, `b"ñ"`))
	case kSemver:
		return leaf(t, g.pick(`semver("1.2.3")`, `semver("0.0.1")`, `semver("2.0.0-rc.1+build.5")`, `semver("1.2", true)`,
			`semver("v1.10.0", true)`))
	case kQuantity:
		if g.chance(0.3) {
			return leaf(t, g.capacity())
		}
		return leaf(t, g.pick(`quantity("1Gi")`, `quantity("500m")`, `quantity("8")`, `quantity("1.5")`, `quantity("100M")`,
			`quantity("0")`, `quantity("1e3")`, `quantity("9223372036854775807")`, `quantity("-2Ki")`, `quantity("1Ei")`))
	case kDuration:
		return leaf(t, g.pick(`duration("1h")`, `duration("1.5s")`, `duration("-30m")`, `duration("0s")`, `duration("1ns")`))
	case kTimestamp:
		return leaf(t, g.pick(`timestamp("2024-01-01T00:00:00Z")`, `timestamp("1970-01-01T00:00:00.5Z")`,
			`timestamp("9999-12-31T23:59:59Z")`))
	case kIP:
		return leaf(t, g.pick(`ip("10.0.0.1")`, `ip("::1")`, `ip("fe80::1")`, `ip("127.0.0.1")`, `ip("0.0.0.0")`))
	case kCIDR:
		return leaf(t, g.pick(`cidr("10.0.0.0/8")`, `cidr("::1/128")`, `cidr("192.168.0.0/16")`, `cidr("10.1.2.3/8")`))
	case kURL:
		return leaf(t, g.pick(`url("https://example.com/x")`, `url("http://user@h:80/p?q=1#f")`, `url("/rel/path")`))
	case kNull:
		return leaf(t, "null")
	case kDyn:
		if a, ok := g.attrOf(t); ok && g.chance(0.6) {
			return leaf(t, a)
		}
		return &node{t: t, tpl: "dyn($0)", kids: []*node{g.leaf(g.scalar())}}
	case kList:
		if g.chance(0.2) {
			return leaf(t, "[]")
		}
		n := 1 + g.r.Intn(3)
		var kids []*node
		var parts []string
		for i := 0; i < n; i++ {
			kids = append(kids, g.leaf(*t.elem))
			parts = append(parts, "$"+strconv.Itoa(i))
		}
		return &node{t: t, tpl: "[" + strings.Join(parts, ", ") + "]", kids: kids}
	case kMap:
		if t.elem.k == kDyn && g.chance(0.5) {
			return leaf(t, "device.attributes["+g.domain()+"]")
		}
		if t.elem.k == kQuantity && g.chance(0.5) {
			return leaf(t, "device.capacity["+g.domain()+"]")
		}
		if g.chance(0.2) {
			return leaf(t, "{}")
		}
		keys := []string{`"a"`, `"b"`, `"model"`, `"cores"`}
		n := 1 + g.r.Intn(2)
		var kids []*node
		var parts []string
		for i := 0; i < n; i++ {
			kids = append(kids, g.leaf(*t.elem))
			parts = append(parts, keys[(i+g.r.Intn(2))%len(keys)]+": $"+strconv.Itoa(i))
		}
		return &node{t: t, tpl: "{" + strings.Join(parts, ", ") + "}", kids: kids}
	case kOpt:
		if g.chance(0.3) {
			return leaf(t, "optional.none()")
		}
		return &node{t: t, tpl: "optional.of($0)", kids: []*node{g.leaf(*t.elem)}}
	}
	return leaf(t, "null")
}

// ---- productions ----

type prod struct {
	w  int
	fn func(g *gen, t typ, d int) *node // nil when it does not apply to t
}

// call builds a node from a template and the types of its holes.
func (g *gen) call(t typ, d int, tpl string, args ...typ) *node {
	n := &node{t: t, tpl: tpl}
	for _, a := range args {
		n.kids = append(n.kids, g.expr(a, d-1))
	}
	return n
}

// comp builds a macro over a range of type rt binding names of types
// bt; body is a template whose $0 is the range and $1 the body of type
// bodyT generated with the names in scope.
func (g *gen) comp(t typ, d int, rt typ, tpl string, names []string, bt []typ, bodyT ...typ) *node {
	n := &node{t: t, tpl: tpl}
	n.kids = append(n.kids, g.expr(rt, d-1))
	saved := len(g.scope)
	for i, nm := range names {
		g.scope = append(g.scope, binding{nm, bt[i]})
	}
	for _, b := range bodyT {
		n.kids = append(n.kids, g.expr(b, d-1))
	}
	g.scope = g.scope[:saved]
	return n
}

func (g *gen) fresh() string {
	g.vars++
	return g.pick("x", "y", "e", "i", "v", "k") + strconv.Itoa(g.vars%4)
}

func ordered(g *gen) typ {
	return []typ{tInt, tString, tDouble, tUint, tBool, tBytes, tDuration, tTimestamp}[g.weighted([]int{5, 4, 2, 1, 1, 1, 1, 1})]
}

var prods map[kind][]prod

func init() {
	prods = map[kind][]prod{
		kBool: {
			{8, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0 && $1", tBool, tBool) }},
			{8, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0 || $1", tBool, tBool) }},
			{3, func(g *gen, t typ, d int) *node { return g.call(t, d, "!$0", tBool) }},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0 ? $1 : $2", tBool, tBool, tBool) }},
			{10, func(g *gen, t typ, d int) *node {
				a := g.anyType(d)
				return g.call(t, d, "$0 "+g.pick("==", "!=")+" $1", a, a)
			}},
			{10, func(g *gen, t typ, d int) *node {
				a := ordered(g)
				return g.call(t, d, "$0 "+g.pick("<", "<=", ">", ">=")+" $1", a, a)
			}},
			{3, func(g *gen, t typ, d int) *node {
				ts := []typ{tInt, tUint, tDouble}
				return g.call(t, d, "$0 "+g.pick("<", "<=", ">", ">=", "==")+" $1", ts[g.r.Intn(3)], ts[g.r.Intn(3)])
			}},
			{4, func(g *gen, t typ, d int) *node { e := g.scalar(); return g.call(t, d, "$0 in $1", e, listOf(e)) }},
			{3, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0 in $1", tString, mapOf(g.scalar())) }},
			{3, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0 in $1", tString, mapOf(tDyn))
			}},
			{4, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0."+g.pick("startsWith", "endsWith", "contains")+"($1)", tString, tString)
			}},
			{3, func(g *gen, t typ, d int) *node {
				return &node{t: t, tpl: "$0.matches(" + g.regex() + ")", kids: []*node{g.expr(tString, d-1)}}
			}},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.matches($1)", tString, tString) }},
			{4, func(g *gen, t typ, d int) *node {
				n := g.pick(append(append(intAttrs, strAttrs...), "nosuch", "tags")...)
				return leaf(t, "has(device.attributes["+g.domain()+"]."+n+")")
			}},
			{2, func(g *gen, t typ, d int) *node {
				return leaf(t, "has(device.capacity["+g.domain()+"]."+g.pick(capNames...)+")")
			}},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "has($0.a)", mapOf(g.scalar())) }},
			{6, func(g *gen, t typ, d int) *node {
				e, x := g.scalar(), g.fresh()
				m := g.pick("exists", "all", "exists_one")
				return g.comp(t, d, listOf(e), "$0."+m+"("+x+", $1)", []string{x}, []typ{e}, tBool)
			}},
			{2, func(g *gen, t typ, d int) *node {
				x := g.fresh()
				return g.comp(t, d, mapOf(tDyn), "$0."+g.pick("exists", "all")+"("+x+", $1)", []string{x}, []typ{tString}, tBool)
			}},
			{3, func(g *gen, t typ, d int) *node {
				e, i, v := g.scalar(), g.fresh(), g.fresh()
				if i == v {
					v += "b"
				}
				m := g.pick("all", "exists", "existsOne")
				if g.chance(0.5) {
					return g.comp(t, d, listOf(e), "$0."+m+"("+i+", "+v+", $1)", []string{i, v}, []typ{tInt, e}, tBool)
				}
				return g.comp(t, d, mapOf(e), "$0."+m+"("+i+", "+v+", $1)", []string{i, v}, []typ{tString, e}, tBool)
			}},
			{2, func(g *gen, t typ, d int) *node {
				// iterating an attribute: a list attribute, or a scalar (a type or runtime error)
				x := g.fresh()
				a := g.attr(g.pick("numa", "tags", "flags", "compat", "model", "cores"))
				return g.comp(t, d, tNull, a+"."+g.pick("exists", "all")+"("+x+", $1)", []string{x}, []typ{tDyn}, tBool)
			}},
			{4, func(g *gen, t typ, d int) *node {
				return g.call(t, d, g.pick("isSemver($0)", "isQuantity($0)", "isIP($0)", "isCIDR($0)", "isURL($0)", "isSemver($0, true)"), tString)
			}},
			{4, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0."+g.pick("isGreaterThan", "isLessThan")+"($1)", tSemver, tSemver)
			}},
			{4, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0."+g.pick("isGreaterThan", "isLessThan")+"($1)", tQuantity, tQuantity)
			}},
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.isInteger()", tQuantity) }},
			{3, func(g *gen, t typ, d int) *node {
				e := g.scalar()
				return g.call(t, d, "sets."+g.pick("contains", "intersects", "equivalent")+"($0, $1)", listOf(e), listOf(e))
			}},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.hasValue()", optOf(g.scalar())) }},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.isSorted()", listOf(ordered(g))) }},
			{3, func(g *gen, t typ, d int) *node {
				e := g.scalar()
				return g.call(t, d, "$0.includes($1)", listOf(e), e)
			}},
			{2, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0."+g.pick("containsIP", "containsCIDR")+"($1)", tCIDR, tString)
			}},
			{2, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0."+g.pick("isLoopback", "isUnspecified", "isGlobalUnicast", "isLinkLocalUnicast", "isLinkLocalMulticast")+"()", tIP)
			}},
			{1, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "format."+g.pick("dns1123Label", "dns1123Subdomain", "qualifiedName", "labelValue", "uuid", "date")+"().validate($0).hasValue()", tString)
			}},
			{3, func(g *gen, t typ, d int) *node {
				x, a := g.fresh(), g.anyType(d)
				return g.comp(t, d, a, "cel.bind("+x+", $0, $1)", []string{x}, []typ{a}, tBool)
			}},
		},
		kInt: {
			{10, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0 "+g.pick("+", "-", "*", "/", "%")+" $1", tInt, tInt)
			}},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "-$0", tInt) }},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0 ? $1 : $2", tBool, tInt, tInt) }},
			{4, func(g *gen, t typ, d int) *node {
				a := []typ{tString, tBytes, listOf(g.scalar()), mapOf(g.scalar())}[g.r.Intn(4)]
				return g.call(t, d, g.pick("size($0)", "$0.size()"), a)
			}},
			{4, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "int($0)", []typ{tString, tDouble, tUint, tTimestamp, tDyn}[g.r.Intn(5)])
			}},
			{3, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0."+g.pick("indexOf", "lastIndexOf")+"($1)", tString, tString)
			}},
			{5, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0[$1]", listOf(tInt), tInt) }},
			{3, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0."+g.pick("major", "minor", "patch")+"()", tSemver)
			}},
			{3, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.compareTo($1)", tSemver, tSemver) }},
			{3, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.compareTo($1)", tQuantity, tQuantity) }},
			{2, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0."+g.pick("sign", "asInteger")+"()", tQuantity)
			}},
			{3, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0."+g.pick("sum", "min", "max")+"()", listOf(tInt))
			}},
			{2, func(g *gen, t typ, d int) *node {
				e := g.scalar()
				return g.call(t, d, "$0."+g.pick("indexOf", "lastIndexOf")+"($1)", listOf(e), e)
			}},
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.family()", tIP) }},
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.prefixLength()", tCIDR) }},
			{1, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0."+g.pick("getHours", "getMinutes", "getSeconds", "getMilliseconds")+"()", tDuration)
			}},
			{1, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0."+g.pick("getFullYear", "getMonth", "getDayOfYear", "getHours")+"()", tTimestamp)
			}},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.orValue($1)", optOf(tInt), tInt) }},
			{2, func(g *gen, t typ, d int) *node {
				x := g.fresh()
				return g.comp(t, d, tInt, "cel.bind("+x+", $0, $1)", []string{x}, []typ{tInt}, tInt)
			}},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0[$1]", mapOf(tInt), tString) }},
		},
		kUint: {
			{4, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0 "+g.pick("+", "-", "*", "/", "%")+" $1", tUint, tUint)
			}},
			{3, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "uint($0)", []typ{tInt, tDouble, tString}[g.r.Intn(3)])
			}},
		},
		kDouble: {
			{4, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0 "+g.pick("+", "-", "*", "/")+" $1", tDouble, tDouble)
			}},
			{3, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "double($0)", []typ{tInt, tUint, tString}[g.r.Intn(3)])
			}},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.asApproximateFloat()", tQuantity) }},
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.sum()", listOf(tDouble)) }},
		},
		kString: {
			{5, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0 + $1", tString, tString) }},
			{3, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0."+g.pick("lowerAscii", "upperAscii", "trim")+"()", tString)
			}},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.replace($1, $2)", tString, tString, tString) }},
			{3, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.substring($1)", tString, tInt) }},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.substring($1, $2)", tString, tInt, tInt) }},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.charAt($1)", tString, tInt) }},
			{3, func(g *gen, t typ, d int) *node {
				return g.call(t, d, g.pick("$0.join($1)", "$0.join()"), listOf(tString), tString)
			}},
			{4, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "string($0)", []typ{tInt, tUint, tDouble, tBool, tBytes, tString, tIP, tCIDR, tDuration, tTimestamp, tSemver, tQuantity}[g.r.Intn(12)])
			}},
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "strings.quote($0)", tString) }},
			{2, func(g *gen, t typ, d int) *node {
				f := g.pick(`"%s-%d"`, `"%v"`, `"%.2f"`, `"%x"`, `"%s"`, `"%e"`, `"%o"`, `"%b"`)
				return g.call(t, d, f+".format([$0, $1])", g.scalar(), g.scalar())
			}},
			{2, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0."+g.pick("getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery")+"()", tURL)
			}},
			{2, func(g *gen, t typ, d int) *node {
				return &node{t: t, tpl: "$0.find(" + g.regex() + ")", kids: []*node{g.expr(tString, d-1)}}
			}},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0 ? $1 : $2", tBool, tString, tString) }},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0[$1]", listOf(tString), tInt) }},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.orValue($1)", optOf(tString), tString) }},
		},
		kBytes: {
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "bytes($0)", tString) }},
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0 + $1", tBytes, tBytes) }},
		},
		kList: {
			{3, func(g *gen, t typ, d int) *node { return g.call(t, d, "[$0, $1]", *t.elem, *t.elem) }},
			{4, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0 + $1", t, t) }},
			{5, func(g *gen, t typ, d int) *node {
				e, x := g.scalar(), g.fresh()
				return g.comp(t, d, listOf(e), "$0.map("+x+", $1)", []string{x}, []typ{e}, *t.elem)
			}},
			{2, func(g *gen, t typ, d int) *node {
				e, x := g.scalar(), g.fresh()
				return g.comp(t, d, listOf(e), "$0.map("+x+", $1, $2)", []string{x}, []typ{e}, tBool, *t.elem)
			}},
			{4, func(g *gen, t typ, d int) *node {
				x := g.fresh()
				return g.comp(t, d, t, "$0.filter("+x+", $1)", []string{x}, []typ{*t.elem}, tBool)
			}},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.slice($1, $2)", t, tInt, tInt) }},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0."+g.pick("reverse", "distinct")+"()", t) }},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.sort()", t) }},
			{1, func(g *gen, t typ, d int) *node {
				x := g.fresh()
				return g.comp(t, d, t, "$0.sortBy("+x+", $1)", []string{x}, []typ{*t.elem}, ordered(g))
			}},
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.flatten()", listOf(t)) }},
			{2, func(g *gen, t typ, d int) *node {
				if t.elem.k != kInt {
					return nil
				}
				if g.rangeArgs != nil {
					return leaf(t, "lists.range("+g.pick(g.rangeArgs...)+")")
				}
				return g.call(t, d, "lists.range($0)", tInt)
			}},
			{3, func(g *gen, t typ, d int) *node {
				if t.elem.k != kString {
					return nil
				}
				return g.call(t, d, "$0.split($1)", tString, tString)
			}},
			{1, func(g *gen, t typ, d int) *node {
				if t.elem.k != kString {
					return nil
				}
				return &node{t: t, tpl: "$0.findAll(" + g.regex() + ")", kids: []*node{g.expr(tString, d-1)}}
			}},
			{2, func(g *gen, t typ, d int) *node {
				e, i, v := g.scalar(), g.fresh(), g.fresh()+"v"
				return g.comp(t, d, listOf(e), "$0.transformList("+i+", "+v+", $1)", []string{i, v}, []typ{tInt, e}, *t.elem)
			}},
			{2, func(g *gen, t typ, d int) *node {
				if t.elem.k != kString {
					return nil
				}
				x := g.fresh()
				return g.comp(t, d, mapOf(g.scalar()), "$0.map("+x+", $1)", []string{x}, []typ{tString}, tString)
			}},
			{1, func(g *gen, t typ, d int) *node {
				if len(listAttrs[t.elem.k]) == 0 {
					return nil
				}
				return leaf(t, g.attr(g.pick(listAttrs[t.elem.k]...)))
			}},
		},
		kMap: {
			{3, func(g *gen, t typ, d int) *node { return g.call(t, d, "{$0: $1}", tString, *t.elem) }},
			{2, func(g *gen, t typ, d int) *node {
				e, k, v := g.scalar(), g.fresh(), g.fresh()+"v"
				return g.comp(t, d, mapOf(e), "$0.transformMap("+k+", "+v+", $1)", []string{k, v}, []typ{tString, e}, *t.elem)
			}},
			{2, func(g *gen, t typ, d int) *node {
				e, i, v := g.scalar(), g.fresh(), g.fresh()+"v"
				return g.comp(t, d, listOf(e), "$0.transformMapEntry("+i+", "+v+", {string("+i+"): $1})", []string{i, v}, []typ{tInt, e}, *t.elem)
			}},
		},
		kOpt: {
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "optional.of($0)", *t.elem) }},
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "optional.ofNonZeroValue($0)", *t.elem) }},
			{3, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0[?$1]", mapOf(*t.elem), tString) }},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0[?$1]", listOf(*t.elem), tInt) }},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.?a", mapOf(*t.elem)) }},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.or($1)", t, t) }},
			{2, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0."+g.pick("first", "last")+"()", listOf(*t.elem))
			}},
			{1, func(g *gen, t typ, d int) *node {
				x := g.fresh()
				return g.comp(t, d, t, "$0.optMap("+x+", $1)", []string{x}, []typ{*t.elem}, *t.elem)
			}},
			{2, func(g *gen, t typ, d int) *node {
				if t.elem.k != kDyn {
					return nil
				}
				return leaf(t, "device.attributes["+g.domain()+"][?"+strconv.Quote(g.pick(append(intAttrs, strAttrs...)...))+"]")
			}},
		},
		kSemver: {
			{3, func(g *gen, t typ, d int) *node {
				return g.call(t, d, g.pick("semver($0)", "semver($0, true)"), tString)
			}},
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0 ? $1 : $2", tBool, tSemver, tSemver) }},
		},
		kQuantity: {
			{3, func(g *gen, t typ, d int) *node { return g.call(t, d, "quantity($0)", tString) }},
			{3, func(g *gen, t typ, d int) *node {
				return g.call(t, d, "$0."+g.pick("add", "sub")+"($1)", tQuantity, []typ{tQuantity, tInt}[g.r.Intn(2)])
			}},
		},
		kDuration: {
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "duration($0)", tString) }},
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0 + $1", tDuration, tDuration) }},
		},
		kTimestamp: {
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0 + $1", tTimestamp, tDuration) }},
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "timestamp($0)", tString) }},
		},
		kIP: {
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "ip($0)", tString) }},
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.ip()", tCIDR) }},
		},
		kCIDR: {
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "cidr($0)", tString) }},
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.masked()", tCIDR) }},
		},
		kURL: {
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "url($0)", tString) }},
		},
		kDyn: {
			{3, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0[$1]", mapOf(tDyn), tString) }},
			{2, func(g *gen, t typ, d int) *node { return g.call(t, d, "dyn($0)", g.anyType(d)) }},
			{1, func(g *gen, t typ, d int) *node { return g.call(t, d, "$0.value()", optOf(tDyn)) }},
		},
	}
}

func (g *gen) regex() string {
	return strconv.Quote(g.pick("^[a-z]+$", "a", "[0-9]+", "^$", "(?i)gpu", `\d`, "(a|b)*c", "([", "x{2,}", `\p{L}+`, ".*", "^A1.*"))
}

// expr: an expression of type t with at most d levels of operators.
func (g *gen) expr(t typ, d int) *node {
	if d > 1 && g.chance(0.02) { // a hole of the wrong type
		t = g.anyType(d)
	}
	if d <= 0 || g.chance(0.25) {
		return g.leaf(t)
	}
	ps := prods[t.k]
	if len(ps) == 0 {
		return g.leaf(t)
	}
	w := make([]int, len(ps))
	for i, p := range ps {
		w[i] = p.w
	}
	for try := 0; try < 4; try++ {
		if n := ps[g.weighted(w)].fn(g, t, d); n != nil {
			return n
		}
	}
	return g.leaf(t)
}

// selector: a generated expression, usually a bool selector.
func (g *gen) selector() *node {
	g.scope = nil
	d := 2 + g.r.Intn(4)
	if g.chance(0.85) {
		return g.expr(tBool, d)
	}
	return g.expr(g.anyType(d), d)
}

package main

// The seeded mutator: from one valid-or-not seed object, objects that probe
// one rule each — a field dropped, given twice or of another type; strings
// and lists at each limit and one past it; bad names, quantities and CEL;
// unknown fields; enum values.

import (
	"fmt"
	"math/rand"
	"strings"
)

type mutant struct {
	desc string
	obj  *node
	dup  bool // has a field written twice: read alone (a reading error stops a file)
}

// Lists and maps with a limit, by member name (pkg/apis/resource/types.go,
// core and meta limits): each is tried at limit-1, limit and limit+1.
var listLimits = map[string][]int{
	"devices": {64, 128}, "sharedCounters": {8}, "counters": {32}, "consumesCounters": {2},
	"attributes": {32}, "capacity": {32}, "taints": {16}, "bindingConditions": {4},
	"bindingFailureConditions": {4}, "requests": {32}, "constraints": {32}, "config": {32, 64},
	"selectors": {32}, "firstAvailable": {8}, "tolerations": {16}, "reservedFor": {256},
	"results": {32}, "conditions": {8}, "ips": {16}, "validValues": {10}, "ints": {48},
	"strings": {48}, "bools": {48}, "versions": {48}, "resourceClaims": {4},
	"nodeSelectorTerms": {1}, "values": {1}, "compatibilityGroups": {4, 8},
	"nodeAllocatableResources": {8, 32}, "deviceTaints": {16},
}

// Objects that are maps (their members are names the object gives), the
// only objects grown by adding members.
var mapNames = map[string]bool{
	"attributes": true, "capacity": true, "counters": true, "labels": true, "annotations": true,
	"requests": true, "nodeAllocatableResources": true, "consumedCapacity": true, "matchLabels": true,
	"nodeSelector": true,
}

// String lengths around the limits names and texts have.
var stringLimits = []int{32, 63, 64, 128, 253, 254, 256, 316, 1024, 10240}

var badNames = []string{
	"", "Foo", "-a", "a-", "a_b", "a.b", "a..b", "a/b", "/a", "a/", "1a", "é", " a", "a b",
	"example.com/x", "example.com/", "Example.com/x", "a:b", "*", "a.b.c/d/e", "x/Y", "a/b_c",
	"-", ".", "a.", "0", "kubernetes.io/x", "resource.kubernetes.io/x", "a\tb",
}

var badQuantities = []string{
	"", "1.5.5", "-1", "0", "1e3", "1Ki", "1.5Gi", "100m", "0.5", "1e100", "9223372036854775807",
	"9223372036854775808", "abc", " 1", "+1", "1E", "0.0001", "1n", "-0", "1e-3", "1.2345678901",
	"18446744073709551616", "1m", "999999999999999999999999", "2Ei", "0.1m", "3.7", "-100m",
}

var badNumbers = []string{
	"-1", "0", "1", "2", "1.5", "1e3", "2147483647", "2147483648", "4294967296",
	"9223372036854775807", "9223372036854775808", "-9223372036854775809", "1e400",
}

var celExprs = []string{
	`true`, `false`, `1`, `"s"`, `x +`, `device.driver == "x"`, `device.driver`,
	`device.attributes["dra.example.com"].model == "a"`,
	`device.attributes["dra.example.com"].exists(k, true)`,
	`device.attributes["dra.example.com"].all(k, k == "x")`,
	`device.attributes["dra.example.com"].exists_one(k, true)`,
	`device.attributes["dra.example.com"].map(k, k).size() > 0`,
	`device.capacity["dra.example.com"].memory.compareTo(quantity("1Gi")) >= 0`,
	`device.attributes["dra.example.com"].ints.includes(1)`,
	`device.attributes["dra.example.com"].v.isGreaterThan(semver("1.0.0"))`,
	`semver("1.0.0").isLessThan(semver("2.0.0"))`, `isSemver("1.0")`, `isSemver("1.0", true)`,
	`cel.bind(x, 1, x == 1)`, `"a".matches("[")`, `"abc".matches("^a")`,
	`device.allowMultipleAllocations == true`, `device.foo == 1`, `foo`,
	`device.attributes["x"].y.size() > 0`, `size(device.attributes) > 0`,
	`device.attributes.exists(d, device.attributes[d].size() > 0)`,
	`device.capacity.all(d, device.capacity[d].all(c, device.capacity[d][c].isGreaterThan(quantity("0"))))`,
	`[1,2,3].all(x, [1,2,3].all(y, [1,2,3].all(z, x+y+z > 0)))`,
	`"` + strings.Repeat("a", 10240) + `" != ""`,
	strings.Repeat("true && ", 1279) + "true",
	`device.attributes["dra.example.com"].model.startsWith("a") && device.driver.endsWith("b")`,
	`1 / 0 == 1`, `int("x") == 1`, `duration("1s") > duration("0s")`,
	`timestamp("2020-01-01T00:00:00Z") < now`, `device.attributes["dra.example.com"].model.lowerAscii() == "a"`,
	`device.attributes["dra.example.com"].model.format([]) == ""`, `"%d".format([1]) == "1"`,
	`device.attributes["dra.example.com"].model in ["a", "b"]`, `ip("10.0.0.1").family() == 4`,
	`cidr("10.0.0.0/8").containsIP("10.1.2.3")`, `url("https://x").getHost() == "x"`,
	`device.attributes["dra.example.com"].model.split(",").size() > 1`,
	`optional.of(1).hasValue()`, `device.attributes[?"dra.example.com"].hasValue()`,
	"\x00", "true\u00e9", `device.attributes["dra.example.com"].list.sum() > 1`,
}

// Values of other types for the retype mutation.
func otherType(r *rand.Rand, n *node) *node {
	choices := []*node{sNode("x"), nNode("1"), {kind: 'b', b: true}, {kind: 'o'}, {kind: 'a'}, {kind: 'z'},
		{kind: 'a', vals: []*node{sNode("x")}}, {kind: 'o', keys: []string{"x"}, vals: []*node{sNode("y")}}}
	for {
		c := choices[r.Intn(len(choices))]
		if c.kind != n.kind {
			return c.clone()
		}
	}
}

func lengthString(n int, dotted bool) string {
	if !dotted {
		return strings.Repeat("a", n)
	}
	s := strings.Repeat("abcdefghi.", n/10+1)[:n]
	if strings.HasSuffix(s, ".") {
		s = s[:n-1] + "x"
	}
	return s
}

var nameish = map[string]bool{
	"name": true, "namespace": true, "generateName": true, "driver": true, "pool": true, "device": true,
	"deviceClassName": true, "request": true, "nodeName": true, "key": true, "value": true,
	"counterSet": true, "partitionTypeAttribute": true, "extendedResourceName": true,
	"resourceClaimName": true, "resourceClaimTemplateName": true, "podGroupName": true,
	"interfaceName": true, "hardwareAddress": true, "type": true, "reason": true, "message": true,
	"operator": true, "effect": true, "allocationMode": true, "matchAttribute": true, "uid": true,
	"apiVersion": true, "kind": true, "source": true, "poolName": true, "capacityKey": true,
}

var quantityish = map[string]bool{
	"value": true, "default": true, "min": true, "max": true, "step": true, "validValues": true,
	"perPod": true, "perContainer": true, "capacityMultiplier": true, "deviceMultiplier": true,
}

func isQuantityPlace(p place) bool {
	return quantityish[p.last()] || strings.Contains(p.path, ".capacity.requests") ||
		strings.Contains(p.path, "consumedCapacity") || strings.Contains(p.path, "shareID") ||
		(strings.Contains(p.path, "counters.") && p.last() == "value")
}

// grow makes a list or map n long, copying its members with names made
// unique, so that the count alone is what is tested.
func grow(p place, v *node, n int) bool {
	if len(v.vals) == 0 || (v.kind != 'a' && v.kind != 'o') || v.kind == 'o' && !mapNames[p.last()] {
		return false
	}
	if len(v.vals) > n {
		v.vals = v.vals[:n]
		if v.kind == 'o' {
			v.keys = v.keys[:n]
		}
		return true
	}
	proto := v.vals[len(v.vals)-1]
	for i := len(v.vals); i < n; i++ {
		c := proto.clone()
		if v.kind == 'a' {
			if nm := c.get("name"); nm != nil && nm.kind == 's' {
				nm.s = fmt.Sprintf("n%d", i)
			}
			if c.kind == 's' {
				c.s = fmt.Sprintf("%s%d", c.s, i)
			}
			v.vals = append(v.vals, c)
		} else {
			v.keys = append(v.keys, fmt.Sprintf("k%d", i))
			v.vals = append(v.vals, c)
		}
	}
	return true
}

// mutate returns the mutants of one seed: `limits` probes of its lists at
// their limits (drawn from all of them), and `random` random mutations.
func mutate(r *rand.Rand, seed *node, limits, random int) []mutant {
	var out []mutant
	add := func(desc string, obj *node) { out = append(out, mutant{desc: desc, obj: obj}) }
	for i, p := range places(seed) {
		lims, ok := listLimits[p.last()]
		if !ok || (p.val.kind != 'a' && p.val.kind != 'o') || len(p.val.vals) == 0 || strings.HasPrefix(p.path, "metadata") {
			continue
		}
		for _, l := range lims {
			for _, n := range []int{l - 1, l, l + 1} {
				if n < 0 || n == len(p.val.vals) {
					continue
				}
				c := seed.clone()
				cp := places(c)[i]
				if grow(cp, cp.val, n) {
					add(fmt.Sprintf("%s has %d members", p.path, n), c)
				}
			}
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	if len(out) > limits {
		out = out[:limits]
	}
	for k := 0; k < random; k++ {
		c := seed.clone()
		ps := places(c)
		if len(ps) == 0 {
			break
		}
		p := ps[r.Intn(len(ps))]
		switch m := r.Intn(13); {
		case m == 0 && p.parent.kind == 'o':
			p.parent.del(p.index)
			add("drop "+p.path, c)
		case m == 1 && p.parent.kind == 'o':
			p.parent.twice = p.index + 1
			out = append(out, mutant{desc: "twice " + p.path, obj: c, dup: true})
		case m == 2:
			v := otherType(r, p.val)
			p.replace(v)
			add(fmt.Sprintf("retype %s to %s", p.path, v.text()), c)
		case m == 3 && p.val.kind == 's':
			n := stringLimits[r.Intn(len(stringLimits))] + r.Intn(3) - 1
			p.val.s = lengthString(n, r.Intn(2) == 0 && n < 1000)
			add(fmt.Sprintf("%s is %d long", p.path, n), c)
		case m == 4 && (p.val.kind == 's' || nameish[p.last()]):
			s := badNames[r.Intn(len(badNames))]
			p.replace(sNode(s))
			add(fmt.Sprintf("%s = %q", p.path, s), c)
		case m == 5 && (isQuantityPlace(p) || p.val.kind == 's' && r.Intn(4) == 0):
			s := badQuantities[r.Intn(len(badQuantities))]
			v := sNode(s)
			if r.Intn(4) == 0 && !strings.ContainsAny(s, "KMGTPEimnu ") && s != "" {
				v = nNode(strings.TrimPrefix(s, "+"))
				if _, err := parseTree([]byte(v.s)); err != nil {
					v = sNode(s)
				}
			}
			p.replace(v)
			add(fmt.Sprintf("%s = %s", p.path, v.text()), c)
		case m == 6 && (p.val.kind == 'n' || p.val.kind == 's' && r.Intn(3) == 0):
			s := badNumbers[r.Intn(len(badNumbers))]
			p.replace(nNode(s))
			add(fmt.Sprintf("%s = %s", p.path, s), c)
		case m == 7 && p.val.kind == 'o':
			p.val.set("unknownField", nNode("1"))
			add("unknown field in "+p.path, c)
		case m == 8 && (p.val.kind == 'a' || p.val.kind == 'o') && len(p.val.vals) > 0:
			n := []int{0, 1, 2, 3, 5, 9, 17, 33, 49, 65, 129, 257}[r.Intn(12)]
			if grow(p, p.val, n) || n == 0 && (p.val.kind == 'a' || mapNames[p.last()]) {
				if n == 0 {
					p.val.vals, p.val.keys = nil, nil
				}
				add(fmt.Sprintf("%s has %d members", p.path, n), c)
			}
		case m == 9 && p.val.kind == 'a' && len(p.val.vals) > 0:
			// a repeated item (a duplicate name or value)
			p.val.vals = append(p.val.vals, p.val.vals[r.Intn(len(p.val.vals))].clone())
			add("repeat an item of "+p.path, c)
		case m == 10:
			// a CEL expression where there is one
			for _, q := range ps {
				if q.last() == "expression" {
					e := celExprs[r.Intn(len(celExprs))]
					q.replace(sNode(e))
					add(fmt.Sprintf("%s = %.60q", q.path, e), c)
					break
				}
			}
		case m == 11 && p.val.kind == 'b':
			p.val.b = !p.val.b
			add(fmt.Sprintf("%s = %v", p.path, p.val.b), c)
		case m == 12 && p.val.kind == 's':
			enums := []string{"ExactCount", "All", "all", "NoSchedule", "NoExecute", "None", "Exists", "Equal",
				"In", "True", "False", "Unknown", "Foo"}
			s := enums[r.Intn(len(enums))]
			p.val.s = s
			add(fmt.Sprintf("%s = %q", p.path, s), c)
		default:
			k-- // this one did not apply: draw again
			if r.Intn(8) == 0 {
				k++ // but never forever
			}
		}
	}
	return out
}

package main

// Values in CEL literal syntax, the text `dra-select eval` prints
// (src/common/cel/value.c cel_value_format): 1, 1u, 1.0, 1e+100, "s",
// b"\xff", [1, 2], {"k": 1}, null, int, optional.of(1), optional.none(),
// timestamp("..."), duration("1.5s"), quantity("1Ki"), semver("1.0.0"),
// ip("1.2.3.4"), cidr("10.0.0.0/8"), url("..."), format.NAME().
//
// One difference: a map prints its entries ordered by their key's text
// (cel-go keeps map literals in Go maps, so insertion order is lost); the
// differential suite orders the C side's entries the same way.

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"dra-tools/tests/upstream/celgo/ref"
	"dra-tools/tests/upstream/celgo/traits"
	"dra-tools/tests/upstream/celgo/types"

	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/library"
)

func quote(b *strings.Builder, s string, bytes bool) {
	if bytes {
		b.WriteByte('b')
	}
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f || (bytes && c >= 0x80):
			fmt.Fprintf(b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

func formatDouble(d float64) string {
	var s string
	switch {
	case math.IsNaN(d):
		return "NaN"
	case math.IsInf(d, 1):
		return "+Inf"
	case math.IsInf(d, -1):
		return "-Inf"
	default:
		s = strconv.FormatFloat(d, 'g', -1, 64)
	}
	if !strings.ContainsAny(s, ".eIN") {
		s += ".0"
	}
	return s
}

// Seconds with the fraction's trailing zeros dropped: "3600s", "-1.5s".
func formatDuration(d time.Duration) string {
	ns := d.Nanoseconds()
	neg := ns < 0
	var u uint64
	if neg {
		u = uint64(-(ns + 1)) + 1
	} else {
		u = uint64(ns)
	}
	s := strconv.FormatUint(u/1e9, 10)
	if frac := u % 1e9; frac != 0 {
		f := strings.TrimRight(fmt.Sprintf("%09d", frac), "0")
		s += "." + f
	}
	if neg {
		s = "-" + s
	}
	return s + "s"
}

func formatValue(v ref.Val) string {
	var b strings.Builder
	writeValue(&b, v)
	return b.String()
}

func writeValue(b *strings.Builder, v ref.Val) {
	switch x := v.(type) {
	case types.Null:
		b.WriteString("null")
	case types.Bool:
		b.WriteString(strconv.FormatBool(bool(x)))
	case types.Int:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case types.Uint:
		b.WriteString(strconv.FormatUint(uint64(x), 10) + "u")
	case types.Double:
		b.WriteString(formatDouble(float64(x)))
	case types.String:
		quote(b, string(x), false)
	case types.Bytes:
		quote(b, string(x), true)
	case types.Timestamp:
		b.WriteString(`timestamp("` + x.Time.UTC().Format(time.RFC3339Nano) + `")`)
	case types.Duration:
		b.WriteString(`duration("` + formatDuration(x.Duration) + `")`)
	case *types.Optional:
		if !x.HasValue() {
			b.WriteString("optional.none()")
			return
		}
		b.WriteString("optional.of(")
		writeValue(b, x.GetValue())
		b.WriteByte(')')
	case *types.Type:
		b.WriteString(x.TypeName())
	case *types.Err:
		b.WriteString("error(")
		quote(b, x.Error(), false)
		b.WriteByte(')')
	case apiservercel.Format:
		b.WriteString("format." + formatName(x.Name) + "()")
	case *apiservercel.Format:
		b.WriteString("format." + formatName(x.Name) + "()")
	default:
		// The Kubernetes library types, as values or pointers: by the
		// type's name and the Go value they carry.
		switch t, val := v.Type().TypeName(), v.Value(); {
		case v.Type() == types.ListType:
			writeList(b, v.(traits.Lister))
		case v.Type() == types.MapType:
			writeMap(b, v.(traits.Mapper))
		case t == "kubernetes.Quantity" || t == "kubernetes.Semver" || t == "net.IP" || t == "net.CIDR" || t == "kubernetes.URL":
			name := map[string]string{"kubernetes.Quantity": "quantity", "kubernetes.Semver": "semver", "net.IP": "ip",
				"net.CIDR": "cidr", "kubernetes.URL": "url"}[t]
			fmt.Fprintf(b, "%s(%q)", name, fmt.Sprint(val))
		default:
			fmt.Fprintf(b, "<%s %v>", t, val)
		}
	}
}

func writeList(b *strings.Builder, l traits.Lister) {
	b.WriteByte('[')
	n := int64(l.Size().(types.Int))
	for i := int64(0); i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		writeValue(b, l.Get(types.Int(i)))
	}
	b.WriteByte(']')
}

func writeMap(b *strings.Builder, m traits.Mapper) {
	type entry struct{ k, v string }
	var es []entry
	for it := m.Iterator(); it.HasNext() == types.True; {
		k := it.Next()
		es = append(es, entry{formatValue(k), formatValue(m.Get(k))})
	}
	sort.Slice(es, func(i, j int) bool { return es[i].k < es[j].k })
	b.WriteByte('{')
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.k + ": " + e.v)
	}
	b.WriteByte('}')
}

// formatName is the library's function name of a named format
// (library.ConstantFormats: "dns1123Label" makes Format{Name: "DNS1123Label"}).
func formatName(name string) string {
	for fn, f := range library.ConstantFormats {
		if f.Name == name {
			return fn
		}
	}
	return name
}

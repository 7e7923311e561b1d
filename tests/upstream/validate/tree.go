package main

// A JSON value that keeps its members' order and can write a member twice
// (the duplicate-field mutation), so mutated objects read like their seeds.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

type node struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	keys  []string
	vals  []*node // object members, or array items
	s     string  // string value or number text
	b     bool
	twice int // object: write member twice-1 a second time (0: none)
}

func parseTree(data []byte) (*node, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	n, err := parseNode(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data")
	}
	return n, nil
}

func parseNode(d *json.Decoder) (*node, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch v := t.(type) {
	case json.Delim:
		if v == '{' {
			n := &node{kind: 'o'}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				c, err := parseNode(d)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, kt.(string))
				n.vals = append(n.vals, c)
			}
			_, err := d.Token()
			return n, err
		}
		n := &node{kind: 'a'}
		for d.More() {
			c, err := parseNode(d)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, c)
		}
		_, err := d.Token()
		return n, err
	case string:
		return &node{kind: 's', s: v}, nil
	case json.Number:
		return &node{kind: 'n', s: string(v)}, nil
	case bool:
		return &node{kind: 'b', b: v}, nil
	default:
		return &node{kind: 'z'}, nil
	}
}

func (n *node) clone() *node {
	c := *n
	c.keys = append([]string(nil), n.keys...)
	c.vals = make([]*node, len(n.vals))
	for i, v := range n.vals {
		c.vals[i] = v.clone()
	}
	return &c
}

func (n *node) write(b *bytes.Buffer) {
	switch n.kind {
	case 'o':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			n.vals[i].write(b)
			if n.twice == i+1 {
				b.WriteByte(',')
				writeString(b, k)
				b.WriteByte(':')
				n.vals[i].write(b)
			}
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, v := range n.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			v.write(b)
		}
		b.WriteByte(']')
	case 's':
		writeString(b, n.s)
	case 'n':
		b.WriteString(n.s)
	case 'b':
		if n.b {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	default:
		b.WriteString("null")
	}
}

func writeString(b *bytes.Buffer, s string) {
	e := json.NewEncoder(b)
	e.SetEscapeHTML(false)
	_ = e.Encode(s)
	b.Truncate(b.Len() - 1) // the encoder's newline
}

func (n *node) text() string {
	var b bytes.Buffer
	n.write(&b)
	return b.String()
}

func (n *node) get(key string) *node {
	if n == nil || n.kind != 'o' {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// valsOf: an array's items (none for anything else).
func (n *node) valsOf() []*node {
	if n == nil || n.kind != 'a' {
		return nil
	}
	return n.vals
}

func (n *node) set(key string, v *node) {
	for i, k := range n.keys {
		if k == key {
			n.vals[i] = v
			return
		}
	}
	n.keys = append(n.keys, key)
	n.vals = append(n.vals, v)
}

func (n *node) del(i int) {
	n.keys = append(n.keys[:i:i], n.keys[i+1:]...)
	n.vals = append(n.vals[:i:i], n.vals[i+1:]...)
}

func (n *node) str(key string) string {
	if v := n.get(key); v != nil && v.kind == 's' {
		return v.s
	}
	return ""
}

func sNode(s string) *node { return &node{kind: 's', s: s} }
func nNode(s string) *node { return &node{kind: 'n', s: s} }

// A place in a tree: the value at path, with its parent and where in it.
type place struct {
	path   string
	parent *node
	key    string // member name in an object parent
	index  int    // item index in an array parent, member index in an object
	val    *node
}

// places lists every value below the root (not the root), depth first.
func places(root *node) []place {
	var out []place
	var walk func(n *node, path string)
	walk = func(n *node, path string) {
		switch n.kind {
		case 'o':
			for i, k := range n.keys {
				p := k
				if path != "" {
					p = path + "." + k
				}
				out = append(out, place{p, n, k, i, n.vals[i]})
				walk(n.vals[i], p)
			}
		case 'a':
			for i, v := range n.vals {
				p := fmt.Sprintf("%s[%d]", path, i)
				out = append(out, place{p, n, "", i, v})
				walk(v, p)
			}
		}
	}
	walk(root, "")
	return out
}

// replace puts v where p is.
func (p place) replace(v *node) { p.parent.vals[p.index] = v }

// last is the name of the member a place is (its array's name for an item).
func (p place) last() string {
	s := p.path
	for strings.HasSuffix(s, "]") {
		s = s[:strings.LastIndexByte(s, '[')]
	}
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// hasDup: whether a member of an object in n is written twice (as read,
// or by the duplicate-field mutation).
func (n *node) hasDup() bool {
	if n == nil {
		return false
	}
	if n.kind == 'o' {
		if n.twice > 0 {
			return true
		}
		seen := map[string]bool{}
		for _, k := range n.keys {
			if seen[k] {
				return true
			}
			seen[k] = true
		}
	}
	for _, v := range n.vals {
		if v.hasDup() {
			return true
		}
	}
	return false
}

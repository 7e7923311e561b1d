package main

// Reading the input as dra-slice reads it: files, directories (their .json,
// .yaml and .yml files in name order, subdirectories with -R), `-` for
// standard input; YAML streams of documents, JSON values one after another
// (JSON Lines), and Lists whose items are the objects.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"sigs.k8s.io/yaml"
)

// One object of the input.
type object struct {
	file string // as named, "<stdin>" for -
	doc  int    // 1-based document of the file
	line int    // first line of the document (of the item in JSON)
	item int    // index in a List, -1 when not in one
	path string // where the item is in its document: items[1].items[0]
	raw  []byte // the object's own text: YAML for a YAML document, else JSON
	yaml bool
	m    map[string]interface{} // the object read leniently (kind, names)
}

func (o *object) where() string {
	s := fmt.Sprintf("%s:%d", o.file, o.line)
	if o.doc > 1 {
		s += fmt.Sprintf(" (document %d)", o.doc)
	}
	return s
}

func isInputFile(name string) bool {
	return strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// The files named by the arguments, each once.
func inputFiles(o *options) ([]string, []string) {
	var files, errs []string
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	for _, in := range o.inputs {
		if in == "-" {
			add(in)
			continue
		}
		st, err := os.Stat(in)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", in, err))
			continue
		}
		if !st.IsDir() {
			add(filepath.Clean(in))
			continue
		}
		var walk func(dir string)
		walk = func(dir string) {
			ents, err := os.ReadDir(dir)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", dir, err))
				return
			}
			sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
			for _, e := range ents {
				p := filepath.Join(dir, e.Name())
				if e.IsDir() {
					if o.recursive {
						walk(p)
					}
				} else if isInputFile(e.Name()) {
					add(p)
				}
			}
		}
		walk(in)
	}
	return files, errs
}

// collect reads every input file into objects; read errors (a syntax error
// stops its file) are returned as problem lines.
func collect(o *options) ([]*object, []string) {
	files, errs := inputFiles(o)
	var objs []*object
	for _, f := range files {
		var data []byte
		var err error
		name := f
		if f == "-" {
			name = "<stdin>"
			data, err = io.ReadAll(os.Stdin)
		} else {
			data, err = os.ReadFile(f)
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		got, ferrs := splitFile(name, data)
		objs = append(objs, got...)
		errs = append(errs, ferrs...)
	}
	return objs, errs
}

func splitFile(name string, data []byte) ([]*object, []string) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	t := bytes.TrimLeft(data, " \t\r\n")
	// kubectl takes only '{' for JSON (k8s.io/apimachinery
	// v0.37.2 pkg/util/yaml/decoder.go hasJSONPrefix)
	if len(t) > 0 && t[0] == '{' {
		return splitJSON(name, data)
	}
	return splitYAML(name, data)
}

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

func splitJSON(name string, data []byte) ([]*object, []string) {
	var objs []*object
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	doc := 0
	var firstEnd int64
	for {
		start := dec.InputOffset()
		// the value starts after the white space the decoder skips
		for start < int64(len(data)) && strings.IndexByte(" \t\r\n", data[start]) >= 0 {
			start++
		}
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			break
		}
		if err != nil {
			if doc == 0 {
				// kubectl's YAMLOrJSONDecoder (k8s.io/apimachinery
				// v0.37.2 pkg/util/yaml/decoder.go) reads a stream that
				// starts as JSON as YAML when its first document is not
				// JSON (YAML's flow style takes most of it)
				return splitYAML(name, data)
			}
			if doc == 1 {
				// and after one JSON document it reads on as YAML from
				// that document's end and the white space after it
				// through the first newline (consumeWhitespace); when
				// that YAML's first document fails too, the error is
				// JSON's
				at := afterSpace(data, firstEnd)
				more, errs := splitYAMLFrom(name, data[at:], 1, lineAt(data, int64(at))-1)
				if len(errs) == 0 || len(more) > 0 {
					return append(objs, more...), errs
				}
			}
			return objs, []string{fmt.Sprintf("%s:%d: invalid JSON: %v", name, lineAt(data, start), err)}
		}
		doc++
		if doc == 1 {
			firstEnd = dec.InputOffset()
		}
		got, errs := objectsOf(name, doc, lineAt(data, start), raw, []byte(raw), false)
		objs = append(objs, got...)
		if len(errs) > 0 {
			return objs, errs
		}
	}
	return objs, nil
}

// YAML documents are split at lines starting with "---" as kubectl splits
// them (k8s.io/apimachinery/pkg/util/yaml.YAMLReader).
func splitYAML(name string, data []byte) ([]*object, []string) {
	return splitYAMLFrom(name, data, 0, 0)
}

// afterSpace: where YAML starts after a JSON document ending at end, as
// consumeWhitespace finds it: past white space through the first newline.
func afterSpace(data []byte, end int64) int {
	at := int(end)
	for at < len(data) {
		r, sz := utf8.DecodeRune(data[at:])
		if !unicode.IsSpace(r) {
			break
		}
		at += sz
		if r == '\n' {
			break
		}
	}
	return at
}

// splitYAMLFrom reads data as splitYAML does, its documents numbered
// after docs and its lines after lines (YAML after a JSON document).
func splitYAMLFrom(name string, data []byte, docs, lines int) ([]*object, []string) {
	var objs []*object
	r := bufio.NewReader(bytes.NewReader(data))
	var buf bytes.Buffer
	line, docLine, doc := lines, lines+1, docs
	// A document's number counts the documents before it that are not
	// empty: kubectl's StreamVisitor (k8s.io/cli-runtime v0.37.2
	// pkg/resource/visitor.go) skips one whose JSON is empty or null
	// (blank, comments only, a lone "---"), as dra-slice numbers them.
	flush := func() []string {
		defer buf.Reset()
		text := append([]byte(nil), buf.Bytes()...)
		j, err := yaml.YAMLToJSON(text)
		if err != nil {
			return []string{fmt.Sprintf("%s:%d: %v", name, docLine, err)}
		}
		if t := bytes.TrimSpace(j); len(t) == 0 || string(t) == "null" {
			return nil
		}
		doc++
		got, errs := objectsOf(name, doc, docLine, j, text, true)
		objs = append(objs, got...)
		return errs
	}
	for {
		l, err := r.ReadBytes('\n')
		if len(l) > 0 {
			line++
			if bytes.HasPrefix(l, []byte("---")) {
				rest := strings.TrimSpace(string(l[3:]))
				if rest != "" && rest[0] != '#' {
					return objs, []string{fmt.Sprintf("%s:%d: invalid YAML document separator: %s", name, line, rest)}
				}
				if errs := flush(); errs != nil {
					return objs, errs
				}
				docLine = line + 1
				continue
			}
			buf.Write(l)
		}
		if err != nil {
			break
		}
	}
	if errs := flush(); errs != nil {
		return objs, errs
	}
	return objs, nil
}

// objectsOf turns one document (its JSON form j, its own text raw) into
// objects: nothing for an empty document, the items of a List, or itself.
func objectsOf(name string, doc, line int, j, raw []byte, isYAML bool) ([]*object, []string) {
	t := bytes.TrimSpace(j)
	if len(t) == 0 || string(t) == "null" {
		return nil, nil
	}
	var v interface{}
	d := json.NewDecoder(bytes.NewReader(t))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, []string{fmt.Sprintf("%s:%d: %v", name, line, err)}
	}
	m, ok := v.(map[string]interface{})
	if !ok {
		// kubectl refuses such a document before the API server sees it
		// (unstructuredJSONScheme.decode, k8s.io/apimachinery v0.37.2
		// pkg/apis/meta/v1/unstructured/helpers.go): in dra-slice's words
		var what string
		switch v.(type) {
		case string:
			what = "a string"
		case json.Number:
			what = "a number"
		case bool:
			what = "a boolean"
		default:
			what = "a list"
		}
		return nil, []string{fmt.Sprintf("%s:%d: document is %s; expected an object or a List", name, line, what)}
	}
	kind, _ := m["kind"].(string)
	if items, isList := m["items"]; isList && strings.HasSuffix(kind, "List") {
		if items == nil { // kubectl reads null items as none
			return nil, nil
		}
		return listItems(name, doc, line, t, m, "")
	}
	if !isYAML {
		raw = t
	}
	return []*object{{file: name, doc: doc, line: line, item: -1, raw: raw, yaml: isYAML, m: m}}, nil
}

// listItems reads the items of a List (its text t, read leniently as m),
// and the items of the Lists among them, as kubectl's FlattenListVisitor
// does (k8s.io/cli-runtime v0.37.2 pkg/resource/visitor.go); at names
// where the List is in the document ("" at its top, else "items[1].").
func listItems(name string, doc, line int, t []byte, m map[string]interface{}, at string) ([]*object, []string) {
	kind, _ := m["kind"].(string)
	apiVersion, _ := m["apiVersion"].(string)
	items := m["items"]
	var l struct {
		Items []json.RawMessage `json:"items"`
	}
	if _, isArr := items.([]interface{}); !isArr || json.Unmarshal(t, &l) != nil {
		return nil, []string{fmt.Sprintf("%s:%d: %s: %sitems: must be a list of objects", name, line, kind, at)}
	}
	itemKind := strings.TrimSuffix(kind, "List")
	var objs, nested []*object
	for i, it := range l.Items {
		var im map[string]interface{}
		d := json.NewDecoder(bytes.NewReader(it))
		d.UseNumber()
		if d.Decode(&im) != nil || im == nil {
			// in dra-slice's words
			return objs, []string{fmt.Sprintf("%s:%d: %sitems[%d]: expected an object", name, line, at, i)}
		}
		itRaw := []byte(it)
		if kind != "List" && im["kind"] == nil && im["apiVersion"] == nil {
			// a typed List (ResourceClaimList ...) as the API server returns it
			im["kind"], im["apiVersion"] = itemKind, apiVersion
			itRaw = injectTypeMeta(it, itemKind, apiVersion)
		}
		path := fmt.Sprintf("%sitems[%d]", at, i)
		if k, _ := im["kind"].(string); strings.HasSuffix(k, "List") {
			if im["items"] == nil { // none, as dra-slice reads a List within a List
				continue
			}
			got, errs := listItems(name, doc, line, itRaw, im, path+".")
			nested = append(nested, got...)
			if len(errs) > 0 {
				return append(objs, nested...), errs
			}
			continue
		}
		objs = append(objs, &object{file: name, doc: doc, line: line, item: i, path: path, raw: itRaw, m: im})
	}
	return append(objs, nested...), nil
}

// injectTypeMeta puts kind and apiVersion first into a JSON object's text.
func injectTypeMeta(it []byte, kind, apiVersion string) []byte {
	k, _ := json.Marshal(kind)
	a, _ := json.Marshal(apiVersion)
	t := bytes.TrimSpace(it)
	rest := bytes.TrimSpace(t[1:])
	sep := ","
	if len(rest) > 0 && rest[0] == '}' {
		sep = ""
	}
	return []byte(fmt.Sprintf(`{"kind":%s,"apiVersion":%s%s%s`, k, a, sep, rest))
}

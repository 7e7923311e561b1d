// Package peer is upstream's structured allocator run on dra-alloc's input:
// the library behind upstream-alloc and the differential suite.
package peer

// Reading the input as dra-alloc reads it: files, directories (their .json,
// .yaml and .yml files in name order, subdirectories not entered), `-` for
// standard input; YAML streams of documents, JSON values one after another
// (JSON Lines), and Lists whose items are the objects.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Raw is one object of the input as JSON, with where it came from.
type Raw struct {
	Where string
	JSON  []byte
}

func manifest(name string) bool {
	return strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// ReadPaths reads every object of the named inputs; no names is standard
// input.
func ReadPaths(paths []string, stdin io.Reader) ([]Raw, error) {
	if len(paths) == 0 {
		paths = []string{"-"}
	}
	var out []Raw
	for _, p := range paths {
		if p == "-" {
			data, err := io.ReadAll(stdin)
			if err != nil {
				return nil, fmt.Errorf("<stdin>: %v", err)
			}
			objs, err := ReadBytes("<stdin>", data)
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		files := []string{p}
		if st.IsDir() {
			ents, err := os.ReadDir(p)
			if err != nil {
				return nil, err
			}
			files = files[:0]
			for _, e := range ents {
				if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") && manifest(e.Name()) {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
			sort.Strings(files)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			objs, err := ReadBytes(f, data)
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
		}
	}
	return out, nil
}

// ReadBytes splits one file's text into its objects.
func ReadBytes(name string, data []byte) ([]Raw, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []Raw
	for doc := 1; ; doc++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %v", name, doc, err)
		}
		t := bytes.TrimSpace(raw)
		if len(t) == 0 || string(t) == "null" {
			continue
		}
		where := fmt.Sprintf("%s: document %d", name, doc)
		var head struct {
			Kind  string             `json:"kind"`
			Items *[]json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(t, &head); err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		if strings.HasSuffix(head.Kind, "List") && head.Items != nil {
			for i, it := range *head.Items {
				it = bytes.TrimSpace(it)
				if len(it) == 0 || string(it) == "null" {
					continue
				}
				out = append(out, Raw{Where: fmt.Sprintf("%s, item %d", where, i), JSON: it})
			}
			continue
		}
		out = append(out, Raw{Where: where, JSON: t})
	}
	return out, nil
}

package peer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	resourceapi "k8s.io/api/resource/v1"
	sigyaml "sigs.k8s.io/yaml"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// Write prints the claims as dra-alloc does: json (one claim, or a List of
// them, indented by four), jsonl (one claim a line), yaml (documents).
func Write(w io.Writer, format string, claims []*resourceapi.ResourceClaim) error {
	var b bytes.Buffer
	switch format {
	case "json":
		if len(claims) == 0 {
			break
		}
		var v any = claims[0]
		if len(claims) > 1 {
			v = struct {
				APIVersion string                       `json:"apiVersion"`
				Items      []*resourceapi.ResourceClaim `json:"items"`
				Kind       string                       `json:"kind"`
				Metadata   map[string]string            `json:"metadata"`
			}{"v1", claims, "List", map[string]string{"resourceVersion": ""}}
		}
		out, err := json.MarshalIndent(v, "", "    ")
		if err != nil {
			return err
		}
		b.Write(out)
		b.WriteByte('\n')
	case "jsonl":
		for _, c := range claims {
			out, err := json.Marshal(c)
			if err != nil {
				return err
			}
			b.Write(out)
			b.WriteByte('\n')
		}
	case "yaml", "":
		for i, c := range claims {
			if i > 0 {
				b.WriteString("---\n")
			}
			out, err := sigyaml.Marshal(c)
			if err != nil {
				return err
			}
			b.Write(out)
		}
	default:
		return fmt.Errorf("-o: unknown format %q (yaml, json, jsonl)", format)
	}
	_, err := w.Write(b.Bytes())
	return err
}

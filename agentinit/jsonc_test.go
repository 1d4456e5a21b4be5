package agentinit

import (
	"bytes"
	"testing"
)

// FuzzJSONCMerge: whatever JSONC a config file holds, merging flowdeck's
// entries yields a file that parses, reads as the merge of what was there
// with flowdeck's entries, and needs nothing on a second run.
func FuzzJSONCMerge(f *testing.F) {
	for _, seed := range []string{
		"{}", "{\n}\n", "// c\n{}", `{"mcp": {}}`, "{\"mcp\": {\"a\": 1,},}",
		"{\n\t// x\n\t\"mcp\": {\n\t\t\"x\": {\"type\": \"local\"}, // y\n\t},\n}\n",
		"{\"hooks\": {\"Stop\": [ ], \"UserPromptSubmit\": [{\"hooks\": []},],}, /* end */}",
		"{\"mcpServers\": {\"flowdeck\": {\"command\": \"/opt/flowdeck\"}}} // mine",
		"{\"mcp\": {\"servers\": {\"a\": {},},}}",
	} {
		f.Add(seed)
	}
	edits := []func(*object) (bool, error){opencodeMCP, claudeMCP, claudeHook}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 8<<10 { // config files are small; keep the engine fast
			return
		}
		if _, _, err := readJSONC([]byte(src)); err != nil {
			return
		}
		for _, edit := range edits {
			merge := jsonFile(edit)
			out, err := merge(src, true)
			if err != nil {
				continue // e.g. "hooks" is not an object: refused, not rewritten
			}
			got, _, err := readJSONC([]byte(out))
			if err != nil {
				t.Fatalf("merged file does not parse: %v\n%s", err, out)
			}
			want, _, _ := readJSONC([]byte(src))
			edit(want)
			if !bytes.Equal(encode(got), encode(want)) {
				t.Fatalf("merged file reads as\n%s\nwant\n%s\nfrom\n%s\nto\n%s", encode(got), encode(want), src, out)
			}
			if again, err := merge(out, true); err != nil || again != out {
				t.Fatalf("second merge changed the file (%v):\n%s\n->\n%s", err, out, again)
			}
		}
	})
}

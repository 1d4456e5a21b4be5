package flows

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/flowdeck/flowdeck/flows/flowfile"
)

//go:embed builtin/*.md
var builtinFS embed.FS

// Entry is a flow that `flowdeck flows list` shows.
type Entry struct {
	Name        string `json:"name"`
	Source      string `json:"source"` // builtin:NAME or the file's path
	Description string `json:"description,omitempty"`
	Builtin     bool   `json:"builtin"`
	// Overrides is set when a project file replaces the built-in flow.
	Overrides bool   `json:"overrides,omitempty"`
	Error     string `json:"error,omitempty"`
}

// ProjectDir is where a project keeps its flows (and overrides built-ins).
func ProjectDir(root string) string { return filepath.Join(root, ".flow", "flows") }

// Builtin returns the embedded source of a built-in flow.
func Builtin(name string) ([]byte, bool) {
	data, err := builtinFS.ReadFile("builtin/" + name + ".md")
	return data, err == nil
}

// BuiltinNames lists the built-in flows.
func BuiltinNames() []string {
	ents, _ := fs.Glob(builtinFS, "builtin/*.md")
	out := make([]string, len(ents))
	for i, e := range ents {
		out[i] = strings.TrimSuffix(filepath.Base(e), ".md")
	}
	sort.Strings(out)
	return out
}

// List returns the built-in flows and the project's (.flow/flows/*.md), a
// project file with a built-in's name replacing it.
func List(root string) []Entry {
	byName := map[string]*Entry{}
	for _, name := range BuiltinNames() {
		src, _ := Builtin(name)
		e := &Entry{Name: name, Source: "builtin:" + name, Builtin: true}
		describe(e, "builtin:"+name, src)
		byName[name] = e
	}
	files, _ := filepath.Glob(filepath.Join(ProjectDir(root), "*.md"))
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".md")
		src, err := os.ReadFile(path)
		e := &Entry{Name: name, Source: path}
		if err != nil {
			e.Error = err.Error()
		} else {
			describe(e, path, src)
		}
		if b, ok := byName[name]; ok && b.Builtin {
			e.Overrides = true
		}
		byName[name] = e
	}
	out := make([]Entry, 0, len(byName))
	for _, e := range byName {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func describe(e *Entry, path string, src []byte) {
	f, err := flowfile.Parse(path, src)
	if f != nil {
		e.Description = f.Description
	}
	if err != nil {
		e.Error = firstLine(err.Error())
	}
}

// Load finds a flow by name (the project's .flow/flows/NAME.md first, then
// the built-ins) or by path (anything with a slash or ending in .md), reads
// and parses it. source is builtin:NAME or the path.
func Load(root, ref string) (f *flowfile.Flow, source string, err error) {
	src, source, err := Read(root, ref)
	if err != nil {
		return nil, "", err
	}
	f, err = flowfile.Parse(source, src)
	if f != nil && strings.HasPrefix(source, "builtin:") {
		f.Name = strings.TrimPrefix(source, "builtin:")
	}
	return f, source, err
}

// Read returns a flow's source text and where it came from.
func Read(root, ref string) ([]byte, string, error) {
	if strings.ContainsRune(ref, os.PathSeparator) || strings.HasSuffix(ref, ".md") {
		data, err := os.ReadFile(ref)
		if err != nil {
			return nil, "", err
		}
		return data, ref, nil
	}
	path := filepath.Join(ProjectDir(root), ref+".md")
	if data, err := os.ReadFile(path); err == nil {
		return data, path, nil
	}
	if data, ok := Builtin(ref); ok {
		return data, "builtin:" + ref, nil
	}
	return nil, "", fmt.Errorf("no flow %q: not a file, not in %s, not built in (%s); see flowdeck flows list",
		ref, ProjectDir(root), strings.Join(BuiltinNames(), ", "))
}

// Command scriptedagent is the agent of flowdeck's flow tests: it answers
// prompts deterministically, and on purpose badly now and then, so that the
// tests exercise retries. Usage: scriptedagent ROLE; the prompt arrives on
// standard input; $SCRIPTED_STATE is a directory where it counts its calls.
//
//	planner   call 1: no JSON at all; call 2: a plan with an unknown
//	          dependency (flowdeck refuses it); then a good plan for a tiny
//	          Go module with features add and mul.
//	worker    the first call: wrong types; then writes the active feature
//	          ($FLOWDECK_FEATURE) into the project ($FLOWDECK_DIR): mul is
//	          written with a bug the first time, so its verification fails.
//	reviewer  approves, with one finding.
//	sleeper   prints that it started, touches $SCRIPTED_STATE/started, sleeps
//	          for $SCRIPTED_SLEEP (default 30s) unless $SCRIPTED_STATE/fast
//	          exists, then answers {"done": true}.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: scriptedagent ROLE")
		os.Exit(2)
	}
	role := os.Args[1]
	prompt, _ := io.ReadAll(os.Stdin)
	state := os.Getenv("SCRIPTED_STATE")
	n := count(state, role)
	os.WriteFile(filepath.Join(state, fmt.Sprintf("%s-%d.prompt", role, n)), prompt, 0o644)
	fmt.Printf("[%s] call %d, prompt of %d bytes\n", role, n, len(prompt))
	switch role {
	case "planner":
		planner(n)
	case "worker":
		worker(n, state)
	case "reviewer":
		answer(map[string]any{"verdict": "approved", "findings": []string{"reads well"}})
	case "sleeper":
		os.WriteFile(filepath.Join(state, "started"), nil, 0o644)
		if _, err := os.Stat(filepath.Join(state, "fast")); err != nil {
			d, err := time.ParseDuration(os.Getenv("SCRIPTED_SLEEP"))
			if err != nil {
				d = 30 * time.Second
			}
			time.Sleep(d)
		}
		answer(map[string]any{"done": true})
	default:
		fmt.Fprintln(os.Stderr, "unknown role", role)
		os.Exit(2)
	}
}

// count increments and returns this role's call number.
func count(dir, role string) int {
	path := filepath.Join(dir, role+".count")
	data, _ := os.ReadFile(path)
	n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	n++
	os.WriteFile(path, []byte(strconv.Itoa(n)), 0o644)
	return n
}

func answer(v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	fmt.Printf("Here is my answer:\n```json\n%s\n```\n", b)
}

func planner(n int) {
	switch n {
	case 1:
		fmt.Println("I think the plan should have two features. Let me explain in prose instead.")
		return
	}
	plan := map[string]any{
		"summary":      "Arithmetic for the calc package",
		"requirements": []string{"go test passes"},
		"features": []map[string]any{
			{"id": "add", "title": "Add", "summary": "func Add(a, b int) int with a test",
				"files": []string{"add.go", "add_test.go"}, "verification": []string{"go test ./..."}},
			{"id": "mul", "title": "Multiply", "summary": "func Mul(a, b int) int with a test",
				"files": []string{"mul.go", "mul_test.go"}, "verification": []string{"go test ./..."}, "depends_on": []string{"add"}},
		},
	}
	if n == 2 {
		plan["features"].([]map[string]any)[1]["depends_on"] = []string{"subtract"}
	}
	answer(map[string]any{"plan": plan})
}

func worker(n int, state string) {
	if n == 1 {
		answer(map[string]any{"outcome": 42, "summary": true})
		return
	}
	dir, feature := os.Getenv("FLOWDECK_DIR"), os.Getenv("FLOWDECK_FEATURE")
	tries := count(state, "worker-"+feature)
	var files map[string]string
	switch feature {
	case "add":
		files = map[string]string{
			"add.go":      "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
			"add_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(Add(2, 3))\n\t}\n}\n",
		}
	case "mul":
		body := "a * b"
		if tries == 1 {
			body = "a + b" // the bug the verification catches
		}
		files = map[string]string{
			"mul.go":      "package calc\n\n// Mul multiplies.\nfunc Mul(a, b int) int { return " + body + " }\n",
			"mul_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestMul(t *testing.T) {\n\tif Mul(3, 4) != 12 {\n\t\tt.Fatal(Mul(3, 4))\n\t}\n}\n",
		}
	default:
		answer(map[string]any{"outcome": "blocked", "summary": "unknown feature " + feature})
		return
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			fmt.Println("write:", err)
		}
		fmt.Println("wrote", name)
	}
	answer(map[string]any{"outcome": "completed", "summary": fmt.Sprintf("wrote %s (try %d)", feature, tries)})
}

package flowfile

import (
	"os"
	"strings"
	"testing"
	"time"
)

const good = "---\n" +
	"literate: true\n" +
	"description: demo\n" +
	"agent: worker\n" +
	"args: [goal]\n" +
	"---\n" +
	"# Intro\n" +
	"```yaml {config}\n" +
	"step: ask\n" +
	"parse:\n" +
	"  name: string\n" +
	"  count: number\n" +
	"  ok: bool\n" +
	"  color: enum(red, green)\n" +
	"  email: \"What is your email?\"\n" +
	"next:\n" +
	"  \"ok === true && name.includes('x')\": run\n" +
	"  _: end\n" +
	"timeout: 90s\n" +
	"limits: {memory: 512M, pids: 64, cpu: 0.5, network: false}\n" +
	"idempotent: true\n" +
	"```\n" +
	"Hello $name.\n" +
	"\n" +
	"```json\n" +
	"{\"not\": \"exec\"}\n" +
	"```\n" +
	"---\n" +
	"```yaml {config}\n" +
	"step: run\n" +
	"decision:\n" +
	"  prompt: Go?\n" +
	"  options: [yes, {id: no, description: stop here}]\n" +
	"  timeout: 10m\n" +
	"  fallback: no\n" +
	"set:\n" +
	"  n: \"1 + 1\"\n" +
	"```\n" +
	"```bash {exec mode=store}\n" +
	"echo '{\"a\": 1}'\n" +
	"---\n" +
	"```\n" +
	"```python {exec=\"uv run python\" mode=none}\n" +
	"print(1)\n" +
	"```\n" +
	"```sh {exec=zsh}\n" +
	"true\n" +
	"```\n" +
	"```{exec=uv run python -c}\n" +
	"print(2)\n" +
	"```\n" +
	"```ts {exec=deno}\n" +
	"1\n" +
	"```\n" +
	"---\n" +
	"Last step without config.\n" +
	"---\n" +
	"```yaml {config}\n" +
	"step: end\n" +
	"stop: true\n" +
	"```\n" +
	"Bye.\n"

func TestParseGood(t *testing.T) {
	f, err := Parse("good.md", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if f.Description != "demo" || f.Agent != "worker" || len(f.Args) != 1 || len(f.Steps) != 4 {
		t.Fatalf("flow: %+v", f)
	}
	ask := f.Steps[0]
	if ask.Name != "ask" || len(ask.Parse) != 5 || ask.Timeout != 90*time.Second || !ask.Idempotent ||
		ask.Limits != (Limits{MemoryBytes: 512 << 20, Pids: 64, CPU: 0.5, NoNetwork: true}) {
		t.Fatalf("ask: %+v", ask)
	}
	if ask.Parse[3].Type != "enum" || strings.Join(ask.Parse[3].Enum, "|") != "red|green" || ask.Parse[4].Description != "What is your email?" {
		t.Fatalf("parse: %+v", ask.Parse)
	}
	if len(ask.Next.Routes) != 2 || ask.Next.Routes[0].Target != "run" || ask.Next.Routes[1].Cond != "_" {
		t.Fatalf("next: %+v", ask.Next)
	}
	if len(ask.Body) != 1 || !strings.Contains(ask.Body[0].Text, "```json") || strings.Contains(ask.Body[0].Text, "step: ask") {
		t.Fatalf("body: %+v", ask.Body)
	}
	run := f.Steps[1]
	d := run.Decision
	if d == nil || d.Prompt != "Go?" || len(d.Options) != 2 || d.Options[1].Description != "stop here" || d.Fallback != "no" || d.Timeout != 10*time.Minute {
		t.Fatalf("decision: %+v", d)
	}
	ex := run.Execs()
	if len(ex) != 5 {
		t.Fatalf("%d exec blocks", len(ex))
	}
	for i, want := range []struct {
		argv    string
		mode    string
		dialect string
		file    bool
	}{
		{"bash -c", "store", "bash", false},
		{"uv run python -c", "none", "python", false},
		{"zsh -c", "stdout", "zsh", false},
		{"uv run python -c", "stdout", "python", false},
		{"deno", "stdout", "sh", true},
	} {
		if got := strings.Join(ex[i].Program, " "); got != want.argv || ex[i].Mode != want.mode || ex[i].Dialect != want.dialect || ex[i].ViaFile != want.file {
			t.Errorf("exec %d: %q %s %s %v; want %+v", i, got, ex[i].Mode, ex[i].Dialect, ex[i].ViaFile, want)
		}
	}
	if ex[0].Code != "echo '{\"a\": 1}'\n---" {
		t.Errorf("a --- inside a code block split the step: %q", ex[0].Code)
	}
	if f.Steps[2].Name != "step-3" || !f.Steps[3].Stop {
		t.Errorf("default name %q, stop %v", f.Steps[2].Name, f.Steps[3].Stop)
	}
}

func TestCheckReportsEveryErrorWithItsLine(t *testing.T) {
	src := "---\n" + // 1
		"literate: true\n" + // 2
		"colour: blue\n" + // 3
		"---\n" + // 4
		"```yaml {config}\n" + // 5
		"step: a\n" + // 6
		"nxt: b\n" + // 7
		"next: nowhere\n" + // 8
		"parse:\n" + // 9
		"  x: nubmer\n" + // 10
		"```\n" + // 11
		"```cobol {exec}\n" + // 12
		"DISPLAY 'HI'.\n" + // 13
		"```\n" + // 14
		"---\n" + // 15
		"```yaml {config}\n" + // 16
		"step: a\n" + // 17
		"next:\n" + // 18
		"  \"x ===\": a\n" + // 19
		"```\n" + // 20
		"```sh {exec mode=loud}\n" + // 21
		"true\n" + // 22
		"```\n" + // 23
		"---\n" + // 24
		"```yaml {config}\n" + // 25
		"step: [bad\n" + // 26
		"```\n" // 27
	_, err := Parse("bad.md", []byte(src))
	errs, ok := err.(Errors)
	if !ok {
		t.Fatalf("error %T %v", err, err)
	}
	text := errs.Error()
	for _, want := range []string{
		"bad.md:3: unknown frontmatter key \"colour\"",
		"bad.md:7: unknown config key \"nxt\"",
		"bad.md:10: parse x: unknown type \"nubmer\"",
		"bad.md:12: unknown interpreter \"cobol\"",
		"bad.md:19: next: condition \"x ===\"",
		"bad.md:21: unknown exec mode \"loud\"",
		"bad.md:26: bad YAML",
		"duplicate step name \"a\"",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	if strings.Contains(text, "nowhere") {
		t.Errorf("an unknown next target is an error, not a warning:\n%s", text)
	}
}

// literate-commands runs the following step when next names no step, so
// flowdeck warns (and refuses only with --strict).
func TestUnknownNextIsAWarning(t *testing.T) {
	src := "---\nliterate: true\n---\n```yaml {config}\nstep: a\nnext: nowhere\n```\nA\n---\n```yaml {config}\nstep: b\n```\nB\n"
	f, err := Parse("w.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0].Error(), `w.md:6: step "a": next target "nowhere" is not a step`) {
		t.Fatalf("warnings %v", f.Warnings)
	}
	if err := f.Strict(); err == nil {
		t.Fatal("Strict accepted the unknown target")
	}
}

func TestShellSyntaxErrorInCheck(t *testing.T) {
	src := "---\nliterate: true\n---\n```yaml {config}\nstep: a\n```\n```bash {exec}\necho ok\nif then (\n```\n"
	_, err := Parse("s.md", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "s.md:9: bash exec block: shell syntax error") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseRejectsNonFlows(t *testing.T) {
	for _, src := range []string{"", "# just markdown\n", "---\ndescription: x\n---\nstep\n", "---\nliterate: true\n", "---\nliterate: true\n---\n"} {
		if _, err := Parse("x.md", []byte(src)); err == nil {
			t.Errorf("%q parsed", src)
		}
	}
}

func TestTestdataFlowsParse(t *testing.T) {
	data, err := os.ReadFile("../../testdata/flows/literate-commands-project-setup.md")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse("project-setup.md", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Steps) != 5 || f.Steps[2].Execs()[0].Program[0] != "bash" {
		t.Fatalf("%+v", f.Steps)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(good)
	f.Add("---\nliterate: true\n---\n```yaml {config}\nnext: {a: b}\n```\n")
	f.Add("---\nliterate: true\n---\n````\n```\n---\n````\n")
	f.Add("---\nliterate: true\n---\n```sh {exec=\"a b\" mode=store}\nx\n")
	f.Fuzz(func(t *testing.T, src string) {
		fl, err := Parse("fuzz.md", []byte(src))
		if err == nil {
			if len(fl.Steps) == 0 {
				t.Fatal("a flow without steps parsed")
			}
			for _, s := range fl.Steps {
				if s.Next != nil {
					for _, r := range s.Next.Routes {
						if fl.Step(r.Target) == nil && len(fl.Warnings) == 0 {
							t.Fatalf("unknown target %q accepted without a warning", r.Target)
						}
					}
				}
			}
		}
	})
}

// flows check names a condition's method that cannot be evaluated, with
// its line; the supported ones pass.
func TestConditionMethodsChecked(t *testing.T) {
	src := "---\nliterate: true\n---\n```yaml {config}\nstep: a\nnext:\n  \"file.toLowerCase().endsWith('.md') && tags.join(',').startsWith('x')\": b\n  \"name.padEnd(3) === 'x'\": b\n```\nA\n---\n```yaml {config}\nstep: b\n```\nB\n"
	_, err := Parse("m.md", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "m.md:8: next: condition \"name.padEnd(3) === 'x'\": method .padEnd() cannot be evaluated") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "m.md:7") {
		t.Fatalf("a supported method was refused: %v", err)
	}
}

// An sh block is read as dash and bash read it; where they disagree
// ("(( x <<= 1 ))" is a heredoc to dash) flows check says so.
func TestShBlockMustBePOSIX(t *testing.T) {
	src := "---\nliterate: true\n---\n```yaml {config}\nstep: a\n```\n```sh {exec}\nx=1\n(( x <<= 1 ))\necho $x\n```\n"
	if _, err := Parse("p.md", []byte(src)); err == nil || !strings.Contains(err.Error(), "p.md:9: sh exec block: shell syntax error: unclosed here-document") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Parse("p.md", []byte(strings.Replace(src, "```sh", "```bash", 1))); err != nil {
		t.Fatalf("bash: %v", err)
	}
}

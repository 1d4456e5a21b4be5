package flows

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/flows/cond"
	"github.com/flowdeck/flowdeck/flows/interp"
)

func TestBuiltinFlowsParse(t *testing.T) {
	names := BuiltinNames()
	if len(names) < 4 {
		t.Fatalf("built-in flows: %v", names)
	}
	for _, name := range names {
		src, _ := Builtin(name)
		if _, _, err := Load(t.TempDir(), name); err != nil {
			t.Errorf("%s: %v\n", name, err)
		}
		if len(src) == 0 {
			t.Errorf("%s is empty", name)
		}
	}
}

func TestProjectFlowOverridesBuiltin(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(ProjectDir(root), 0o755)
	os.WriteFile(filepath.Join(ProjectDir(root), "plan.md"), []byte("---\nliterate: true\ndescription: mine\n---\nhello\n"), 0o644)
	os.WriteFile(filepath.Join(ProjectDir(root), "broken.md"), []byte("---\nliterate: false\n---\n"), 0o644)
	f, src, err := Load(root, "plan")
	if err != nil || f.Description != "mine" || src != filepath.Join(ProjectDir(root), "plan.md") {
		t.Fatalf("load plan: %v %s %+v", err, src, f)
	}
	var plan, broken *Entry
	list := List(root)
	for i := range list {
		switch list[i].Name {
		case "plan":
			plan = &list[i]
		case "broken":
			broken = &list[i]
		}
	}
	if plan == nil || !plan.Overrides || plan.Builtin || broken == nil || broken.Error == "" {
		t.Fatalf("list: %+v", list)
	}
	if _, _, err := Load(root, "nosuch"); err == nil {
		t.Fatal("an unknown flow loaded")
	}
}

// auto is run in a loop: the steps they share must stay the same text.
func TestAutoAndRunShareTheirSteps(t *testing.T) {
	sections := func(name string) map[string]string {
		src, _ := Builtin(name)
		out := map[string]string{}
		for _, sec := range strings.Split(string(src), "\n---\n") {
			if i := strings.Index(sec, "\nstep: "); i >= 0 {
				step := strings.Fields(sec[i+7:])[0]
				out[step] = sec
			}
		}
		return out
	}
	run, auto := sections("run"), sections("auto")
	shared := 0
	for step, text := range run {
		switch step {
		case "start", "done":
			continue
		}
		if auto[step] != text {
			t.Errorf("step %s differs between run.md and auto.md", step)
		}
		shared++
	}
	if shared < 15 {
		t.Fatalf("only %d shared steps", shared)
	}
}

// auto is the loop over the plan, not one feature: it takes no feature
// (`flows run auto X` would bind X and ignore it) and `flows list` must not
// describe it as run.
func TestAutoIsNotRun(t *testing.T) {
	root := t.TempDir()
	auto, _, err := Load(root, "auto")
	if err != nil {
		t.Fatal(err)
	}
	run, _, err := Load(root, "run")
	if err != nil {
		t.Fatal(err)
	}
	if len(auto.Args) != 0 || auto.Description == run.Description || !strings.Contains(auto.Description, "plan") {
		t.Fatalf("auto: args %v, description %q", auto.Args, auto.Description)
	}
}

// run.md goes on with a requested feature that is already active only when
// its own agent holds it: another agent's claim is not its work. A run the
// scheduler claimed for (claimed: true, no flow run start, so started is
// null) checks the same.
func TestRunContinuesOnlyItsOwnClaim(t *testing.T) {
	f, _, err := Load(t.TempDir(), "run")
	if err != nil {
		t.Fatal(err)
	}
	start := f.Step("start")
	refused := map[string]any{"ok": false, "error": map[string]any{"code": "feature_already_active", "message": "already active"}}
	for _, c := range []struct {
		holder, agent any
		claimed       bool
		want          string
	}{
		{"worker-1", "worker-1", false, "f1"},
		{"worker-2", "worker-1", false, ""},
		{nil, nil, false, "f1"},
		{"worker-2", nil, false, ""},
		{nil, "worker-1", false, ""},
		{"worker-1", "worker-1", true, "f1"},
		{"worker-2", "worker-1", true, ""},
	} {
		feat := map[string]any{"id": "f1", "status": "in_progress"}
		if c.holder != nil {
			feat["agent"] = c.holder
		}
		scope := map[string]any{"feature": "f1", "started": refused, "status": map[string]any{"session": map[string]any{
			"status": "executing", "execution": map[string]any{"active_feature": "f0"},
			"plan": map[string]any{"features": []any{feat}}}}}
		if c.agent != nil {
			scope[VarAgent] = c.agent
		}
		if c.claimed {
			scope[VarClaimed], scope["started"] = true, nil
		}
		for _, a := range start.Set {
			v, err := cond.Value(a.Expr, scope)
			if err != nil {
				t.Fatalf("%s: %v", a.Name, err)
			}
			scope[a.Name] = v
		}
		if scope["feature"] != c.want || (c.want == "") != (scope["last_error"] != "") {
			t.Errorf("held by %v, run of %v, claimed %v: feature %q, want %q; last_error %q", c.holder, c.agent, c.claimed, scope["feature"], c.want, scope["last_error"])
		}
	}
}

// The start step skips its claim only for the scheduler's flow variable
// claimed, never for an environment variable of that name: run in a real
// shell with claimed=true in the environment and no flow variable, it
// still claims.
func TestRunClaimsDespiteAnEnvironmentClaimed(t *testing.T) {
	f, _, err := Load(t.TempDir(), "run")
	if err != nil {
		t.Fatal(err)
	}
	ex := f.Step("start").Execs()[0]
	bin := t.TempDir()
	calls := filepath.Join(bin, "calls")
	fake := "#!/bin/sh\necho \"$*\" >> " + calls + "\necho '{\"ok\":true}'\n"
	if err := os.WriteFile(filepath.Join(bin, "flowdeck"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		vars      map[string]any
		wantClaim bool
	}{
		{map[string]any{"feature": "f1"}, true},
		{map[string]any{"feature": "f1", VarClaimed: true}, false},
	} {
		os.Remove(calls)
		code, err := interp.Code(ex.Code, ex.Dialect, c.vars)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sh", "-c", code)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "claimed=true", "FLOWDECK_DIR="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c.vars, err, out)
		}
		log, _ := os.ReadFile(calls)
		if got := strings.Contains(string(log), "run start"); got != c.wantClaim {
			t.Errorf("vars %v: claimed %v, want %v (calls: %s)", c.vars, got, c.wantClaim, log)
		}
	}
}

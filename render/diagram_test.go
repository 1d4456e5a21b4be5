package render_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/render"
)

// update rewrites the golden files: go test ./render/ -run Golden -update
var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// assertGolden compares got with testdata/golden/name, or rewrites the file
// under -update. Goldens are meant to be read: review them after -update.
func assertGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./render/ -run %s -update creates it)", err, t.Name())
	}
	if got == string(want) {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		gl, wl := "<end>", "<end>"
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Errorf("%s differs from the golden file at line %d (go test ./render/ -update rewrites it)\n got: %q\nwant: %q",
				name, i+1, gl, wl)
			return
		}
	}
}

func TestDiagramGolden(t *testing.T) {
	s := oauthSession(t).s
	assertGolden(t, "diagram.txt", render.DiagramASCII(s))
	assertGolden(t, "diagram.mmd", render.DiagramMermaid(s))
	assertGolden(t, "diagram.dot", render.DiagramDOT(s))
}

// needsFixSession is oauthSession after the reviewer sent the active feature back.
func needsFixSession(t *testing.T) *model.Session {
	r := oauthSession(t)
	r.as("reviewer").do(reviewed("oauth-callback", model.ReviewNeedsFix,
		"The state parameter is not checked against the cookie"))
	return r.s
}

// runningSession is oauthSession after the callback completed and the
// blocked feature was reset (with what waits for it) and restarted.
func runningSession(t *testing.T) *model.Session {
	r := oauthSession(t)
	r.as("reviewer").do(reviewed("oauth-callback", model.ReviewApproved))
	r.as("agent").do(completed("oauth-callback", ""))
	r.as("ana").do(model.ResetFeature{Feature: "rate-limit"})
	r.as("agent").do(model.RunStart{Feature: "rate-limit"})
	return r.s
}

// interruptedSession is runningSession after the restarted feature's agent
// crashed.
func interruptedSession(t *testing.T) *model.Session {
	r := oauthSession(t)
	r.as("reviewer").do(reviewed("oauth-callback", model.ReviewApproved))
	r.as("agent").do(completed("oauth-callback", ""))
	r.as("ana").do(model.ResetFeature{Feature: "rate-limit"})
	r.as("agent").do(model.RunStart{Feature: "rate-limit", Agent: "worker-2"})
	r.as("flowdeck").do(model.RunInterrupt{Feature: "rate-limit", Summary: "agent worker-2 was killed (SIGKILL)"})
	return r.s
}

func TestDiagramGoldenOtherStates(t *testing.T) {
	assertGolden(t, "diagram-needs-fix.txt", render.DiagramASCII(needsFixSession(t)))
	assertGolden(t, "diagram-running.txt", render.DiagramASCII(runningSession(t)))
	s := interruptedSession(t)
	assertGolden(t, "diagram-interrupted.txt", render.DiagramASCII(s))
	assertGolden(t, "diagram-interrupted.mmd", render.DiagramMermaid(s))
	if dot := render.DiagramDOT(s); !strings.Contains(dot, "[INT] interrupted @worker-2") || !strings.Contains(dot, "dashed") {
		t.Errorf("dot does not draw rate-limit interrupted:\n%s", dot)
	}
}

// TestDiagramTags checks every status tag against the state it stands for,
// across the three fixtures (one active feature each, so no single session
// shows RUN, WAIT and FAIL at once).
func TestDiagramTags(t *testing.T) {
	cases := []struct {
		name string
		s    *model.Session
		want map[string]string
	}{
		{"awaiting review", oauthSession(t).s, map[string]string{
			"db-schema": "[OK]", "config-loader": "[OK]", "token-store": "[OK]", "rate-limit": "[BLOCK]",
			"oauth-callback": "[WAIT]", "session-refresh": "[PEND]", "login-ui": "[PEND]"}},
		{"needs fix", needsFixSession(t), map[string]string{"oauth-callback": "[FAIL]", "rate-limit": "[BLOCK]"}},
		{"running", runningSession(t), map[string]string{
			"oauth-callback": "[OK]", "rate-limit": "[RUN]", "session-refresh": "[PEND]", "login-ui": "[PEND]"}},
		{"interrupted", interruptedSession(t), map[string]string{"rate-limit": "[INT]", "session-refresh": "[PEND]"}},
	}
	classes := map[string]string{"[OK]": "ok", "[RUN]": "run", "[WAIT]": "wait", "[FAIL]": "fail", "[BLOCK]": "block", "[PEND]": "pend",
		"[INT]": "int"}
	seen := map[string]bool{}
	for _, c := range cases {
		ascii, mermaid := render.DiagramASCII(c.s), render.DiagramMermaid(c.s)
		for id, tag := range c.want {
			seen[tag] = true
			row := fmt.Sprintf("│ %-7s %s ", tag, id)
			if !strings.Contains(ascii, row) {
				t.Errorf("%s: ascii has no row %q:\n%s", c.name, row, ascii)
			}
			if !mermaidHasClass(mermaid, "f_"+strings.ReplaceAll(id, "-", "_"), classes[tag]) {
				t.Errorf("%s: mermaid does not give %s class %s:\n%s", c.name, id, classes[tag], mermaid)
			}
		}
	}
	if len(seen) != len(classes) {
		t.Errorf("the fixtures show only %v", seen)
	}
}

func mermaidHasClass(mermaid, node, class string) bool {
	for _, l := range strings.Split(mermaid, "\n") {
		fields := strings.Fields(l)
		if len(fields) == 3 && fields[0] == "class" && fields[2] == class {
			for _, n := range strings.Split(fields[1], ",") {
				if n == node {
					return true
				}
			}
		}
	}
	return false
}

// bigPlanSession applies a plan of n features with a deterministic tangle of
// dependencies, some ids of the maximum length, and completes a few.
func bigPlanSession(t *testing.T, n int) *model.Session {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("f-%03d", i)
		if i%13 == 5 {
			ids[i] = fmt.Sprintf("feature-%03d-with-a-long-descriptive-id-that-fills-the-limit-xxxxxx", i)[:model.MaxFeatureIDLen]
		}
	}
	seed := uint32(7)
	rnd := func(k int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>8) % k
	}
	features := make([]model.Feature, n)
	for i := range features {
		f := model.Feature{ID: ids[i], Title: fmt.Sprintf("Feature number %d", i)}
		if i > 0 {
			picked := map[int]bool{}
			for range rnd(5) {
				d := rnd(i)
				if !picked[d] {
					picked[d] = true
					f.DependsOn = append(f.DependsOn, ids[d])
				}
			}
			if i%11 == 0 {
				if d := rnd(i); !picked[d] {
					f.BlockedBy = []string{ids[d]}
				}
			}
		}
		features[i] = f
	}
	// A fan-in wide enough to wrap.
	features[n-1].DependsOn, features[n-1].BlockedBy = ids[:40], nil
	r := newDocsRig(t)
	r.do(model.PlanStart{ID: "big", Goal: "A big plan"},
		model.PlanApply{Plan: model.Plan{Summary: "big", Features: features}}, model.PlanApprove{})
	for range 10 {
		r.do(model.RunStart{})
		id := r.s.Execution.ActiveFeature
		r.do(observed(id, "", "go test ./...", ""), reviewed(id, model.ReviewApproved), completed(id, ""))
	}
	r.do(model.RunStart{})
	return r.s
}

func TestDiagramASCIIStaysReadableForBigPlans(t *testing.T) {
	s := bigPlanSession(t, 120)
	out := render.DiagramASCII(s)
	for i, l := range strings.Split(out, "\n") {
		if w := utf8.RuneCountInString(l); w > 120 {
			t.Errorf("line %d is %d columns wide: %s", i+1, w, l)
		}
	}
	for _, f := range s.Plan.Features {
		rows := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "│ [") && strings.Fields(l)[2] == f.ID {
				rows++
			}
		}
		if rows != 1 {
			t.Errorf("feature %s has %d rows", f.ID, rows)
		}
		deps := featureRowsText(out, f.ID)
		for _, d := range append(append([]string{}, f.DependsOn...), f.BlockedBy...) {
			if !strings.Contains(deps, " "+d) {
				t.Errorf("dependency %s of %s is not shown in its rows %q", d, f.ID, deps)
			}
		}
	}
	levels := model.Levels(s.Plan.Features)
	if got := strings.Count(out, "┌─ level "); got != len(levels) {
		t.Errorf("%d level frames, want %d", got, len(levels))
	}
	if t.Failed() {
		t.Log("\n" + out)
	}
}

// featureRowsText returns the rows an ascii drawing gives feature id: its
// own row and the continuation rows after it, joined by spaces.
func featureRowsText(ascii, id string) string {
	var rows []string
	in := false
	for _, l := range strings.Split(ascii, "\n") {
		switch {
		case strings.HasPrefix(l, "│ ["):
			in = strings.Fields(l)[2] == id
		case !strings.HasPrefix(l, "│ "):
			in = false
		}
		if in {
			rows = append(rows, strings.Trim(l, "│ "))
		}
	}
	return " " + strings.Join(rows, " ")
}

func TestDiagramMermaidHasEveryNodeAndEdge(t *testing.T) {
	for _, s := range []*model.Session{oauthSession(t).s, bigPlanSession(t, 120)} {
		out := render.DiagramMermaid(s)
		lines := map[string]bool{}
		for _, l := range strings.Split(out, "\n") {
			lines[strings.TrimSpace(l)] = true
		}
		if !strings.HasPrefix(out, "graph TD\n") {
			t.Errorf("mermaid does not start with graph TD")
		}
		node := func(id string) string { return "f_" + strings.ReplaceAll(id, "-", "_") }
		for _, f := range s.Plan.Features {
			decl := fmt.Sprintf("%s[\"%s<br/>%s\"]", node(f.ID), f.ID, f.Title)
			if !lines[decl] {
				t.Errorf("%s: no node line %q", s.ID, decl)
			}
			for _, d := range f.DependsOn {
				if e := node(d) + " --> " + node(f.ID); !lines[e] {
					t.Errorf("%s: no edge %q", s.ID, e)
				}
			}
			for _, d := range f.BlockedBy {
				if e := node(d) + " -.-> " + node(f.ID); !lines[e] {
					t.Errorf("%s: no dashed edge %q", s.ID, e)
				}
			}
			classed := 0
			for _, c := range []string{"ok", "run", "wait", "fail", "block", "pend"} {
				if mermaidHasClass(out, node(f.ID), c) {
					classed++
				}
			}
			if classed != 1 {
				t.Errorf("%s: node %s is in %d classes", s.ID, f.ID, classed)
			}
		}
	}
}

func TestDiagramIDsAndLabelsAreEscaped(t *testing.T) {
	r := newDocsRig(t)
	title := "Say \"hi\" <b>#1</b> & `tick` \\ back\nslash"
	r.do(model.PlanStart{ID: "esc", Goal: "escapes"},
		model.PlanApply{Plan: model.Plan{Summary: "s", Features: []model.Feature{
			{ID: "1st", Title: title},
			{ID: "end", Title: "end", DependsOn: []string{"1st"}},
			{ID: "2-x", Title: "x", BlockedBy: []string{"end"}},
		}}})
	mermaid := render.DiagramMermaid(r.s)
	for _, want := range []string{
		`f_1st["1st<br/>Say #34;hi#34; #60;b#62;#35;1#60;/b#62; #38; #96;tick#96; #92; back slash"]`,
		"f_1st --> f_end", "f_end -.-> f_2_x",
	} {
		if !strings.Contains(mermaid, want) {
			t.Errorf("mermaid lacks %q:\n%s", want, mermaid)
		}
	}
	dot := render.DiagramDOT(r.s)
	for _, want := range []string{
		`"1st" [label="1st\nSay \"hi\" <b>#1</b> & ` + "`tick`" + ` \\ back slash\n[PEND] pending"`,
		`"1st" -> "end";`, `"end" -> "2-x" [style=dashed`,
	} {
		if !strings.Contains(dot, want) {
			t.Errorf("dot lacks %q:\n%s", want, dot)
		}
	}
	validateDOT(t, dot)
}

func TestDiagramFormats(t *testing.T) {
	s := oauthSession(t).s
	for format, want := range map[string]string{
		"ascii": render.DiagramASCII(s), "": render.DiagramASCII(s),
		"mermaid": render.DiagramMermaid(s), "dot": render.DiagramDOT(s),
	} {
		got, err := render.Diagram(s, format)
		if err != nil || got != want {
			t.Errorf("Diagram(%q) = %v, differs from its renderer: %v", format, err, got != want)
		}
	}
	_, err := render.Diagram(s, "svg")
	e, ok := model.AsError(err)
	if !ok || e.Code != model.CodeInvalidArgument || !strings.Contains(e.Message, `"svg"`) {
		t.Errorf("Diagram(svg) error = %v, want invalid_argument naming the format", err)
	}
}

func TestDiagramWithoutPlan(t *testing.T) {
	r := newDocsRig(t)
	r.do(model.PlanStart{ID: "empty", Goal: "nothing yet"})
	for _, s := range []*model.Session{nil, r.s} {
		for _, f := range []string{"ascii", "mermaid", "dot"} {
			out, err := render.Diagram(s, f)
			if err != nil || !strings.Contains(out, "no plan yet") {
				t.Errorf("%s diagram without a plan = %q, %v", f, out, err)
			}
		}
	}
}

func TestDiagramDOTIsValidGraphviz(t *testing.T) {
	validateDOT(t, render.DiagramDOT(oauthSession(t).s))
	validateDOT(t, render.DiagramDOT(bigPlanSession(t, 120)))
	validateDOT(t, render.DiagramDOT(hostileSession(t)))
}

// validateDOT renders dot with Graphviz when it is installed and fails on any
// error or warning.
func validateDOT(t *testing.T, dot string) {
	t.Helper()
	bin, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("graphviz `dot` is not installed; DOT output is not validated (apt-get install graphviz)")
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "-Tsvg", "-o", os.DevNull)
	cmd.Stdin, cmd.Stderr = strings.NewReader(dot), &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("dot -Tsvg: %v: %s\n%s", err, stderr.String(), dot)
	}
}

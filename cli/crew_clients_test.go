package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/flowdeck/flowdeck/internal/fakemodel"
	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
)

// crewPlan is the plan the real crew builds: five features at once and one
// that waits for the first, each a file its verification looks for.
const crewPlan = `{"summary": "a crew of real clients", "worktrees": true, "max_parallel": 4, "features": [
	{"id": "alpha", "title": "Alpha", "verification": ["test -f alpha.txt"]},
	{"id": "bravo", "title": "Bravo", "verification": ["test -f bravo.txt"]},
	{"id": "charlie", "title": "Charlie", "verification": ["test -f charlie.txt"]},
	{"id": "delta", "title": "Delta", "verification": ["test -f delta.txt"]},
	{"id": "echo", "title": "Echo", "verification": ["test -f echo.txt"]},
	{"id": "foxtrot", "title": "Foxtrot", "depends_on": ["alpha"], "verification": ["test -f foxtrot.txt"]}]}`

var crewFeatures = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}

// The crew's agents, as the docs' mixed crew configures them, and the
// person's tools of flowdeck's MCP server as Claude Code names them.
const (
	mcpFinal  = "mcp__flowdeck__flow_review_record_final"
	mcpDecide = "mcp__flowdeck__decision_resolve"

	refusingWorker  = "worker-1" // a Claude Code worker that also tries the person's decisions
	sandboxedWorker = "worker-3" // Claude Code with sandbox = true
	opencodeWorker  = "worker-4"
)

// realCrew is a git project whose crew of real clients talks to a fake
// model; the fields are what the test inspects afterwards.
type realCrew struct {
	dir, home string
	env       []string
	fm        *fakemodel.Server
	outside   string // the file the sandboxed worker tries to write
}

// needClient is the installed client's path; it skips (fails under
// FLOWDECK_CI) naming what to install when it is missing.
func needClient(tb testing.TB, c workerClient) string {
	tb.Helper()
	client, _ := filepath.Abs("../.ci/node_modules/.bin/" + c.agent)
	if _, err := os.Stat(client); err != nil {
		msg := c.agent + " is not installed: npm install --prefix .ci " + c.pkg + " (.ci/run does)"
		if os.Getenv("FLOWDECK_CI") != "" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	return client
}

// feature, agent and the catch-up's branch, as a conversation's first
// message (the flow's prompt) names them.
var (
	workerRe  = regexp.MustCompile(`You are the worker on feature \*\*([a-z0-9-]+)\*\*`)
	reviewRe  = regexp.MustCompile(`Review feature \*\*([a-z0-9-]+)\*\*|Final review of the session`)
	agentRe   = regexp.MustCompile("\\*\\*Agent:\\*\\* `(worker-[0-9]+)`")
	catchupRe = regexp.MustCompile("git merge (flowdeck/[A-Za-z0-9._-]+)")
)

// firstText is the text of a conversation's first message: the prompt
// flowdeck gave the client (later messages hold tool output, which may
// name other features).
func firstText(r *fakemodel.Request) string {
	if len(r.Messages) == 0 {
		return ""
	}
	var b strings.Builder
	for _, blk := range r.Messages[0].Blocks() {
		b.WriteString(blk.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// newRealCrew sets up the project: `flowdeck init --agent claude
// --workers` and, when mixed, the docs' mixed crew (worker-3 sandboxed,
// worker-4 opencode) after it; the plan applied and approved by the
// person; the fake model scripting each conversation by its prompt.
func newRealCrew(tb testing.TB, mixed bool) *realCrew {
	tb.Helper()
	claude := needClient(tb, workerClients[0])
	var opencode string
	if mixed {
		opencode = needClient(tb, workerClients[1])
		needSandbox(tb)
	}
	if !gitwork.Available() {
		tb.Skip("git is not installed")
	}
	rc := &realCrew{dir: tb.TempDir(), home: tb.TempDir()}
	rc.outside = filepath.Join(rc.dir, "outside.txt")
	fm, err := fakemodel.NewRouted(rc.script)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { fm.Close() })
	rc.fm = fm
	home := rc.home
	path := filepath.Dir(binary) + string(os.PathListSeparator) + filepath.Dir(claude) + string(os.PathListSeparator) + os.Getenv("PATH")
	rc.env = append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"FLOWDECK_CONFIG=" + filepath.Join(home, "no-user-config.toml"), "PATH=" + path},
		workerClients[0].setup(nil, home, fm.URL)...)
	if mixed {
		workerClients[1].setup(nil, home, fm.URL)
		_ = opencode // on PATH beside claude: both are .ci/node_modules/.bin
		// The person's own Claude Code settings let the project's MCP
		// server (init's .mcp.json) start and its person-decision tools be
		// called without a prompt: whether flowdeck refuses them is what
		// is tested, not whether Claude Code asks first.
		os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
		os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"enableAllProjectMcpServers": true,
  "permissions": {"allow": ["`+mcpFinal+`", "`+mcpDecide+`"]}}`), 0o644)
	}
	git := func(args ...string) {
		tb.Helper()
		if out, err := exec.Command("git", append([]string{"-C", rc.dir}, args...)...).CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("config", "user.name", "tester")
	git("config", "user.email", "tester@example.com")
	rc.must(tb, "init", "--agent", "claude", "--workers")
	if mixed {
		cfg := filepath.Join(rc.dir, ".flow", "config.toml")
		old, err := os.ReadFile(cfg)
		if err != nil {
			tb.Fatal(err)
		}
		os.WriteFile(cfg, append(old, "\n"+mixedCrewDoc(tb)...), 0o644)
	}
	if _, errs, _ := flowdeckEnv(tb, rc.dir, rc.env, "config", "show"); errs != "" {
		tb.Fatalf("the crew's config has problems: %s", errs)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "flowdeck init --workers")
	plan := filepath.Join(home, "plan.json")
	os.WriteFile(plan, []byte(crewPlan), 0o644)
	rc.must(tb, "flow", "plan", "start", "crew")
	rc.must(tb, "flow", "plan", "apply", plan)
	rc.must(tb, "flow", "plan", "approve")
	return rc
}

func (rc *realCrew) must(tb testing.TB, args ...string) string {
	tb.Helper()
	out, errs, code := flowdeckEnv(tb, rc.dir, rc.env, args...)
	if code != 0 {
		tb.Fatalf("flowdeck %v: exit %d\n%s\n%s", args, code, out, errs)
	}
	return out
}

// mixedCrewDoc is the mixed crew's TOML block of docs/flows.md, after
// checking that its worker-3 is init's Claude Code worker with sandbox =
// true and its worker-4 init's opencode worker: what the docs show is
// what this test runs.
func mixedCrewDoc(tb testing.TB) string {
	tb.Helper()
	doc, err := os.ReadFile("../docs/flows.md")
	if err != nil {
		tb.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```toml\n(# worker-3:.*?)```").FindSubmatch(doc)
	if m == nil {
		tb.Fatal("docs/flows.md shows no mixed crew (a toml block starting # worker-3:)")
	}
	var mixed, claude, opencode struct{ Agents map[string]map[string]any }
	if _, err := toml.Decode(string(m[1]), &mixed); err != nil {
		tb.Fatalf("the docs' mixed crew: %v", err)
	}
	for client, into := range map[string]any{"claude": &claude, "opencode": &opencode} {
		scratch := tb.TempDir()
		if out, err := exec.Command("git", "init", "-q", scratch).CombinedOutput(); err != nil {
			tb.Fatalf("git init: %v %s", err, out)
		}
		out, errs, code := flowdeckEnv(tb, scratch, []string{"HOME=" + tb.TempDir(), "FLOWDECK_CONFIG=" + filepath.Join(scratch, "none.toml")},
			"init", "--agent", client, "--workers")
		if code != 0 {
			tb.Fatalf("init --agent %s --workers: exit %d\n%s%s", client, code, out, errs)
		}
		if _, err := toml.DecodeFile(filepath.Join(scratch, ".flow", "config.toml"), into); err != nil {
			tb.Fatal(err)
		}
	}
	want3 := claude.Agents["worker"]
	want3["sandbox"] = true
	if got := mixed.Agents["worker-3"]; fmt.Sprint(got) != fmt.Sprint(want3) {
		tb.Fatalf("the docs' worker-3 is not init's Claude Code worker with sandbox = true:\n%v\n%v", got, want3)
	}
	if got, want := mixed.Agents["worker-4"], opencode.Agents["worker"]; fmt.Sprint(got) != fmt.Sprint(want) {
		tb.Fatalf("the docs' worker-4 is not init's opencode worker:\n%v\n%v", got, want)
	}
	return string(m[1])
}

// script is the fake model's script for the conversation r belongs to.
// A worker writes its feature's file and, unless sandboxed (it cannot
// write the database), records a validation with flowdeck run; worker-1
// also tries the person's decisions, and worker-3 a write outside its
// worktree; each answers with the JSON its prompt asks for. A reviewer
// approves; a catch-up merges the integration branch.
func (rc *realCrew) script(r *fakemodel.Request) []fakemodel.Step {
	c := workerClients[0]
	if !r.HasTool(c.bash) {
		c = workerClients[1]
	}
	answer := func(v string) fakemodel.Step { return fakemodel.Step{Text: "```json\n" + v + "\n```"} }
	sh := func(cmd string) fakemodel.Step {
		return fakemodel.Step{Tool: c.bash, Input: map[string]any{c.command: cmd, "description": "run a command"}}
	}
	text := firstText(r)
	switch {
	case reviewRe.MatchString(text):
		return []fakemodel.Step{answer(`{"verdict": "approved", "findings": []}`)}
	case strings.Contains(text, "merge the integration branch into your branch"):
		branch := "flowdeck/unknown"
		if m := catchupRe.FindStringSubmatch(text); m != nil {
			branch = m[1]
		}
		return []fakemodel.Step{sh("git merge -q --no-edit " + branch),
			answer(`{"catchup_outcome": "completed", "catchup_summary": "merged"}`)}
	}
	m := workerRe.FindStringSubmatch(text)
	if m == nil {
		return []fakemodel.Step{{Text: "no script for this prompt"}}
	}
	f, agent := m[1], ""
	if a := agentRe.FindStringSubmatch(text); a != nil {
		agent = a[1]
	}
	wt := filepath.Join(rc.dir, ".flow", "worktrees", f)
	steps := []fakemodel.Step{{Tool: c.write, Input: map[string]any{c.path: filepath.Join(wt, f+".txt"), c.content: f + "\n"}}}
	switch agent {
	case sandboxedWorker:
		steps = append(steps, sh("echo escaped > "+rc.outside))
	default:
		steps = append(steps, sh("flowdeck run --feature "+f+" -- sh -c 'test -f "+f+".txt'"))
	}
	if agent == refusingWorker {
		steps = append(steps, sh("flowdeck --json decide d-1 approved"), sh("flowdeck --json flow review --final --decision approved"),
			fakemodel.Step{Tool: mcpFinal, Input: map[string]any{"decision": "approved"}},
			fakemodel.Step{Tool: mcpDecide, Input: map[string]any{"decision_id": "d-1", "option": "approved"}})
	}
	return append(steps, answer(`{"outcome": "completed", "summary": "`+f+`.txt written"}`))
}

// toolCall is one tool call of a conversation and what the client sent
// back.
type toolCall struct {
	agent, feature, tool, command string
	result                        string
	isError                       bool
}

// calls are the tool calls of every worker conversation, each once (from
// the conversation's last request, which holds them all).
func (rc *realCrew) calls() []toolCall {
	last := map[string]*fakemodel.Request{}
	for _, r := range rc.fm.Main() {
		text := firstText(r)
		if m := workerRe.FindStringSubmatch(text); m != nil {
			key := m[1]
			if a := agentRe.FindStringSubmatch(text); a != nil {
				key += " " + a[1]
			}
			if prev := last[key]; prev == nil || len(r.Messages) > len(prev.Messages) {
				last[key] = r
			}
		}
	}
	var out []toolCall
	for key, r := range last {
		feature, agent, _ := strings.Cut(key, " ")
		uses := map[string]fakemodel.Block{}
		for _, m := range r.Messages {
			for _, b := range m.Blocks() {
				switch b.Type {
				case "tool_use":
					uses[b.ID] = b
				case "tool_result":
					u := uses[b.ToolUseID]
					var in map[string]any
					json.Unmarshal(u.Input, &in)
					cmd, _ := in["command"].(string)
					out = append(out, toolCall{agent: agent, feature: feature, tool: u.Name, command: cmd,
						result: b.ResultText(), isError: b.IsError})
				}
			}
		}
	}
	return out
}

// crewResult is `flows run auto --parallel N --json`.
type crewResult struct {
	OK   bool `json:"ok"`
	Crew struct {
		Runs []struct {
			Agent, Feature, Status, Error string
		} `json:"runs"`
		Session string `json:"session_status"`
		Reason  string `json:"reason"`
	} `json:"crew"`
}

// run runs `flows run auto --parallel N` (the reviewer's approvals
// trusted) while a person, in the shell, approves the final review; any
// other decision (a worker that failed) ends it: the test fails with it.
// It returns the scheduler's wall time.
func (rc *realCrew) run(tb testing.TB, parallel int) (crewResult, time.Duration) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a backstop against a hang
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "--dir", rc.dir, "--json", "flows", "run", "auto",
		"--parallel", fmt.Sprint(parallel), "--var", "trust_reviewer=true")
	cmd.Env = append(os.Environ(), rc.env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) } // ^C: it stops its agents
	cmd.WaitDelay = time.Minute
	var unexpected []model.Decision
	var mu sync.Mutex
	pctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for pctx.Err() == nil {
			var res struct {
				Decisions []model.Decision `json:"decisions"`
			}
			out, _, _ := flowdeckEnv(tb, rc.dir, rc.env, "--json", "decisions")
			json.Unmarshal([]byte(out), &res)
			for _, d := range res.Decisions {
				if d.Step == "final-confirm" || d.Step == "confirm" {
					flowdeckEnv(tb, rc.dir, rc.env, "decide", d.ID, "approved")
					continue
				}
				mu.Lock()
				unexpected = append(unexpected, d)
				mu.Unlock()
				cancel()
			}
			select {
			case <-pctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	out, errs, code := runProcess(tb, cmd)
	took := time.Since(start)
	stop()
	<-done
	var res crewResult // --parallel 1 is the sequential auto flow: a run, not a crew
	json.Unmarshal([]byte(out), &res)
	var st struct{ Session model.Session }
	json.Unmarshal([]byte(rc.must(tb, "--json", "flow", "status")), &st)
	if len(unexpected) > 0 || code != 0 || st.Session.Status != model.StatusCompleted {
		rc.logConversations(tb)
		tb.Fatalf("flows run auto --parallel %d: exit %d, session %q (%s); decisions for the person: %+v\n%s\n%s",
			parallel, code, st.Session.Status, res.Crew.Reason, unexpected, tail(out, 4000), tail(errs, 4000))
	}
	return res, took
}

// logConversations logs every tool call and its result, for a failure.
func (rc *realCrew) logConversations(tb testing.TB) {
	for _, c := range rc.calls() {
		tb.Logf("%s on %s: %s %q → error %v: %.400s", c.agent, c.feature, c.tool, c.command, c.isError, c.result)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// projectFiles are the bytes of every file of the person's checkout
// outside .git and .flow.
func projectFiles(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	files := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && (rel == ".git" || rel == ".flow") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			b, _ := os.ReadFile(p)
			files[rel] = string(b)
		}
		return nil
	})
	return files
}

// TestCrewOfRealClients is issue 24's proof: a crew of real clients
// installed from npm — two Claude Code workers as `flowdeck init --agent
// claude --workers` writes them, a third in the sandbox and an opencode
// worker, the docs' mixed crew — with Claude Code as the reviewer, in
// worktrees, against flowdeck's fake model on 127.0.0.1. The session
// completes and lands; every agent's runs carry its feature and name; a
// worker's tries at the person's decisions are refused with
// person_decision (what the client got back says so); the sandboxed
// worker's write outside its worktree fails and changes nothing; the four
// workers ran at the same time.
func TestCrewOfRealClients(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a crew of real agent clients (~1 min)")
	}
	rc := newRealCrew(t, true)
	before := projectFiles(t, rc.dir)
	res, took := rc.run(t, 4)
	t.Logf("the crew of 4 real clients took %s", took.Round(time.Millisecond))
	defer func() {
		if t.Failed() {
			rc.logConversations(t)
		}
	}()

	// Nothing outside a worktree changed before land, the sandboxed
	// worker's try included.
	if after := projectFiles(t, rc.dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the person's checkout changed during the crew:\nbefore %v\nafter  %v", before, after)
	}
	if _, err := os.Stat(rc.outside); err == nil {
		t.Errorf("the sandboxed worker wrote %s", rc.outside)
	}

	// Every feature was a worker's, each worker had one at least, and the
	// land brings every feature's file onto main.
	byAgent := map[string][]string{}
	for _, r := range res.Crew.Runs {
		byAgent[r.Agent] = append(byAgent[r.Agent], r.Feature)
	}
	for _, w := range []string{"worker-1", "worker-2", "worker-3", "worker-4"} {
		if len(byAgent[w]) == 0 {
			t.Errorf("%s ran no feature: %v", w, byAgent)
		}
	}
	rc.must(t, "flow", "land")
	for _, f := range crewFeatures {
		if b, err := exec.Command("git", "-C", rc.dir, "show", "main:"+f+".txt").Output(); err != nil || string(b) != f+"\n" {
			t.Errorf("main's %s.txt after land: %q %v", f, b, err)
		}
	}

	// What each client's tools got back.
	calls := rc.calls()
	var refusedCLI, refusedMCP, sandboxTries, runs int
	for _, c := range calls {
		switch {
		case c.tool == mcpFinal || c.tool == mcpDecide || strings.Contains(c.command, "decide") || strings.Contains(c.command, "review --final"):
			if c.agent != refusingWorker || !c.isError || !strings.Contains(c.result, codePersonDecision) {
				t.Errorf("%s's %s %q: error %v, %q", c.agent, c.tool, c.command, c.isError, c.result)
			}
			if c.command == "" {
				refusedMCP++
			} else {
				refusedCLI++
			}
		case strings.Contains(c.command, rc.outside):
			if c.agent != sandboxedWorker || !c.isError || !strings.Contains(c.result, "Read-only file system") {
				t.Errorf("%s's %q: error %v, %q", c.agent, c.command, c.isError, c.result)
			}
			sandboxTries++
		case strings.Contains(c.command, "flowdeck run --feature"):
			if c.isError {
				t.Errorf("%s's %q failed: %q", c.agent, c.command, c.result)
			}
			runs++
		case c.tool == "Write" || c.tool == "write":
			if c.isError {
				t.Errorf("%s's write on %s failed: %q", c.agent, c.feature, c.result)
			}
		}
	}
	if refusedCLI < 2 || refusedMCP < 2 || sandboxTries == 0 || runs == 0 {
		t.Errorf("refused person's decisions: %d through the CLI, %d over MCP (want 2+ each); sandboxed tries %d, flowdeck runs %d",
			refusedCLI, refusedMCP, sandboxTries, runs)
	}
	var st struct{ Session model.Session }
	if err := json.Unmarshal([]byte(rc.must(t, "--json", "flow", "status", "--full")), &st); err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Session.Execution.FinalReviews {
		if strings.HasPrefix(r.Actor, "worker-") {
			t.Errorf("a worker recorded the final review: %+v", r)
		}
	}

	// Every run of an agent names its feature and agent; the agents' own
	// runs are their clients (worker-3's under bwrap, worker-4's
	// opencode), and the four ran at the same time.
	var all struct{ Runs []model.RunRecord }
	if err := json.Unmarshal([]byte(rc.must(t, "--json", "runs", "--all", "--limit", "0")), &all); err != nil {
		t.Fatal(err)
	}
	type span struct{ start, end time.Time }
	clientRuns := map[string][]span{}
	for _, r := range all.Runs {
		if !strings.HasPrefix(r.Actor, "worker-") {
			continue
		}
		if !slices.Contains(crewFeatures, r.Feature) || !slices.Contains(byAgent[r.Actor], r.Feature) {
			t.Errorf("a run of %s names feature %q (its features: %v): %q", r.Actor, r.Feature, byAgent[r.Actor], r.Argv)
		}
		client := ""
		for _, a := range r.Argv {
			if b := filepath.Base(a); b == "claude" || b == "opencode" {
				client = b
			}
		}
		if client != "" {
			want := "claude"
			if r.Actor == opencodeWorker {
				want = "opencode"
			}
			sandboxed := filepath.Base(r.Argv[0]) == "bwrap"
			if client != want || sandboxed != (r.Actor == sandboxedWorker) {
				t.Errorf("%s's agent run: %q", r.Actor, r.Argv)
			}
			clientRuns[r.Actor] = append(clientRuns[r.Actor], span{r.Start, r.Start.Add(r.Duration)})
		}
	}
	if len(clientRuns) != 4 {
		t.Fatalf("client runs by agent: %v", clientRuns)
	}
	// Four at once: some moment lies within a client run of every worker.
	var starts []time.Time
	for _, spans := range clientRuns {
		for _, s := range spans {
			starts = append(starts, s.start)
		}
	}
	most := 0
	for _, at := range starts {
		n := 0
		for _, spans := range clientRuns {
			if slices.ContainsFunc(spans, func(s span) bool { return !at.Before(s.start) && at.Before(s.end) }) {
				n++
			}
		}
		most = max(most, n)
	}
	if most < 4 {
		t.Errorf("at most %d workers ran at once, want 4: %v", most, clientRuns)
	}
}

// BenchmarkCrewOfRealClients is the wall time of the same plan built by
// one and by three real Claude Code workers (as init writes them), the
// reviewer's approvals trusted and the final review the person's, with
// the fake model answering at once and with a latency per answer, as a
// real model has; it reports the times and their ratios. go test ./cli
// -run '^$' -bench CrewOfRealClients -benchtime 1x
func BenchmarkCrewOfRealClients(b *testing.B) {
	for _, latency := range []time.Duration{0, time.Second} {
		var one, three time.Duration
		for i := 0; i < b.N; i++ {
			for _, n := range []int{1, 3} {
				rc := newRealCrew(b, false)
				rc.fm.Latency = latency
				_, took := rc.run(b, n)
				if n == 1 {
					one += took
				} else {
					three += took
				}
			}
		}
		tag := fmt.Sprintf("latency-%s", latency)
		b.ReportMetric(one.Seconds()/float64(b.N), "s/1-worker-"+tag)
		b.ReportMetric(three.Seconds()/float64(b.N), "s/3-workers-"+tag)
		b.ReportMetric(three.Seconds()/one.Seconds(), "ratio-"+tag)
		b.Logf("%d features, model latency %s per answer: 1 worker %s, 3 workers %s, ratio %.2f", len(crewFeatures), latency,
			(one / time.Duration(b.N)).Round(time.Millisecond), (three / time.Duration(b.N)).Round(time.Millisecond), three.Seconds()/one.Seconds())
	}
}

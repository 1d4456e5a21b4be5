package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/demo"
	"github.com/flowdeck/flowdeck/internal/fakemodel"
	"github.com/flowdeck/flowdeck/model"
)

// TestCrewClaudeReviewerSeesTheChange runs the crew with the real Claude
// Code (from npm, as .ci/run installs it) as its reviewer agent, against a
// fake model on 127.0.0.1 that approves: every feature's review prompt
// holds the lines the worker added (flowdeck diff, not git log lines), and
// the final review's prompt holds every feature's.
func TestCrewClaudeReviewerSeesTheChange(t *testing.T) {
	claude, _ := filepath.Abs("../.ci/node_modules/.bin/claude")
	if _, err := os.Stat(claude); err != nil {
		msg := "claude is not installed: npm install --prefix .ci @anthropic-ai/claude-code (.ci/run does)"
		if os.Getenv("FLOWDECK_CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if testing.Short() {
		t.Skip("-short: runs 12 features through real agent processes")
	}
	verdict := "```json\n{\"verdict\": \"approved\", \"findings\": []}\n```"
	fm, err := fakemodel.New([]fakemodel.Step{{Text: verdict}})
	if err != nil {
		t.Fatal(err)
	}
	defer fm.Close()
	crew, st, _ := crewProject(t, 3, 50*time.Millisecond)
	home := t.TempDir()
	crew.Engine.Agents["reviewer"] = config.Agent{
		Command: []string{claude, "-p", "--model", "claude-sonnet-4-5"},
		Timeout: "5m",
		Env: map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
			"ANTHROPIC_BASE_URL": fm.URL, "ANTHROPIC_API_KEY": "sk-ant-fake",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	var seen []model.Decision
	var mu sync.Mutex
	pctx, stop := context.WithCancel(ctx)
	go person(pctx, st, &seen, &mu)
	rep, err := crew.Run(ctx)
	stop()
	if err != nil {
		t.Fatalf("crew: %v", err)
	}
	if rep.Session != model.StatusCompleted {
		for _, r := range rep.Runs {
			if fr, err := st.FlowRun(r.Run); err == nil && fr.Error != "" {
				t.Logf("run %s of %s: %s", r.Run, r.Feature, fr.Error)
			}
		}
		t.Fatalf("the crew ended with the session %s: %s; runs %+v", rep.Session, rep.Reason, rep.Runs)
	}
	var final string
	reviewed := map[string]bool{}
	for _, r := range fm.Main() {
		text := r.Text()
		if strings.Contains(text, "Final review of the session") {
			final = text
		}
		for _, f := range demo.CrewPlan().Features {
			if strings.Contains(text, "Review feature **"+f.ID+"**") && strings.Contains(text, "+// "+f.ID+": built by worker-") {
				reviewed[f.ID] = true
			}
		}
	}
	for _, f := range demo.CrewPlan().Features {
		if !reviewed[f.ID] {
			t.Errorf("no review prompt of %s holds the worker's added line", f.ID)
		}
		if !strings.Contains(final, "+// "+f.ID+": built by worker-") {
			t.Errorf("the final review prompt lacks %s's added line", f.ID)
		}
	}
	if t.Failed() && len(fm.Main()) > 0 {
		t.Logf("a review prompt:\n%s", fm.Main()[0].Text())
	}
}

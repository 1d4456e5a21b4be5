package flows

import (
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
)

// RunView is what a flow pane shows of a run: its steps with the current
// one marked, the latest prompt, the pending decision, and whether a process
// executes it.
type RunView struct {
	Run       model.FlowRun   `json:"run"`
	Steps     []StepView      `json:"steps"`
	Prompt    string          `json:"prompt"`
	Decision  *model.Decision `json:"decision,omitempty"`
	Executing bool            `json:"executing"`
	// Runs are the capture runs of the current step so far (their output
	// is in the store: Store.ReadOutput); while InFlight is set, the newest
	// run started after InFlight.Started is the one streaming.
	Runs []string `json:"runs,omitempty"`
	// PromptStep is the step Prompt belongs to: while a step's exec blocks
	// run, the latest prompt is an earlier step's.
	PromptStep string `json:"prompt_step,omitempty"`
}

// StepView is one step of the flow.
type StepView struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"` // agent ROLE, human, exec, message
	Current bool   `json:"current"`
	Visits  int    `json:"visits"`
}

// View reads everything a flow pane needs about run id.
func View(st *db.Store, id string) (*RunView, error) {
	run, err := st.FlowRun(id)
	if err != nil {
		return nil, err
	}
	v := &RunView{Run: *run, Executing: Executing(st, id)}
	v.Run.Text = ""
	visits := map[string]int{}
	for _, h := range run.History {
		visits[h.Step]++
	}
	if n := len(run.History); n > 0 {
		v.Runs = run.History[n-1].Runs
	}
	if f, _ := flowfile.Parse(run.Source, []byte(run.Text)); f != nil {
		for _, s := range f.Steps {
			v.Steps = append(v.Steps, StepView{Name: s.Name, Kind: stepKind(f, s), Current: s.Index == run.StepIndex && !model.FlowEnded(run.Status), Visits: visits[s.Name]})
		}
	}
	events, err := st.FlowEvents(id, 1, 0)
	if err != nil {
		return nil, err
	}
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type == model.FlowEvPrompt && events[i].Prompt != "" {
			v.Prompt, v.PromptStep = events[i].Prompt, events[i].Step
			break
		}
	}
	if run.Decision != "" {
		if d, err := st.Decision(run.Decision); err == nil {
			v.Decision = d
		}
	}
	return v, nil
}

func stepKind(f *flowfile.Flow, s *flowfile.Step) string {
	switch {
	case s.Decision != nil || s.Agent == "human":
		return "human"
	case s.Agent != "":
		return "agent " + s.Agent
	case len(s.Parse) > 0 && f.Agent != "":
		return "agent " + f.Agent
	case len(s.Parse) > 0:
		return "human"
	case len(s.Execs()) > 0:
		return "exec"
	}
	return "message"
}

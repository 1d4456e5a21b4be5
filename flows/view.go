package flows

import (
	"regexp"
	"strings"

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
	// Args names the flow's positional arguments and Asked the variables
	// its steps collect (parse), in file order: what a person reads as the
	// run's subject and answers, unlike the variables a flow computes for
	// itself (set, exec blocks in store mode).
	Args  []string `json:"args,omitempty"`
	Asked []string `json:"asked,omitempty"`
	// Answer is what the latest agent or store-mode exec block that set
	// variables answered, so the pane can say it in words instead of
	// showing the JSON at the end of its output.
	Answer *ActionAnswer `json:"answer,omitempty"`
}

// ActionAnswer is the variables one action set (the engine's own exec and
// agent records left out) and the capture run that printed them.
type ActionAnswer struct {
	Step string         `json:"step"`
	Kind string         `json:"kind"` // agent or exec
	Run  string         `json:"run"`
	Vars map[string]any `json:"vars"`
}

// StepView is one step of the flow.
type StepView struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"` // agent ROLE, human, exec, message
	Current bool   `json:"current"`
	Visits  int    `json:"visits"`
	// Title is the step's heading in the flow file, else its name in words
	// (dashes and underscores as spaces); as the file wrote it, unsanitised.
	Title string `json:"title"`
	// Internal marks the flow's plumbing: nobody answers the step and it has
	// no text for a person (only set, routing, or exec blocks that store or
	// discard their output).
	Internal bool `json:"internal,omitempty"`
	// End is a stop step: where a run ends, not a stage on the way.
	End bool `json:"end,omitempty"`
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
		v.Args = f.Args
		seen := map[string]bool{}
		for _, s := range f.Steps {
			kind := stepKind(f, s)
			title, prose := stepText(s)
			v.Steps = append(v.Steps, StepView{Name: s.Name, Kind: kind, Current: s.Index == run.StepIndex && !model.FlowEnded(run.Status), Visits: visits[s.Name],
				Title: title, End: s.Stop || s.Refused, Internal: (kind == "exec" || kind == "message") && !prose && !s.Stop && !s.Refused})
			for _, p := range s.Parse {
				if !seen[p.Name] {
					seen[p.Name] = true
					v.Asked = append(v.Asked, p.Name)
				}
			}
		}
	}
	events, err := st.FlowEvents(id, 1, 0)
	if err != nil {
		return nil, err
	}
	for i := len(events) - 1; i >= 0 && (v.PromptStep == "" || v.Answer == nil); i-- {
		e := events[i]
		switch {
		case e.Type == model.FlowEvPrompt && e.Prompt != "" && v.PromptStep == "":
			v.Prompt, v.PromptStep = e.Prompt, e.Step
		case e.Type == model.FlowEvActionFinished && e.RunID != "" && v.Answer == nil:
			a := &ActionAnswer{Step: e.Step, Kind: e.Kind, Run: e.RunID, Vars: map[string]any{}}
			for k, x := range e.Vars {
				if k != "exec" && k != "agent" {
					a.Vars[k] = x
				}
			}
			if len(a.Vars) > 0 {
				v.Answer = a
			} else {
				v.Answer = &ActionAnswer{} // the latest action answered nothing: stop looking
			}
		}
	}
	if v.Answer != nil && v.Answer.Run == "" {
		v.Answer = nil
	}
	if run.Decision != "" {
		if d, err := st.Decision(run.Decision); err == nil {
			v.Decision = d
		}
	}
	return v, nil
}

// stepText finds a step's title (its first markdown heading outside code
// blocks; in the first step a level-1 heading is the file's title, not the
// step's) and whether the step has prose for a person besides headings.
func stepText(s *flowfile.Step) (title string, prose bool) {
	fence := ""
	for _, seg := range s.Body {
		for _, l := range strings.Split(seg.Text, "\n") {
			t := strings.TrimSpace(l)
			if fence != "" {
				if strings.HasPrefix(t, fence) {
					fence = ""
				}
				continue
			}
			if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
				fence = t[:3]
				continue
			}
			if h := heading.FindStringSubmatch(t); h != nil {
				if title == "" && !(s.Index == 0 && len(h[1]) == 1) {
					title = strings.TrimSpace(strings.TrimRight(h[2], "# "))
				}
				continue
			}
			if t != "" && !strings.HasPrefix(t, "<!--") {
				prose = true
			}
		}
	}
	if title == "" {
		title = strings.TrimSpace(strings.NewReplacer("-", " ", "_", " ").Replace(s.Name))
	}
	return title, prose
}

var heading = regexp.MustCompile(`^(#{1,6})\s+(.*)$`)

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

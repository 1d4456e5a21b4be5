package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/project"
)

type server struct {
	p    *project.Project
	opts Options
	srv  *sdk.Server

	mu   sync.Mutex
	docs map[string]bool // feature doc URIs listed as resources
	// subscribed are the sessions subscribed to the glance; the watcher
	// (watch.go) runs while there are any: stopWatch ends it, watchDone
	// is closed when it returned.
	subscribed map[*sdk.ServerSession]bool
	stopWatch  context.CancelFunc
	watchDone  chan struct{}
}

// Tool arguments. Names follow the CLI in snake_case; fields without
// omitempty are required by the generated schema.
type (
	// agent is in every tool's arguments.
	agent struct {
		AgentID string `json:"agent_id,omitempty" jsonschema:"who acts; recorded on the events (default: the MCP client's name)"`
	}
	// full is in the arguments of the actions and flow_status.
	full struct {
		Full bool `json:"full,omitempty" jsonschema:"return the whole stored session (every evidence, review, note and history item) instead of a summary"`
	}
	// guard is in the arguments of the actions.
	guard struct {
		ExpectSeq uint64 `json:"expect_seq,omitempty" jsonschema:"the session sequence you decided on (flow_status shows it as session.seq): refused with stale_decision if what this action decides changed since"`
	}
	statusArgs struct {
		agent
		full
	}
	actionArgs struct {
		agent
		full
		guard
	}
	historyArgs struct {
		agent
		SessionID string `json:"session_id,omitempty" jsonschema:"a stored session's id: its whole event log; omitted: the list of sessions"`
	}
	goalArgs struct {
		agent
		full
		guard
		Goal string `json:"goal" jsonschema:"what the session delivers"`
	}
	planArgs struct {
		agent
		full
		guard
		Plan planInput `json:"plan" jsonschema:"the plan: features with ids, titles, verification commands and dependencies"`
	}
	selectArgs struct {
		agent
		full
		guard
		FeatureIDs []string `json:"feature_ids" jsonschema:"the features to keep (their dependencies are kept too)"`
	}
	optionalFeatureArgs struct {
		agent
		full
		guard
		FeatureID string `json:"feature_id,omitempty" jsonschema:"the feature to start; omitted: the first runnable one in plan order"`
		// Agent claims the feature for a worker (several may be active when
		// the plan's max_parallel allows), as the CLI's --agent does.
		Agent string `json:"agent,omitempty" jsonschema:"the worker agent that claims the feature; shown with it while it is active"`
	}
	featureArgs struct {
		agent
		full
		guard
		FeatureID string `json:"feature_id" jsonschema:"a feature id of the plan"`
	}
	validateArgs struct {
		agent
		full
		guard
		FeatureID string `json:"feature_id" jsonschema:"the active feature"`
		Status    string `json:"status" jsonschema:"what the validation showed"`
		Scope     string `json:"scope" jsonschema:"targeted (this feature) or broad (the whole project)"`
		Command   string `json:"command" jsonschema:"the command that was run"`
		Summary   string `json:"summary,omitempty" jsonschema:"what it showed, e.g. 12 passed, 0 failed"`
	}
	reviewArgs struct {
		agent
		full
		guard
		FeatureID string   `json:"feature_id" jsonschema:"the active feature"`
		Decision  string   `json:"decision" jsonschema:"the reviewer's verdict"`
		Findings  []string `json:"findings,omitempty" jsonschema:"what the reviewer found"`
	}
	finalReviewArgs struct {
		agent
		full
		guard
		Decision string   `json:"decision" jsonschema:"the reviewer's verdict on the whole session"`
		Findings []string `json:"findings,omitempty" jsonschema:"what the reviewer found"`
	}
	completeArgs struct {
		agent
		full
		guard
		FeatureID string `json:"feature_id" jsonschema:"the active feature"`
		Outcome   string `json:"outcome" jsonschema:"how the work ended; completed is checked against the evidence and review gates"`
		Summary   string `json:"summary,omitempty" jsonschema:"what was done, or why it stopped"`
	}
	sessionArgs struct {
		agent
		full
		guard
		SessionID string `json:"session_id" jsonschema:"a stored session's id (see flow_history)"`
	}
	noteArgs struct {
		agent
		full
		guard
		Text string `json:"text" jsonschema:"the note"`
	}
	runArgs struct {
		agent
		Command   []string `json:"command" jsonschema:"the argv to run, e.g. [\"go\", \"test\", \"./...\"]; no shell unless you name one"`
		FeatureID string   `json:"feature_id,omitempty" jsonschema:"record the result as observed validation evidence on this active feature"`
		Scope     string   `json:"scope,omitempty" jsonschema:"evidence scope (default targeted)"`
		Timeout   string   `json:"timeout,omitempty" jsonschema:"kill the whole run after this long, e.g. 90s or 10m (default: the config's)"`
	}
	recallArgs struct {
		agent
		Query     string `json:"query" jsonschema:"what to look for (fuzzy, case-insensitive)"`
		FeatureID string `json:"feature_id,omitempty" jsonschema:"search only runs made for this feature"`
		RunID     string `json:"run_id,omitempty" jsonschema:"search only this run"`
		Limit     int    `json:"limit,omitempty" jsonschema:"how many lines (default 50)"`
	}
	diagramArgs struct {
		agent
		Format string `json:"format,omitempty" jsonschema:"ascii (default), mermaid or dot"`
	}
	decisionsArgs struct {
		agent
		All bool `json:"all,omitempty" jsonschema:"also the resolved, expired and cancelled ones (default: pending only)"`
	}
	resolveArgs struct {
		agent
		DecisionID string            `json:"decision_id" jsonschema:"the decision, e.g. d3 (see decisions_list)"`
		Option     string            `json:"option,omitempty" jsonschema:"one of the decision's options, or free text when it has none"`
		Note       string            `json:"note,omitempty" jsonschema:"why"`
		Vars       map[string]string `json:"vars,omitempty" jsonschema:"a form's values by field name"`
	}
)

// planInput is the plan JSON of the README as a typed argument, so that the
// agent sees its schema; it is checked by the same parser as a plan file.
type planInput struct {
	Summary      string         `json:"summary,omitempty"`
	Overview     string         `json:"overview,omitempty"`
	Requirements []string       `json:"requirements,omitempty"`
	Decisions    []string       `json:"decisions,omitempty"`
	Features     []featureInput `json:"features"`
	Completion   *struct {
		MinCompletedFeatures int `json:"min_completed_features,omitempty" jsonschema:"how many completed features complete the session (default all)"`
	} `json:"completion,omitempty"`
	MaxParallel int   `json:"max_parallel,omitempty" jsonschema:"how many features may be active at once (default: the config's session.max_parallel, else 1)"`
	Worktrees   *bool `json:"worktrees,omitempty" jsonschema:"run each active feature in its own git worktree (default: in a git repository when max_parallel > 1)"`
}

type featureInput struct {
	ID           string   `json:"id" jsonschema:"kebab-case, unique in the plan"`
	Title        string   `json:"title,omitempty"`
	Summary      string   `json:"summary,omitempty"`
	Files        []string `json:"files,omitempty" jsonschema:"files the feature touches"`
	Verification []string `json:"verification,omitempty" jsonschema:"commands that prove the feature works"`
	DependsOn    []string `json:"depends_on,omitempty" jsonschema:"ids of features that must complete first"`
	BlockedBy    []string `json:"blocked_by,omitempty" jsonschema:"ids of features that block this one"`
}

// enums are the allowed values of arguments, by name; the schema says them
// so that an agent does not have to guess.
var enums = map[string][]any{
	"status":   {"passed", "failed", "partial"},
	"scope":    {"targeted", "broad"},
	"decision": {"approved", "needs_fix", "blocked"},
	"outcome":  {"completed", "replan_required", "blocked", "needs_input"},
	"format":   {"ascii", "mermaid", "dot"},
}

// coreTools are the tools of every feature's loop. Claude Code keeps tools
// marked anthropic/alwaysLoad in the model's context instead of behind its
// tool search, so the model can call flow_status without searching first.
var coreTools = []string{"flow_status", "flow_plan_start", "flow_plan_apply", "flow_plan_approve", "flow_run_start",
	"run", "flow_review_record_feature", "flow_run_complete_feature", "flow_review_record_final"}

// addTool registers a tool whose input schema comes from In (with enums
// filled in) and whose result is an ops object. Arguments are checked here
// against that schema (see decodeArgs), so that a bad one is refused in the
// same shape as every other refusal.
func addTool[In any](s *server, name, desc string, readOnly bool, h func(ctx context.Context, req *sdk.CallToolRequest, in In) (ops.Result, error)) {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("schema of %s: %v", name, err))
	}
	for prop, values := range enums {
		if p := schema.Properties[prop]; p != nil {
			p.Enum = values
		}
	}
	noNullLists(schema)
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("schema of %s: %v", name, err))
	}
	tool := &sdk.Tool{Name: name, Description: desc, InputSchema: schema}
	if slices.Contains(coreTools, name) {
		tool.Meta = sdk.Meta{"anthropic/alwaysLoad": true}
	}
	if readOnly {
		tool.Annotations = &sdk.ToolAnnotations{ReadOnlyHint: true}
	}
	s.srv.AddTool(tool, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in In
		if bad := decodeArgs(req.Params.Arguments, schema, resolved, &in); bad != nil {
			return toolResult(ops.Refused(bad), nil)
		}
		// agent_id is recorded as the actor of the call's events, runs and
		// answers: held to the agent-name rule before anything is stored.
		if a, ok := any(in).(interface{ agentID() string }); ok && a.agentID() != "" {
			if err := model.CheckAgentName("agent_id", a.agentID()); err != nil {
				return toolResult(nil, ops.FieldErrorf("agent_id", "%v", err))
			}
		}
		return toolResult(h(ctx, req, in))
	})
}

// noNullLists makes list arguments plain arrays: the inferred schema also
// allows null (a nil Go slice), which no caller means to send.
func noNullLists(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if slices.Equal(s.Types, []string{"null", "array"}) {
		s.Type, s.Types = "array", nil
	}
	for _, p := range s.Properties {
		noNullLists(p)
	}
	noNullLists(s.Items)
}

// toolResult turns an operation's outcome into the tool's answer: the ops
// object as structured content and as text; refusals, bad arguments and
// failures are tool errors that carry the same kind of object.
func toolResult(res ops.Result, err error) (*sdk.CallToolResult, error) {
	var out any = res
	isErr := false
	switch {
	case ops.IsArgError(err):
		out, isErr = ops.Refused(&model.Error{
			Code: model.CodeInvalidArgument, Message: err.Error(), Field: ops.ArgField(err),
			Recovery: model.Recovery{Hint: "Fix the argument; the tool's input schema lists the allowed values."},
		}), true
	case err != nil:
		out, isErr = ops.Failed(err), true
	case res.Refusal() != nil:
		isErr = true
	}
	data, merr := json.Marshal(out)
	if merr != nil {
		return nil, fmt.Errorf("encode result: %w", merr)
	}
	return &sdk.CallToolResult{IsError: isErr, Content: []sdk.Content{&sdk.TextContent{Text: string(data)}},
		StructuredContent: json.RawMessage(data)}, nil
}

// actor is who acts in a call: its agent_id, else the server's --actor,
// else the client's name from the initialize handshake.
func (s *server) actor(req *sdk.CallToolRequest, a agent) string {
	if a.AgentID != "" {
		return a.AgentID
	}
	if s.opts.Actor != "" {
		return s.opts.Actor
	}
	if s.opts.Person {
		return "human" // the person, whatever the client calls itself
	}
	// The client names itself: a name that is not a valid actor (a space,
	// a newline, an escape) is not recorded; "mcp" stands in for it.
	if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && model.ValidAgentName(p.ClientInfo.Name) {
		return p.ClientInfo.Name
	}
	return "mcp"
}

// agentID lets addTool check the agent_id every tool's arguments embed.
func (a agent) agentID() string { return a.AgentID }

// do executes an action as the call's actor, guarded by its expect_seq.
// An action that stored events changed the docs: connected clients hear of
// it (resources/list_changed).
func (s *server) do(req *sdk.CallToolRequest, a agent, f full, g guard, act model.Action) (ops.Result, error) {
	res, err := s.p.As(s.actor(req, a)).Do(act, g.ExpectSeq, f.Full)
	if err == nil && len(res.Raw) > 0 {
		s.docsChanged()
	}
	return asResult(res, err)
}

// asResult passes on an ops call's typed result, so that a nil *T with an
// error never becomes a non-nil ops.Result.
func asResult[T ops.Result](res T, err error) (ops.Result, error) {
	if err != nil {
		return nil, err
	}
	return res, nil
}

// addTools registers every tool the server offers, by group.
func (s *server) addTools() {
	s.addPlanTools()
	s.addExecutionTools()
	s.addInterruptTools()
	s.addOutputTools()
	s.addLandTool()
}

// addPlanTools registers the tools that read the session and shape its plan.
func (s *server) addPlanTools() {
	addTool(s, "flow_status", "The active session, its plan and features, and the next command.", true,
		func(ctx context.Context, req *sdk.CallToolRequest, in statusArgs) (ops.Result, error) {
			return asResult(s.p.Status(in.Full))
		})
	addTool(s, "flow_history", "List the stored sessions, or one session's whole event log.", true,
		func(ctx context.Context, req *sdk.CallToolRequest, in historyArgs) (ops.Result, error) {
			return s.p.History(in.SessionID)
		})
	addTool(s, "flow_plan_start", "Start a new planning session with a goal.", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in goalArgs) (ops.Result, error) {
			return s.do(req, in.agent, in.full, in.guard, model.PlanStart{Goal: in.Goal})
		})
	addTool(s, "flow_plan_apply", "Apply a plan to the session (replaces the plan while planning; every feature becomes pending).", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in planArgs) (ops.Result, error) {
			data, err := json.Marshal(in.Plan)
			if err != nil {
				return nil, err
			}
			p, err := model.ParsePlan(data)
			if err != nil {
				return nil, ops.FieldErrorf("plan", "plan: %v", err)
			}
			return s.do(req, in.agent, in.full, in.guard, model.PlanApply{Plan: *p})
		})
	addTool(s, "flow_plan_select_features", "Narrow the plan to these features (with all their dependencies) while planning.", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in selectArgs) (ops.Result, error) {
			return s.do(req, in.agent, in.full, in.guard, model.PlanSelect{FeatureIDs: in.FeatureIDs})
		})
	addTool(s, "flow_plan_approve", "Approve the plan for execution.", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in actionArgs) (ops.Result, error) {
			return s.do(req, in.agent, in.full, in.guard, model.PlanApprove{})
		})
}

// addExecutionTools registers the tools that move features through a run
// and keep the session's record.
func (s *server) addExecutionTools() {
	addTool(s, "flow_run_start", "Start a feature (default: the first runnable one in plan order).", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in optionalFeatureArgs) (ops.Result, error) {
			return s.do(req, in.agent, in.full, in.guard, model.RunStart{Feature: in.FeatureID, Agent: in.Agent})
		})
	addTool(s, "flow_validate", "Record validation evidence that you ran yourself (reported). Prefer the run tool with feature_id: its evidence is observed.", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in validateArgs) (ops.Result, error) {
			return s.do(req, in.agent, in.full, in.guard, model.Validate{Feature: in.FeatureID, Status: model.ValidationStatus(in.Status),
				Scope: model.Scope(in.Scope), Command: in.Command, Summary: in.Summary, Source: model.SourceReported})
		})
	addTool(s, "flow_review_record_feature", "Record a reviewer's decision on the active feature.", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in reviewArgs) (ops.Result, error) {
			return s.do(req, in.agent, in.full, in.guard, model.ReviewFeature{Feature: in.FeatureID, Decision: model.ReviewDecision(in.Decision), Findings: in.Findings})
		})
	addTool(s, "flow_review_record_final", "Record the session's final review.", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in finalReviewArgs) (ops.Result, error) {
			return s.do(req, in.agent, in.full, in.guard, model.ReviewFinal{Decision: model.ReviewDecision(in.Decision), Findings: in.Findings})
		})
	addTool(s, "flow_run_complete_feature", "End the active feature with a worker outcome; completed needs passing evidence and an approved review.", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in completeArgs) (ops.Result, error) {
			return s.do(req, in.agent, in.full, in.guard, model.RunComplete{Feature: in.FeatureID, Outcome: model.Outcome(in.Outcome), Summary: in.Summary})
		})
	addTool(s, "flow_reset_feature", "Reset a feature and every feature downstream of it to pending.", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in featureArgs) (ops.Result, error) {
			return s.do(req, in.agent, in.full, in.guard, model.ResetFeature{Feature: in.FeatureID})
		})
	addTool(s, "flow_reset_session", "Archive the active session (kept; flow_session_activate brings it back). Its unfinished features' worktrees are removed, their branches kept.", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in actionArgs) (ops.Result, error) {
			return s.do(req, in.agent, in.full, in.guard, model.ResetSession{})
		})
	addTool(s, "flow_session_activate", "Make a stored session the active one (the active one is archived).", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in sessionArgs) (ops.Result, error) {
			return s.do(req, in.agent, in.full, in.guard, model.ActivateSession{ID: in.SessionID})
		})
	addTool(s, "flow_note", "Attach a note to the active session.", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in noteArgs) (ops.Result, error) {
			return s.do(req, in.agent, in.full, in.guard, model.AddNote{Text: in.Text})
		})
}

// addOutputTools registers the tools over commands and their output, the
// diagram and the decisions flows wait on.
func (s *server) addOutputTools() {
	addTool(s, "run", "Run a command in the project root through flowdeck's pty, isolator and output classifier; the output is stored for recall. With feature_id the result is observed validation evidence. Reports progress while it runs; cancelling the call kills the command's whole process group.", false,
		s.run)
	addTool(s, "recall", "Fuzzy-search every line of output that flowdeck has stored, newest run first.", true,
		func(ctx context.Context, req *sdk.CallToolRequest, in recallArgs) (ops.Result, error) {
			return asResult(s.p.Recall(model.RecallQuery{Query: in.Query, RunID: in.RunID, Feature: in.FeatureID, Limit: in.Limit}))
		})
	addTool(s, "diagram", "Draw the active plan's dependency graph.", true,
		func(ctx context.Context, req *sdk.CallToolRequest, in diagramArgs) (ops.Result, error) {
			return s.p.Diagram(in.Format)
		})
	addTool(s, "decisions_list", "The questions that literate flows wait on: choices, forms, tasks, interrupted actions.", true,
		func(ctx context.Context, req *sdk.CallToolRequest, in decisionsArgs) (ops.Result, error) {
			return asResult(s.p.As(s.actor(req, in.agent)).Decisions(in.All))
		})
	addTool(s, "decision_resolve", "Answer a pending decision (once); its flow continues.", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in resolveArgs) (ops.Result, error) {
			res, err := s.p.As(s.actor(req, in.agent)).Resolve(in.DecisionID, flows.Answer{Option: in.Option, Note: in.Note, Vars: in.Vars})
			if err == nil && res.Refusal() == nil {
				s.docsChanged() // the flow that waited may have acted
			}
			return res, err
		})
}

// run runs a command with progress notifications; the call's context
// cancels it.
func (s *server) run(ctx context.Context, req *sdk.CallToolRequest, in runArgs) (ops.Result, error) {
	p := s.p.As(s.actor(req, in.agent))
	r := p.RunDefaults()
	r.Argv, r.Feature = in.Command, in.FeatureID
	if in.Scope != "" {
		r.Scope = model.Scope(in.Scope)
	}
	if in.Timeout != "" {
		d, err := time.ParseDuration(in.Timeout)
		if err != nil {
			return nil, ops.FieldErrorf("timeout", "timeout %q: %v (e.g. 90s, 10m)", in.Timeout, err)
		}
		r.Timeout = d
	}
	m := &meter{}
	stop := s.reportProgress(ctx, req, m, r.Timeout)
	defer stop()
	// In the project root, whatever the server's cwd.
	res, err := p.Run(ctx, r, project.RunIO{Live: m})
	if err == nil && in.FeatureID != "" {
		s.docsChanged() // observed evidence on the feature
	}
	return res, err
}

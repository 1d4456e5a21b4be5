// Package ui is the cockpit: the Bubble Tea program a person uses to
// supervise agents. One root model owns focus, modes and message routing; the
// panes (ui/panes/...) are plain components that handle a move, take a size
// and draw into it. It works on a *project.Project; every read of it, every
// action, run and markdown render runs in a tea.Cmd; Update and View do no
// I/O.
package ui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/project"
	"github.com/flowdeck/flowdeck/ui/cmdline"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/panes/dag"
	"github.com/flowdeck/flowdeck/ui/panes/features"
	flowpane "github.com/flowdeck/flowdeck/ui/panes/flow"
	"github.com/flowdeck/flowdeck/ui/panes/output"
	"github.com/flowdeck/flowdeck/ui/panes/recall"
	"github.com/flowdeck/flowdeck/ui/panes/runs"
	"github.com/flowdeck/flowdeck/ui/panes/textview"
	"github.com/flowdeck/flowdeck/ui/styles"
)

// Options configure the cockpit. The clock, the actor and the config are
// the project's (project.Options: Now, Actor, Config); the config's problems
// are shown at start.
type Options struct {
	// Poll is how often the database file is checked for changes (200 ms).
	Poll time.Duration
	// NoColor drops colours (NO_COLOR). Light picks the light palette
	// before the terminal answers (or when it cannot be asked); the config's
	// theme = dark|light overrides it.
	NoColor bool
	Light   bool
	// Grace is how long an unrequested prompt ignores keys (400 ms).
	Grace time.Duration
}

type mode int

const (
	modeNormal mode = iota
	modeFilter
	modeCommand
	modeHelp
	modeRecall // typing the recall query
	modeSearch // typing a search in the output
)

// Model is the root model.
type Model struct {
	p     *project.Project
	now   func() time.Time
	actor string
	cfg   config.Config
	keys  keys.Map
	th    *styles.Styles
	color bool
	poll  time.Duration
	grace time.Duration
	// tick schedules the next poll; tests replace it to drive polls by hand.
	tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd

	w, h int
	lay  layout.Layout
	// changeSeq numbers the changes (diffs) dialogs load (ui/change.go).
	changeSeq int
	focus     layout.Pane
	lower     layout.Pane // stacked layout: the pane under the features
	slot      layout.Pane // wide layout: output or recall beside the runs
	// recallFrom is the pane focused before the recall pane; esc there
	// goes back to it.
	recallFrom layout.Pane

	// State from the store, replaced wholesale on every load.
	sess     *model.Session
	sessions []model.SessionInfo
	agents   []model.AgentEvent // each agent's last lifecycle event (e.g. idle)
	loaded   bool
	stamp    string
	loading  bool
	loadSeq  int // sequence of the last load issued
	minLoad  int // loads issued before this one are stale
	ticks    int
	sel      string
	// autoSel: the selection follows what most likely needs looking at
	// (the active feature, else one that waits) until the person moves it.
	autoSel bool
	follow  follow

	// panes are the panes by id (what every pane answers to); the typed
	// fields below are the same panes, for what only one of them does.
	panes   [layout.NumPanes]pane
	feats   *features.Model
	graph   *dag.Model
	detail  *textview.Model
	runList *runs.Model
	output  *output.Model
	recall  *recall.Model
	// crew is the agents pane and what it reads (agents.go).
	crew crewState

	// Literate flows (flows.go): the runs, the one the flow pane shows (the
	// newest that has not ended, unless /flow-show pinned one), the run
	// whose output it shows, the pending decisions.
	flowPane   *flowpane.Model
	flowFeed   *feed
	flowRuns   []model.FlowRun
	flowExec   map[string]bool // flowLoad.executing
	flowView   *flows.RunView
	flowOutRec *model.RunRecord
	flowPin    string
	flowNames  []string
	decisions  []model.Decision
	// answering: decisions whose answer is being stored, so a load that
	// still lists them does not open their prompt again.
	answering map[string]bool
	gone      *model.Decision // see loadedMsg.gone

	// editing is the edit in $EDITOR in progress (editor.go); planInEditor
	// is the flow job of /flow-plan GOAL without a planner agent, until its
	// form opens: that form's plan opens in the editor.
	editing      *editSession
	planInEditor *flowJob

	// allRuns is the runs list as loaded; the pane shows shownRuns.
	allRuns []model.RunRecord

	// How the output pane reads the selected run.
	out     *feed
	outGoto int // a recall hit's line to show once loaded

	// One recall search at a time; recallNext is the query typed since.
	recallBusy bool
	recallNext string

	doc      docKind
	cache    map[string][]string
	cacheAge []string
	inflight map[string]bool

	mode    mode
	filter  textinput.Model
	search  textinput.Model
	cmdline cmdline.Model
	// dialogs is the dialog stack (dialog.go); docked: the top one stays
	// on screen while the keys go to the panes.
	dialogs []Dialog
	docked  bool
	// help draws the hint bar and the full help (bubbles/help) in m.th.
	help help.Model
	// hlp is the full help's scroll, filter and origin (help.go).
	hlp helpState
	// showInternal lists the runs flows make for their own plumbing.
	showInternal bool

	note    note
	noteKey string    // the note's text when noteAt was taken
	noteAt  time.Time // when the note last changed

	waits     []wait
	waitKeys  map[string]bool
	dismissed map[string]bool
	bells     int
	mouse     bool

	// Runs the cockpit started (v, /run) and its engine goroutines; ctx is
	// their parent, cancelled by stopAll when the cockpit ends.
	ctx      context.Context
	stopAll  context.CancelFunc
	jobs     []*job
	flowJobs []*flowJob
	quitting bool
	// exiting: tea.Quit is on its way; View draws a blank last frame.
	exiting bool
	// patternsWarned: the project's broken pattern files were reported.
	patternsWarned bool
}

// New builds the cockpit on a project. It reads the project's config (once
// per project) and no other file: the first load is the command Init
// returns.
func New(p *project.Project, opts Options) *Model {
	m := &Model{
		p:         p,
		now:       p.Now,
		actor:     p.Actor(),
		cfg:       p.Config(),
		poll:      opts.Poll,
		grace:     opts.Grace,
		color:     !opts.NoColor,
		cache:     map[string][]string{},
		inflight:  map[string]bool{},
		waitKeys:  map[string]bool{},
		dismissed: map[string]bool{},
		answering: map[string]bool{},
		lower:     layout.Detail,
		autoSel:   true,
		slot:      layout.Output,
	}
	m.tick = tea.Tick
	m.ctx, m.stopAll = context.WithCancel(context.Background())
	if m.poll == 0 {
		m.poll = 200 * time.Millisecond
	}
	if m.grace == 0 {
		m.grace = 400 * time.Millisecond
	}
	m.mouse = m.cfg.MouseOn()
	dark := !opts.Light
	switch m.cfg.Theme {
	case "dark":
		dark = true
	case "light":
		dark = false
	}
	m.setStyles(styles.New(dark, m.color))

	km, errs := keys.Default().Rebind(m.cfg.Keys)
	m.keys = km
	errs = append(append([]error{}, p.ConfigErrors()...), keyErrors(m.cfg, errs)...)
	if len(errs) > 0 {
		m.note = configNote(errs)
	}

	m.feats = features.New(m.th)
	m.graph = dag.New(m.th)
	m.detail = textview.New(m.th)
	m.detail.SetNote("loading…")
	m.runList = runs.New(m.th)
	m.output = output.New(m.th)
	m.output.SetNote("select a run in the runs pane")
	m.out = &feed{view: m.output}
	m.recall = recall.New(m.th)
	flowOut := output.New(m.th)
	m.flowFeed = &feed{view: flowOut}
	m.flowPane = flowpane.New(m.th, flowOut)
	m.crew = newCrew(m)
	m.panes = [layout.NumPanes]pane{layout.Features: m.feats, layout.DAG: m.graph, layout.Detail: m.detail,
		layout.Runs: m.runList, layout.Output: m.output, layout.Recall: m.recall, layout.Flow: m.flowPane,
		layout.Agents: m.crew.pane}
	m.flowPane.SetNote(m.flowEmptyNote())

	m.filter = textinput.New()
	m.filter.Prompt = "/"
	m.search = textinput.New()
	m.search.Prompt = "search output: "
	m.cmdline = cmdline.New()
	m.cmdline.SetKeys(cmdline.Keys{Submit: m.keys.Get(keys.Open), Cancel: m.keys.Get(keys.Back),
		Complete: m.keys.Get(keys.Complete), Prev: m.keys.Get(keys.Up), Next: m.keys.Get(keys.Down)})
	m.styleInputs()
	return m
}

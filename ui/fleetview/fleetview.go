// Package fleetview is the fleet's cockpit (`flowdeck fleet`): a row per
// project of the fleet (package fleet) and one queue of everything that
// waits for the person across it, oldest first. From the queue the person
// approves a review, answers a decision or reads the change, with the keys
// and the look of one project's cockpit (ui/keys, ui/styles, ui/layout);
// enter on a row opens that project's full cockpit (Run).
//
// As in the cockpit, Update and View do no I/O: the fleet is read in
// commands (a snapshot when it signals a change), every answer and diff is
// a command bounded by the fleet's own timeouts, and a project that hangs
// never holds a key. Every string a project sends is foreign: the fleet
// sanitises it, and the view passes it through termtext again and cuts it
// to the cells it has.
package fleetview

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/ui"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/panes/scroll"
	"github.com/flowdeck/flowdeck/ui/styles"
)

// Fleet is what the view uses of a *fleet.Fleet.
type Fleet interface {
	Statuses() []fleet.Status
	Queue() []fleet.Item
	Changed() <-chan struct{}
	Review(ctx context.Context, project, feature string, final bool, decision string, findings []string, expectSeq uint64) (*model.Error, error)
	Resolve(ctx context.Context, project, decisionID, option, note string) (*model.Error, error)
	Diff(ctx context.Context, project, feature string) (string, error)
}

// Options configure the fleet view.
type Options struct {
	// Config is the person's config (keys, bell, theme); nil reads
	// config.DefaultPath() (Run) or takes the defaults (New).
	Config *config.Config
	// NoColor drops colours (NO_COLOR). Light picks the light palette
	// until the terminal answers; the config's theme = dark|light wins.
	NoColor, Light bool
	// Now is the clock ("3m ago"); nil is time.Now.
	Now func() time.Time
	// Actor acts in a local project's cockpit that Run opens (--actor,
	// $FLOWDECK_ACTOR); empty: the config's actor, else human. The
	// fleet's own answers are the person's (fleet.Options.Origin says
	// from where).
	Actor string
	// Fleet configures the fleet Run opens (version, origin, timeouts).
	Fleet fleet.Options
}

// focus is the box that has the keys.
type focus int

const (
	focusRows focus = iota
	focusQueue
)

// Model is the fleet view's root model. One Model lives across the
// programs Run starts (one before and one after each project's cockpit):
// the selection, what was seen (so nothing rings twice) and the note stay.
type Model struct {
	// f is the fleet; nil until start opens it (Run).
	f Fleet
	// start opens the fleet (once; later calls return the same one). Run
	// sets it instead of f: the fleet is opened by a command a moment
	// after the first frame, so that its transports (fifty ssh processes
	// starting at once) do not compete with the first frame for the CPU.
	// armed: this program has asked for it.
	start func() Fleet
	armed bool
	cfg   config.Config
	keys  keys.Map
	th    *styles.Styles
	color bool
	now   func() time.Time
	home  string
	// tick schedules the clock's next refresh of the "3m ago" texts; tests
	// replace it to fire it by hand.
	tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
	// calls counts the answers in flight: Run waits for them (each bounded
	// by the fleet's call timeout) before it closes the fleet.
	calls *sync.WaitGroup

	// ctx ends with the program: the wait on the fleet's Changed channel
	// returns.
	ctx    context.Context
	cancel context.CancelFunc

	w, h int
	help help.Model

	// What the fleet said last; rows start from the config, "connecting".
	statuses []fleet.Status
	items    []fleet.Item
	focus    focus
	rows     scroll.State
	queue    scroll.State
	// lay is the geometry and the lines relayout prepared for View.
	lay frame
	// cells is the rows' and the queue's text, cleaned and measured once
	// per change (snapshot, clock, theme) rather than on every update: a
	// highlight tick or a key press redraws from it. nil: to be made.
	cells *cells

	// seen: the waits (project + key) already known, so a wait rings once;
	// glanced: the projects whose first glance arrived (their waits then
	// were there before the person looked: no ring); quiet: the next
	// snapshot rings nothing (the first of a program: the person is
	// looking).
	seen    map[string]bool
	glanced map[string]bool
	quiet   bool
	bells   int

	dialogs []dialog
	// dialogSeq numbers dialogs, so a late answer finds its own.
	dialogSeq int
	// inflight counts the answers sent whose result has not come back
	// (their dialog may have been put away meanwhile).
	inflight int
	helpOpen bool
	helpOff  int
	note     note
	// next is what Run does when the program ends: open a project, or quit.
	next next
}

// next is what the person asked Run to do after this program.
type next struct {
	open *fleet.Entry
}

// New builds the view on f. Nothing is read here: the first frame shows the
// entries as connecting, and Init asks the fleet for its state.
func New(f Fleet, entries []fleet.Entry, opts Options) *Model {
	cfg := config.Default()
	if opts.Config != nil {
		cfg = *opts.Config
	}
	m := &Model{f: f, cfg: cfg, color: !opts.NoColor, now: opts.Now, tick: tea.Tick, calls: &sync.WaitGroup{},
		seen: map[string]bool{}, glanced: map[string]bool{}}
	if m.now == nil {
		m.now = time.Now
	}
	m.home, _ = os.UserHomeDir()
	dark := !opts.Light
	switch cfg.Theme {
	case "dark":
		dark = true
	case "light":
		dark = false
	}
	m.setStyles(styles.New(dark, m.color))
	km, errs := keys.Default().Rebind(cfg.Keys)
	m.keys = km
	if len(errs) > 0 {
		m.note = errNote(fmt.Sprintf("✗ config [keys] (defaults used): %v", errs[0]))
	}
	for _, e := range entries {
		m.statuses = append(m.statuses, fleet.Status{Entry: e, Reach: fleet.Connecting})
	}
	m.rows.SetLen(len(m.statuses))
	if len(entries) == 0 {
		m.note = infoNote("no projects in the fleet yet: flowdeck fleet add NAME DIR (or NAME -- COMMAND…)")
	}
	return m
}

func (m *Model) setStyles(th *styles.Styles) {
	m.th = th
	m.cells = nil // the rows carry their styles
	m.help = help.New()
	m.help.Styles = th.Help
	m.help.ShortSeparator = " · "
	m.help.Ellipsis = ""
	m.help.Styles.Ellipsis = lipgloss.NewStyle()
	for _, d := range m.dialogs {
		if c := d.base().change; c != nil {
			c.view.SetStyles(th)
		}
		if s, ok := d.(styler); ok {
			s.setStyles(th)
		}
	}
}

// Init reads the fleet's state (and then waits for its changes), starts the
// clock and, for theme = auto, asks the terminal for its background. It is
// called once per program: the first snapshot of each rings nothing.
func (m *Model) Init() tea.Cmd {
	if m.cancel != nil {
		m.cancel()
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	m.quiet, m.next, m.armed = true, next{}, false
	cmds := []tea.Cmd{m.clockCmd()}
	if m.f != nil {
		cmds = append(cmds, m.snapshotCmd(nil))
	}
	if m.cfg.Theme == "auto" && m.color {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	return tea.Batch(cmds...)
}

// stop ends what the program's commands wait on (Run calls it when the
// program has ended).
func (m *Model) stop() {
	if m.cancel != nil {
		m.cancel()
	}
}

// firstFrameGrace is how long after the first size (which the first
// frame follows at once, within the renderer's 60 fps) the fleet opens.
const firstFrameGrace = 50 * time.Millisecond

// fleetMsg is the fleet start opened.
type fleetMsg struct{ f Fleet }

// startCmd opens the fleet a moment after the first frame, once per
// program while the model has none.
func (m *Model) startCmd() tea.Cmd {
	if m.f != nil || m.start == nil || m.armed {
		return nil
	}
	m.armed = true
	start := m.start
	return tea.Tick(firstFrameGrace, func(time.Time) tea.Msg {
		if f := start(); f != nil {
			return fleetMsg{f: f}
		}
		return nil
	})
}

// snapshotMsg is the fleet's state, read in a command.
type snapshotMsg struct {
	statuses []fleet.Status
	items    []fleet.Item
}

// snapshotCmd reads the fleet's state once changed signals (nil: at
// once). One such command is armed at a time, re-armed by each snapshot, so
// snapshots arrive in order; the fleet's channel coalesces, and a change
// between a read and the next wait stays signalled.
func (m *Model) snapshotCmd(changed <-chan struct{}) tea.Cmd {
	f, ctx := m.f, m.ctx
	return func() tea.Msg {
		if changed != nil {
			select {
			case <-changed:
			case <-ctx.Done():
				return nil
			}
		}
		return snapshotMsg{statuses: f.Statuses(), items: f.Queue()}
	}
}

// clockMsg refreshes the texts that say how long ago something happened.
type clockMsg struct{}

// clockEvery is how often "3m ago" is brought up to date: it counts in
// minutes.
const clockEvery = 30 * time.Second

func (m *Model) clockCmd() tea.Cmd {
	return m.tick(clockEvery, func(time.Time) tea.Msg { return clockMsg{} })
}

// Update routes a message; it changes state and returns commands.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		cmd = m.startCmd()
	case fleetMsg:
		if m.f == nil {
			m.f = msg.f
			cmd = m.snapshotCmd(nil)
		}
	case tea.BackgroundColorMsg:
		if m.cfg.Theme == "auto" && m.color {
			m.setStyles(styles.New(msg.IsDark(), m.color))
		}
	case snapshotMsg:
		cmd = m.onSnapshot(msg)
	case answeredMsg:
		m.onAnswered(msg)
	case diffMsg:
		cmd = m.onDiff(msg)
	case highlightMsg:
		cmd = m.onHighlight(msg)
	case clockMsg:
		m.cells = nil // "3m ago" moved on
		cmd = m.clockCmd()
	case tea.KeyPressMsg:
		cmd = m.onKey(msg)
	case tea.PasteMsg:
		if d := m.top(); d != nil && !m.helpOpen {
			cmd = d.paste(msg)
		}
	}
	m.relayout()
	return m, cmd
}

// onSnapshot takes the fleet's state: the rows and the queue keep their
// selection, a dialog whose wait went is closed with a notice, and a wait
// that is new since the last snapshot rings.
func (m *Model) onSnapshot(msg snapshotMsg) tea.Cmd {
	selRow, selItem := m.selectedProject(), ""
	if it, ok := m.selectedItem(); ok {
		selItem = itemID(it)
	}
	m.statuses, m.items, m.cells = msg.statuses, msg.items, nil
	m.rows.SetLen(len(m.statuses))
	m.queue.SetLen(len(m.items))
	for i, s := range m.statuses {
		if s.Name == selRow {
			m.rows.Set(i)
		}
	}
	for i, it := range m.items {
		if itemID(it) == selItem {
			m.queue.Set(i)
		}
	}
	fresh := m.freshWaits()
	m.closeStale()
	cmds := []tea.Cmd{m.snapshotCmd(m.f.Changed())}
	if len(fresh) > 0 && !m.quiet {
		cmds = append(cmds, m.bell(fresh))
	}
	m.quiet = false
	return tea.Batch(cmds...)
}

// freshWaits are the queue's items not seen before, less those of a
// project's first glance (they waited before the person looked).
func (m *Model) freshWaits() []fleet.Item {
	seen := make(map[string]bool, len(m.items))
	var fresh []fleet.Item
	for _, it := range m.items {
		id := itemID(it)
		seen[id] = true
		if !m.seen[id] && m.glanced[it.Project] {
			fresh = append(fresh, it)
		}
	}
	m.seen = seen
	for _, s := range m.statuses {
		if s.Glance != nil {
			m.glanced[s.Name] = true
		}
	}
	return fresh
}

// itemID names a queue item across snapshots: its project and its wait's
// key (which names the occurrence: a new review request is a new key).
func itemID(it fleet.Item) string { return it.Project + "\x00" + it.Wait.Key }

func (m *Model) selectedProject() string {
	if i := m.rows.Cursor; i >= 0 && i < len(m.statuses) {
		return m.statuses[i].Name
	}
	return ""
}

func (m *Model) selectedStatus() (fleet.Status, bool) {
	if i := m.rows.Cursor; i >= 0 && i < len(m.statuses) {
		return m.statuses[i], true
	}
	return fleet.Status{}, false
}

func (m *Model) selectedItem() (fleet.Item, bool) {
	if i := m.queue.Cursor; i >= 0 && i < len(m.items) {
		return m.items[i], true
	}
	return fleet.Item{}, false
}

func (m *Model) status(project string) (fleet.Status, bool) {
	for _, s := range m.statuses {
		if s.Name == project {
			return s, true
		}
	}
	return fleet.Status{}, false
}

func (m *Model) inQueue(it fleet.Item) bool {
	id := itemID(it)
	for _, x := range m.items {
		if itemID(x) == id {
			return true
		}
	}
	return false
}

func isReview(it fleet.Item) bool {
	return it.Wait.Kind == ops.FleetWaitReview || it.Wait.Kind == ops.FleetWaitFinal
}

func isDecision(it fleet.Item) bool { return it.Wait.Kind == ops.FleetWaitDecision }

// onKey routes a key: the help (it opens over anything), the top dialog,
// then the focused box's keys and the global ones.
func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	if m.helpOpen {
		return m.helpKey(k)
	}
	if d := m.top(); d != nil {
		if cmd, handled := d.handleKey(m, k); handled {
			return cmd
		}
		if d.typing() && printable(k) {
			return nil
		}
		a, ok := m.keys.Which(k, keys.Help, keys.Quit)
		switch {
		case !ok:
			return nil
		case a == keys.Help:
			m.openHelp()
			return nil
		}
		return m.quit()
	}
	a, ok := m.keys.Which(k, append(m.boxKeyMap().actions(), globalKeys...)...)
	if !ok {
		return nil
	}
	switch a {
	case keys.Quit:
		return m.quit()
	case keys.Help:
		m.openHelp()
	case keys.NextPane, keys.PrevPane:
		m.focus = 1 - m.focus
	case keys.Pane1:
		m.focus = focusRows
	case keys.Pane2:
		m.focus = focusQueue
	case keys.Back:
		m.note = note{}
	case keys.Up, keys.Down, keys.Top, keys.Bottom, keys.PageDown, keys.PageUp:
		m.move(a)
	case keys.Open:
		if m.focus == focusRows {
			return m.openProject()
		}
		return m.openItem(keys.Open)
	case keys.Approve, keys.NeedsFix, keys.Block, keys.ShowDiff:
		return m.openItem(a)
	}
	return nil
}

func (m *Model) move(a keys.Action) {
	s := &m.rows
	if m.focus == focusQueue {
		s = &m.queue
	}
	switch a {
	case keys.Up:
		s.Move(-1)
	case keys.Down:
		s.Move(1)
	case keys.Top:
		s.Top()
	case keys.Bottom:
		s.Bottom()
	case keys.PageDown:
		s.Page(1)
	case keys.PageUp:
		s.Page(-1)
	}
}

// openProject ends this program so that Run opens the selected project's
// cockpit. Not while an answer is on its way: its result (a refusal
// above all) would arrive in a program that has ended.
func (m *Model) openProject() tea.Cmd {
	s, ok := m.selectedStatus()
	if !ok {
		m.note = infoNote("no project selected")
		return nil
	}
	if m.sending() {
		m.note = infoNote("an answer is on its way: " + m.keyName(keys.Open) + " again once it has arrived")
		return nil
	}
	e := s.Entry
	m.next = next{open: &e}
	return tea.Quit
}

// quit ends the fleet view.
func (m *Model) quit() tea.Cmd {
	m.next = next{}
	return tea.Quit
}

// sending reports whether an answer is in flight.
func (m *Model) sending() bool { return m.inflight > 0 }

// title is the terminal title: how many things wait, across the fleet.
func (m *Model) title() string {
	if n := len(m.items); n > 0 {
		return fmt.Sprintf("⚑ %d waiting · flowdeck fleet", n)
	}
	return "flowdeck fleet"
}

// bell tells the person that something started waiting, once per
// snapshot, the way the config says.
func (m *Model) bell(fresh []fleet.Item) tea.Cmd {
	it := fresh[0]
	body := it.Project + ": " + it.Wait.Label
	if len(fresh) > 1 {
		body += fmt.Sprintf(" (and %d more)", len(fresh)-1)
	}
	seq := ui.Notification(m.cfg.Bell, "flowdeck fleet", body)
	if seq == "" {
		return nil
	}
	m.bells++
	return tea.Raw(seq)
}

// ago says how long ago t was, in the largest unit: "now", "3m ago".
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
}

// shortPath shows a directory under the person's home as ~/….
func (m *Model) shortPath(p string) string {
	if m.home != "" && m.home != "/" {
		if rest, ok := strings.CutPrefix(p, m.home); ok && (rest == "" || rest[0] == '/') {
			return "~" + rest
		}
	}
	return p
}

package fleetview

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/termtext"
	"github.com/flowdeck/flowdeck/ui"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/styles"
)

// The fleet's dialogs are the cockpit's, for an item of the queue: the
// review (a approves, x asks for findings, b blocks; it opens on the
// change), the findings, a flow's decision (its options on the number
// keys, a note) and the change alone (d). They look and answer to the
// same keys as ui's (ui/dialogs.go, ui/decide.go, ui/change.go), drawn
// with the same frame and styles; ui's own are methods of its root model
// and its project, so these are the fleet's, over fleet calls.
//
// Every answer carries the sequence the item was seen at (expect_seq): a
// project that changed since refuses it (stale_decision), and the dialog
// shows the refusal; nothing is ever sent again by itself.

// dialog is a box above the key bar; the top one of the stack has the keys.
type dialog interface {
	title(m *Model) string
	// body is the lines inside the box, above its key hints, in w cells
	// and at most h rows.
	body(m *Model, w, h int) []string
	keyMap(m *Model) keyMap
	// handleKey acts on a key; handled false hands it to help and quit.
	handleKey(m *Model, k tea.KeyPressMsg) (cmd tea.Cmd, handled bool)
	// typing: a text field has the keys.
	typing() bool
	paste(tea.PasteMsg) tea.Cmd
	base() *dialogBase
}

// styler is a dialog with text fields to restyle when the theme changes.
type styler interface{ setStyles(*styles.Styles) }

// dialogBase is what every dialog has.
type dialogBase struct {
	id   int
	item fleet.Item
	// change is the item's diff (the review and change dialogs).
	change *changeView
	// sending: the answer is on its way; keys wait. problem is why the
	// last answer failed; refused: the project said no for good (stale,
	// answered elsewhere), and the dialog only reports it.
	sending bool
	problem []string
	refused bool
}

func (b *dialogBase) base() *dialogBase          { return b }
func (b *dialogBase) typing() bool               { return false }
func (b *dialogBase) paste(tea.PasteMsg) tea.Cmd { return nil }

func (m *Model) top() dialog {
	if n := len(m.dialogs); n > 0 {
		return m.dialogs[n-1]
	}
	return nil
}

func (m *Model) push(d dialog) {
	m.dialogSeq++
	d.base().id = m.dialogSeq
	m.dialogs = append(m.dialogs, d)
}

func (m *Model) pop() {
	if n := len(m.dialogs); n > 0 {
		m.dialogs = m.dialogs[:n-1]
	}
}

// dropItem closes every dialog about item it.
func (m *Model) dropItem(it fleet.Item) {
	id := itemID(it)
	out := m.dialogs[:0]
	for _, d := range m.dialogs {
		if itemID(d.base().item) != id {
			out = append(out, d)
		}
	}
	m.dialogs = out
}

func (m *Model) dialogByID(id int) dialog {
	for _, d := range m.dialogs {
		if d.base().id == id {
			return d
		}
	}
	return nil
}

// where names an item's project in a dialog's title.
func where(it fleet.Item) string { return " · " + termtext.Line(it.Project) }

// waitLine is the dialog's first line: what waits, since when, and the
// project's reachability when it does not answer.
func (m *Model) waitLine(it fleet.Item) []string {
	line := m.th.Bold.Render(termtext.Line(label(it)))
	if !it.Wait.Since.IsZero() {
		line += m.th.Dim.Render(" · waiting since " + ago(m.now().Sub(it.Wait.Since)))
	}
	out := []string{line}
	if s, ok := m.status(it.Project); ok && s.Reach != fleet.Reachable {
		out = append(out, m.th.Warn.Render(termtext.Line("⚠ "+it.Project+" is "+reachText(s))))
	}
	return out
}

// problemLines is the last answer's failure, or what is being done.
func (m *Model) problemLines(b *dialogBase, w int) []string {
	if b.sending {
		return []string{m.th.Dim.Render("sending to " + termtext.Line(b.item.Project) + "…")}
	}
	var out []string
	for i, l := range layout.WrapLines(b.problem, w, 6) {
		if i == 0 {
			out = append(out, m.th.Err.Render(l))
		} else {
			out = append(out, l)
		}
	}
	return out
}

// send makes an answer a command: call runs with the fleet's own timeout,
// the result comes back as an answeredMsg to the dialog that sent it.
func (m *Model) send(d dialog, what string, call func(context.Context) (*model.Error, error)) tea.Cmd {
	b := d.base()
	b.sending, b.problem, b.refused = true, nil, false
	calls, id, project := m.calls, b.id, b.item.Project
	calls.Add(1)
	m.inflight++
	return func() tea.Msg {
		defer calls.Done()
		e, err := call(context.Background())
		return answeredMsg{dialog: id, what: what, project: project, refusal: e, err: err}
	}
}

// sendingKeyMap: while an answer is on its way, esc puts its dialog away
// (the result comes to the note); help and quit work.
func (m *Model) sendingKeyMap() keyMap {
	k := m.keyMapOf([]keys.Action{keys.Back})
	k.desc = map[keys.Action]string{keys.Back: "put away (the result comes to the note)"}
	return k
}

// answeredKeyMap is the key map of a dialog whose answer is on its way
// (sending) or was refused (esc closes); ok is false while it asks.
func (m *Model) answeredKeyMap(b *dialogBase) (keyMap, bool) {
	switch {
	case b.sending:
		return m.sendingKeyMap(), true
	case b.refused:
		k := m.keyMapOf([]keys.Action{keys.Back})
		k.desc = map[keys.Action]string{keys.Back: "close"}
		return k, true
	}
	return keyMap{}, false
}

func (m *Model) sendingKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	if m.keys.Matches(k, keys.Back) {
		it := m.top().base().item
		m.dropItem(it)
		m.note = infoNote("the answer to " + termtext.Line(it.Project+": "+label(it)) + " is on its way")
		return nil, true
	}
	return nil, false
}

// answeredMsg is a project's answer to the person's review or decision.
type answeredMsg struct {
	dialog  int
	what    string
	project string
	refusal *model.Error
	err     error
}

// onAnswered: done closes the item's dialogs with a note; a refusal stays
// in the dialog (only esc closes it); a transport error too, and the person
// may send again (the project refuses it as stale if the first went through).
// A dialog put away while it was sending leaves the result to the note.
func (m *Model) onAnswered(msg answeredMsg) {
	m.inflight--
	d := m.dialogByID(msg.dialog)
	var lines []string
	refused := false
	switch {
	case msg.err != nil:
		lines = []string{"✗ " + termtext.Line(msg.project) + " did not answer: " + termtext.Line(msg.err.Error()),
			"  if it was recorded, the item leaves the queue; sent again, it is refused as stale"}
	case msg.refusal != nil:
		lines, refused = refusalLines(msg.refusal), true
	default:
		if d != nil {
			m.dropItem(d.base().item)
		}
		m.note = okNote(termtext.Line(msg.project) + ": " + msg.what)
		return
	}
	if d == nil {
		m.note = note{kind: noteErr, lines: lines}
		return
	}
	b := d.base()
	b.sending, b.problem, b.refused = false, lines, refused
}

// refusalLines are a refusal as the cockpit shows one: code, message, hint.
func refusalLines(e *model.Error) []string {
	lines := []string{termtext.Line(fmt.Sprintf("✗ refused (%s): %s", e.Code, e.Message))}
	if e.Recovery.Hint != "" {
		lines = append(lines, "  hint: "+termtext.Line(e.Recovery.Hint))
	}
	return lines
}

// closeStale closes the dialogs whose item left the queue while its
// project answers (reviewed, decided or changed elsewhere), with a notice.
// One that is sending or shows a refusal stays; so does the change alone,
// which decides nothing.
func (m *Model) closeStale() {
	busy := map[string]bool{} // items a dialog sends or reports a refusal for
	for _, d := range m.dialogs {
		if b := d.base(); b.sending || b.refused {
			busy[itemID(b.item)] = true
		}
	}
	for _, d := range append([]dialog(nil), m.dialogs...) {
		b := d.base()
		if _, change := d.(*changeDialog); change || busy[itemID(b.item)] || m.inQueue(b.item) || m.dialogByID(b.id) == nil {
			continue
		}
		if s, ok := m.status(b.item.Project); ok && s.Reach != fleet.Reachable {
			continue // it may still wait: the project does not say
		}
		m.dropItem(b.item)
		m.note = infoNote(termtext.Line(b.item.Project+": "+label(b.item)) + " no longer waits (answered or changed elsewhere)")
	}
}

// openItem opens what a key asks for on the selected queue item: its
// dialog (enter, a), the findings (x, b), the change (d). An item the
// fleet cannot answer (the plan's approval, a blocked or interrupted
// feature) opens its project.
func (m *Model) openItem(a keys.Action) tea.Cmd {
	it, ok := m.selectedItem()
	if !ok {
		m.note = infoNote("nothing waits for you")
		return nil
	}
	switch {
	case a == keys.ShowDiff && it.Wait.Feature != "":
		return m.openChange(it)
	case a == keys.ShowDiff:
		m.note = infoNote("this item has no change to show")
		return nil
	case isReview(it) && (a == keys.NeedsFix || a == keys.Block):
		return m.openFindings(it, reviewDecision(a), false)
	case isReview(it):
		return m.openReview(it)
	case isDecision(it) && (a == keys.Open || a == keys.Approve):
		return m.openDecision(it)
	case a != keys.Open:
		m.note = infoNote(m.keyName(a) + " answers a review: " + termtext.Line(label(it)) + " is not one")
		return nil
	}
	for i, s := range m.statuses {
		if s.Name == it.Project {
			m.rows.Set(i)
		}
	}
	m.note = infoNote(termtext.Line(label(it)) + " is answered in the project's cockpit: opening " + termtext.Line(it.Project))
	return m.openProject()
}

func reviewDecision(a keys.Action) model.ReviewDecision {
	if a == keys.Block {
		return model.ReviewBlocked
	}
	return model.ReviewNeedsFix
}

// label is how the queue names an item: the project's own words for it.
func label(it fleet.Item) string {
	if it.Wait.Label != "" {
		return it.Wait.Label
	}
	return strings.TrimSpace(it.Wait.Kind + " " + it.Wait.Feature + it.Wait.Decision)
}

// reviewDialog decides a feature's review, or the session's final review,
// on its change.
type reviewDialog struct {
	dialogBase
}

func (m *Model) openReview(it fleet.Item) tea.Cmd {
	return m.pushWithChange(&reviewDialog{}, it)
}

// pushWithChange opens d on item it, showing its change, and reads the
// change.
func (m *Model) pushWithChange(d dialog, it fleet.Item) tea.Cmd {
	b := d.base()
	b.item = it
	b.change = m.newChange()
	m.push(d)
	return m.loadChange(b.change, it)
}

func (d *reviewDialog) final() bool { return d.item.Wait.Kind == ops.FleetWaitFinal }

func (d *reviewDialog) title(*Model) string {
	if d.final() {
		return "Final review of the session" + where(d.item)
	}
	return "Review " + termtext.Line(d.item.Wait.Feature) + where(d.item)
}

func (d *reviewDialog) body(m *Model, w, h int) []string {
	out := append(m.waitLine(d.item), m.problemLines(&d.dialogBase, w)...)
	if d.refused || d.sending {
		return out
	}
	return append(out, d.change.lines(m, w, h-len(out))...)
}

func (d *reviewDialog) keyMap(m *Model) keyMap {
	if k, ok := m.answeredKeyMap(&d.dialogBase); ok {
		return k
	}
	short := append([]keys.Action{keys.Approve, keys.NeedsFix, keys.Block}, d.change.shortKeys()...)
	k := m.keyMapOf(append(short, keys.Back), append([]keys.Action{keys.Approve, keys.NeedsFix, keys.Block, keys.Back}, changeKeys...)...)
	k.desc = map[keys.Action]string{keys.Back: d.change.backDesc("later"), keys.Open: "one file"}
	return k
}

func (d *reviewDialog) handleKey(m *Model, k tea.KeyPressMsg) (tea.Cmd, bool) {
	if d.sending {
		return m.sendingKey(k)
	}
	a, ok := m.keys.Which(k, d.keyMap(m).actions()...)
	if !ok {
		return nil, false
	}
	switch a {
	case keys.Approve:
		return m.sendReview(d, model.ReviewApproved, nil), true
	case keys.NeedsFix, keys.Block:
		return m.openFindings(d.item, reviewDecision(a), true), true
	case keys.Back:
		if !d.refused && d.change.back() {
			return nil, true
		}
		m.pop()
		if !d.refused {
			m.note = infoNote(termtext.Line(label(d.item)) + " still waits in the queue")
		}
		return nil, true
	}
	return d.change.key(m, a)
}

// sendReview records the person's review of d's item through the fleet.
func (m *Model) sendReview(d dialog, dec model.ReviewDecision, findings []string) tea.Cmd {
	it, f := d.base().item, m.f
	final := it.Wait.Kind == ops.FleetWaitFinal
	what := "review of " + termtext.Line(it.Wait.Feature) + ": " + string(dec)
	if final {
		what = "final review: " + string(dec)
	}
	return m.send(d, what, func(ctx context.Context) (*model.Error, error) {
		return f.Review(ctx, it.Project, it.Wait.Feature, final, string(dec), findings, it.Seq)
	})
}

// findingsDialog asks what must change before a needs_fix or blocked
// review is recorded.
type findingsDialog struct {
	dialogBase
	decision model.ReviewDecision
	input    textinput.Model
	// fromReview: esc goes back to the review dialog under it.
	fromReview bool
}

func (m *Model) openFindings(it fleet.Item, dec model.ReviewDecision, fromReview bool) tea.Cmd {
	in := textinput.New()
	in.Prompt = "findings: "
	in.Placeholder = "what must change (separate several with ;)"
	in.SetStyles(m.th.Input())
	in.SetWidth(max(10, m.w-16))
	d := &findingsDialog{decision: dec, input: in, fromReview: fromReview}
	d.item = it
	m.push(d)
	return d.input.Focus()
}

func (d *findingsDialog) typing() bool { return !d.sending && !d.refused }

func (d *findingsDialog) setStyles(th *styles.Styles) { d.input.SetStyles(th.Input()) }

func (d *findingsDialog) paste(msg tea.PasteMsg) tea.Cmd {
	return pasteInto(&d.input, d.typing(), msg)
}

func (d *findingsDialog) title(*Model) string {
	what := termtext.Line(d.item.Wait.Feature)
	if d.item.Wait.Kind == ops.FleetWaitFinal {
		what = "the session (final review)"
	}
	if d.decision == model.ReviewBlocked {
		return "Block " + what + where(d.item)
	}
	return "Request changes to " + what + where(d.item)
}

func (d *findingsDialog) body(m *Model, w, h int) []string {
	out := append(m.waitLine(d.item), m.problemLines(&d.dialogBase, w)...)
	if d.refused || d.sending {
		return out
	}
	d.input.SetWidth(max(10, w-12))
	return append(out, d.input.View())
}

func (d *findingsDialog) keyMap(m *Model) keyMap {
	if k, ok := m.answeredKeyMap(&d.dialogBase); ok {
		return k
	}
	k := m.keyMapOf([]keys.Action{keys.Open, keys.Back})
	k.desc = map[keys.Action]string{keys.Open: "send", keys.Back: "cancel"}
	if d.fromReview {
		k.desc[keys.Back] = "back to the review"
	}
	return k
}

func (d *findingsDialog) handleKey(m *Model, k tea.KeyPressMsg) (tea.Cmd, bool) {
	if d.sending {
		return m.sendingKey(k)
	}
	// A key that types text goes to the field; the others may be enter,
	// esc, help or quit, and the rest (the cursor keys) go to the field.
	a, ok := keys.Action(""), false
	if !printable(k) || d.refused {
		a, ok = m.keys.Which(k, keys.Open, keys.Back)
	}
	switch {
	case ok && (d.refused || a == keys.Back):
		m.pop()
		if d.refused {
			m.dropItem(d.item) // the review under it decides the same thing
		}
		return nil, true
	case ok: // send
		findings := ui.SplitFindings(d.input.Value())
		if d.decision == model.ReviewNeedsFix && len(findings) == 0 {
			d.problem = []string{"needs_fix needs at least one finding"}
			return nil, true
		}
		return m.sendReview(d, d.decision, findings), true
	case d.refused:
		return nil, false
	case !printable(k) && (m.keys.Matches(k, keys.Quit) || m.keys.Matches(k, keys.Help)):
		return nil, false
	}
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(k)
	return cmd, true
}

// decisionDialog answers a flow's pending decision: its options on the
// number keys (a review question's verdicts also on a, x, b), an optional
// note; without options the note is the answer.
type decisionDialog struct {
	dialogBase
	note textinput.Model
	// onNote: the note has the keys (else the options row does).
	onNote bool
	off    int // the first prompt line shown (pgup/pgdown)
}

func (m *Model) openDecision(it fleet.Item) tea.Cmd {
	in := textinput.New()
	in.SetStyles(m.th.Input())
	in.SetWidth(max(10, m.w-30))
	d := &decisionDialog{note: in}
	d.item = it
	if len(it.Wait.Options) > 0 {
		in.Prompt, in.Placeholder = "note: ", "optional, tab to type it"
	} else {
		in.Prompt, in.Placeholder = "answer: ", "type your answer, enter sends"
		d.onNote = true
	}
	d.note = in
	m.push(d)
	if d.onNote {
		return d.note.Focus()
	}
	return nil
}

func (d *decisionDialog) typing() bool { return d.onNote && !d.sending && !d.refused }

func (d *decisionDialog) setStyles(th *styles.Styles) { d.note.SetStyles(th.Input()) }

func (d *decisionDialog) paste(msg tea.PasteMsg) tea.Cmd {
	return pasteInto(&d.note, d.typing(), msg)
}

// pasteInto gives a paste to a dialog's field, when it has the keys.
func pasteInto(in *textinput.Model, typing bool, msg tea.PasteMsg) tea.Cmd {
	if !typing {
		return nil
	}
	var cmd tea.Cmd
	*in, cmd = in.Update(msg)
	return cmd
}

func (d *decisionDialog) title(*Model) string {
	return "Decision " + termtext.Line(d.item.Wait.Decision) + where(d.item)
}

// promptLines is how many rows the prompt may take in an h-row body.
func promptLines(h int) int { return min(12, max(2, h/2)) }

func (d *decisionDialog) body(m *Model, w, h int) []string {
	th := m.th
	out := append(m.waitLine(d.item), m.problemLines(&d.dialogBase, w)...)
	if d.refused || d.sending {
		return out
	}
	if text := d.prompt(w); len(text) > 0 {
		if n := promptLines(h); len(text) > n {
			page := n - 1
			off := max(0, min(d.off, len(text)-page))
			shown := text[off : off+page]
			text = append(shown, th.Dim.Render(fmt.Sprintf("… lines %d–%d of %d · pgdn/pgup scroll", off+1, off+page, len(text))))
		}
		out = append(out, text...)
	}
	for i, o := range d.item.Wait.Options {
		if i == 9 {
			out = append(out, th.Dim.Render(fmt.Sprintf("  … %d more: answer them in the project's cockpit", len(d.item.Wait.Options)-9)))
			break
		}
		mark := "  "
		if !d.onNote && i == 0 {
			mark = th.Accent.Render("› ")
		}
		line := mark + th.KeyHint.Render(fmt.Sprintf("%d", i+1)) + " " + th.Bold.Render(termtext.Line(o.ID))
		if o.Label != "" && o.Label != o.ID {
			line += "  " + termtext.Line(o.Label)
		}
		out = append(out, line)
	}
	mark := "  "
	if d.onNote && len(d.item.Wait.Options) > 0 {
		mark = th.Accent.Render("› ")
	}
	d.note.SetWidth(max(10, w-12))
	return append(out, mark+d.note.View())
}

// prompt is the decision's question wrapped to w cells.
func (d *decisionDialog) prompt(w int) []string {
	text := strings.ReplaceAll(strings.TrimSpace(termtext.String(d.item.Wait.Reason)), "\t", "    ")
	if text == "" {
		return nil
	}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		out = append(out, layout.Wrap(l, w, "")...)
	}
	return out
}

// verdictKeys choose a review question's verdict by its key, as in the
// cockpit's decision prompt.
var verdictKeys = []keys.Action{keys.Approve, keys.NeedsFix, keys.Block}

func verdictOption(w ops.FleetWait, a keys.Action) string {
	want := map[keys.Action]model.ReviewDecision{keys.Approve: model.ReviewApproved,
		keys.NeedsFix: model.ReviewNeedsFix, keys.Block: model.ReviewBlocked}[a]
	for _, o := range w.Options {
		if o.ID == string(want) {
			return o.ID
		}
	}
	return ""
}

func (d *decisionDialog) keyMap(m *Model) keyMap {
	if k, ok := m.answeredKeyMap(&d.dialogBase); ok {
		return k
	}
	opts := d.item.Wait.Options
	desc := map[keys.Action]string{keys.Back: "later"}
	label := map[keys.Action]string{}
	var short []keys.Action
	switch {
	case len(opts) == 0:
		short, desc[keys.Open] = []keys.Action{keys.Open}, "send"
	case d.onNote:
		short, desc[keys.Open], desc[keys.Back] = []keys.Action{keys.Open}, "to the options", "to the options"
	default:
		short, desc[keys.Choose] = []keys.Action{keys.Choose}, "choose"
		label[keys.Choose] = fmt.Sprintf("1–%d", min(9, len(opts)))
		if len(opts) == 1 {
			label[keys.Choose] = "1"
		}
		for _, v := range verdictKeys {
			if id := verdictOption(d.item.Wait, v); id != "" {
				short, desc[v] = append(short, v), id
			}
		}
		short, desc[keys.NextField] = append(short, keys.NextField), "note"
	}
	short = append(short, keys.Back)
	if _, ok := desc[keys.Open]; !ok {
		desc[keys.Open] = "to the options"
	}
	full := append([]keys.Action{keys.Choose}, verdictKeys...)
	full = append(full, keys.Open, keys.NextField, keys.PageDown, keys.PageUp, keys.Back)
	return keyMap{km: m.keys, short: short, full: full, desc: desc, label: label}
}

func (d *decisionDialog) handleKey(m *Model, k tea.KeyPressMsg) (tea.Cmd, bool) {
	if d.sending {
		return m.sendingKey(k)
	}
	if d.refused {
		if m.keys.Matches(k, keys.Back) || m.keys.Matches(k, keys.Open) {
			m.pop()
			return nil, true
		}
		return nil, false
	}
	opts := d.item.Wait.Options
	if d.onNote && printable(k) {
		var cmd tea.Cmd
		d.note, cmd = d.note.Update(k)
		d.problem = nil
		return cmd, true
	}
	a, ok := m.keys.Which(k, keys.Back, keys.Open, keys.NextField, keys.PrevField, keys.PageDown, keys.PageUp)
	if !ok && !d.onNote {
		a, ok = m.keys.Which(k, append([]keys.Action{keys.Choose}, verdictKeys...)...)
	}
	if !ok {
		if d.onNote && !m.keys.Matches(k, keys.Quit) && !m.keys.Matches(k, keys.Help) {
			var cmd tea.Cmd
			d.note, cmd = d.note.Update(k) // the cursor keys of the field
			return cmd, true
		}
		return nil, false
	}
	switch a {
	case keys.Back:
		if d.onNote && len(opts) > 0 {
			d.onNote = false // leave the note, keep it
			d.note.Blur()
			return nil, true
		}
		m.pop()
		m.note = infoNote("decision " + termtext.Line(d.item.Wait.Decision) + " still waits in the queue")
		return nil, true
	case keys.PageDown, keys.PageUp:
		step := 5
		if a == keys.PageUp {
			step = -step
		}
		d.off = max(0, d.off+step)
		return nil, true
	case keys.NextField, keys.PrevField:
		if len(opts) == 0 {
			return nil, true
		}
		d.onNote = !d.onNote
		if d.onNote {
			return d.note.Focus(), true
		}
		d.note.Blur()
		return nil, true
	case keys.Open:
		if len(opts) == 0 {
			answer := strings.TrimSpace(d.note.Value())
			if answer == "" {
				d.problem = []string{"type an answer first"}
				return nil, true
			}
			return m.sendDecision(d, answer, ""), true
		}
		if d.onNote {
			d.onNote = false
			d.note.Blur()
			return nil, true
		}
		d.problem = []string{"choose an option with its number"}
		return nil, true
	case keys.Choose:
		i := int(k.Code - '1')
		if i >= 0 && i < len(opts) && i < 9 {
			return m.sendDecision(d, opts[i].ID, strings.TrimSpace(d.note.Value())), true
		}
		d.problem = []string{fmt.Sprintf("there is no option %d", i+1)}
		return nil, true
	default: // a verdict key
		if id := verdictOption(d.item.Wait, a); id != "" {
			return m.sendDecision(d, id, strings.TrimSpace(d.note.Value())), true
		}
		return nil, false
	}
}

func (m *Model) sendDecision(d *decisionDialog, option, note string) tea.Cmd {
	it, f := d.item, m.f
	return m.send(d, "decision "+termtext.Line(it.Wait.Decision)+": "+termtext.Line(option), func(ctx context.Context) (*model.Error, error) {
		return f.Resolve(ctx, it.Project, it.Wait.Decision, option, note)
	})
}

// changeDialog shows an item's change and nothing else (d).
type changeDialog struct {
	dialogBase
}

func (m *Model) openChange(it fleet.Item) tea.Cmd {
	return m.pushWithChange(&changeDialog{}, it)
}

func (d *changeDialog) title(*Model) string {
	return "Change of " + termtext.Line(d.item.Wait.Feature) + where(d.item)
}

func (d *changeDialog) body(m *Model, w, h int) []string { return d.change.lines(m, w, h) }

func (d *changeDialog) keyMap(m *Model) keyMap {
	k := m.keyMapOf(append(d.change.shortKeys(), keys.Back), append(changeKeys, keys.Back)...)
	k.desc = map[keys.Action]string{keys.Open: "one file", keys.Back: d.change.backDesc("close")}
	return k
}

func (d *changeDialog) handleKey(m *Model, k tea.KeyPressMsg) (tea.Cmd, bool) {
	a, ok := m.keys.Which(k, d.keyMap(m).actions()...)
	if !ok {
		return nil, false
	}
	if a == keys.Back {
		if !d.change.back() {
			m.pop()
		}
		return nil, true
	}
	return d.change.key(m, a)
}

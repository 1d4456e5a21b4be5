package editor

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/flowdeck/flowdeck/model"
)

// PlanPattern names the plan's temporary file: .jsonc gives the editor the
// syntax that allows the comments.
const PlanPattern = "flowdeck-plan-*.jsonc"

// PlanTemplate is what the editor opens when the session has no plan yet:
// every field of a plan, with what it is for, as JSONC comments. Saved
// unchanged it cancels.
const PlanTemplate = `// A plan for flowdeck: JSON with comments (// and /* */) and trailing commas.
// Save and quit to apply it; quit without saving, or empty the file, to cancel.
{
  // One line: what the plan delivers.
  "summary": "",

  // What must hold when the work is done, one sentence each.
  "requirements": [],

  // Choices already made that every feature follows: a library, a layout, a rule.
  "decisions": [],

  // The work. Each feature is built, verified and reviewed on its own: keep them small.
  "features": [
    {
      // Unique and kebab-case: lowercase letters and digits joined by single hyphens.
      "id": "first-feature",
      // A short title; the cockpit shows it.
      "title": "",
      // What to build, for the agent (or person) who builds it.
      "summary": "",
      // The files it will touch.
      "files": [],
      // Shell commands that prove it works, run from the project root.
      "verification": [],
      // The ids of the features that must be completed before this one starts.
      "depends_on": []
    },
  ],

  // How many features may be worked on at once (default 1, or the config's
  // [session] max_parallel): with more than one, agents work side by side.
  // "max_parallel": 2,

  // Each active feature in its own git worktree and branch (default: on when
  // max_parallel is above 1 in a git repository).
  // "worktrees": true,
}
`

// PlanText is what the editor opens for session s: its plan as a document,
// else the template.
func PlanText(s *model.Session) []byte {
	if s == nil || s.Plan == nil {
		return []byte(PlanTemplate)
	}
	return model.PlanDocument(s.Plan)
}

// The note flowdeck puts above the person's text when it refuses a plan:
// comments, so the file still applies as it is, between two lines that let
// the next note replace it.
const (
	noteFirst = "// ✗ flowdeck did not apply this plan"
	noteLast  = "// ── fix it and save to try again; quit without saving, or empty the file, to cancel ──"
)

// Annotate returns text with a note about err at the top (replacing the
// note an earlier Annotate put there), for the editor to reopen: what was
// refused (code, message, hint) and the features at fault with their
// lines, or where the text could not be read. Every line number in the note
// is one of the returned text. Nothing the person wrote is removed.
func Annotate(text []byte, err error) []byte {
	body := stripNote(text)
	lines := noteLines(err)
	// A parse error's position counts lines in what was parsed: parse the
	// text as it will be, under a note of the same height, so it names the
	// line the person will see.
	if _, refused := model.AsError(err); !refused {
		under := append([]byte(strings.Repeat("//\n", len(lines)+2)), body...)
		if _, again := model.ParsePlan(under); again != nil {
			if _, ok := model.AsError(again); !ok {
				lines = noteLines(again)
			}
		}
	}
	// The features at fault take one more line, counted in their own.
	lines = append(lines, atFault(err, body, len(lines)+3)...)
	var b bytes.Buffer
	b.WriteString(noteFirst + "\n")
	for _, l := range lines {
		b.WriteString("//   " + l + "\n")
	}
	b.WriteString(noteLast + "\n")
	b.Write(body)
	return b.Bytes()
}

// noteLines says what err is, one comment line each.
func noteLines(err error) []string {
	if e, ok := model.AsError(err); ok {
		out := []string{oneLine(e.Code + ": " + e.Message)}
		if e.Recovery.Hint != "" {
			out = append(out, oneLine("hint: "+e.Recovery.Hint))
		}
		return out
	}
	return []string{oneLine(err.Error())}
}

// oneLine keeps a message inside its comment: a newline would end it.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

// stripNote removes a note Annotate wrote from the top of text.
func stripNote(text []byte) []byte {
	if !bytes.HasPrefix(text, []byte(noteFirst)) {
		return text
	}
	rest := text
	for len(rest) > 0 {
		line, after, _ := bytes.Cut(rest, []byte("\n"))
		rest = after
		if string(bytes.TrimRight(line, "\r")) == noteLast {
			return rest
		}
	}
	return text // the person edited the note's last line: leave all of it
}

// idToken is how a feature id stands in a refusal's message.
var idToken = regexp.MustCompile(`[a-z0-9]+(?:-[a-z0-9]+)*`)

// atFault names the features of body that a plan refusal's message names,
// each with the line of its id once body sits below a note of `above` lines
// (the message says what is wrong; this says where). Nothing when err is
// not about the plan's features, or body cannot be read.
func atFault(err error, body []byte, above int) []string {
	e, ok := model.AsError(err)
	if !ok || !strings.HasPrefix(e.Code, "plan_") {
		return nil
	}
	// Messages read "what: ids"; the words before the colon are prose.
	_, named, found := strings.Cut(e.Message, ": ")
	if !found {
		return nil
	}
	v, perr := hujson.Parse(append(bytes.Clone(body), '\n')) // a last // comment needs its newline
	if perr != nil {
		return nil
	}
	where := map[string]int{}
	for i := 0; ; i++ {
		id := v.Find(fmt.Sprintf("/features/%d/id", i))
		if id == nil {
			if v.Find(fmt.Sprintf("/features/%d", i)) == nil {
				break
			}
			continue
		}
		lit, ok := id.Value.(hujson.Literal)
		if !ok || lit.Kind() != '"' {
			continue
		}
		if _, dup := where[lit.String()]; !dup {
			where[lit.String()] = above + 1 + bytes.Count(body[:id.StartOffset], []byte("\n"))
		}
	}
	var ids []string
	for _, tok := range idToken.FindAllString(named, -1) {
		if _, ok := where[tok]; ok && !slices.Contains(ids, tok) {
			ids = append(ids, tok)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("%s (line %d)", id, where[id])
	}
	return []string{"at fault: " + strings.Join(parts, ", ")}
}

// PlanSave is what one save of the plan file comes to: a plan to apply, a
// cancel (Cancelled says why), or a text that is no plan (Problem: reopen
// it with Retry).
type PlanSave struct {
	Text      []byte
	Plan      *model.Plan
	Cancelled string
	Problem   error
}

// ReadPlan reads the person's save. Unchanged since flowdeck wrote it, or
// empty (nothing but whitespace and comments), it cancels. The error is
// the file's.
func (f *File) ReadPlan() (PlanSave, error) {
	text, err := f.Read()
	if err != nil {
		return PlanSave{}, err
	}
	s := PlanSave{Text: text}
	if f.Unchanged(text) {
		s.Cancelled = "the plan was left unchanged"
		return s, nil
	}
	p, err := model.ParsePlan(text)
	switch {
	case errors.Is(err, model.ErrEmptyPlan):
		s.Cancelled = "the plan file is empty"
	case err != nil:
		s.Problem = err
	default:
		s.Plan = p
	}
	return s, nil
}

// Retry writes text back with problem (a refusal, or why it is no plan) on
// top, for the next round in the editor.
func (f *File) Retry(text []byte, problem error) error { return f.Rewrite(Annotate(text, problem)) }

// Cancel says how an edit ended with nothing applied (why: "the plan was
// left unchanged", "the editor failed: …") and removes the file, unless
// text (the last save, nil when unread) holds something the person typed:
// then the file stays and the message says where, and how to apply it.
func (f *File) Cancel(why string, text []byte) string {
	if text == nil {
		text, _ = f.Read()
	}
	if _, err := model.ParsePlan(text); text != nil && f.Edited(text) && !errors.Is(err, model.ErrEmptyPlan) {
		return fmt.Sprintf("%s: nothing applied (what you typed is kept in %s; %s applies it)", why, f.Path,
			model.ShellJoin([]string{"flowdeck", "flow", "plan", "apply", f.Path}))
	}
	f.Remove()
	return why + ": nothing applied"
}

// Fixable reports whether editing the plan can answer refusal err. A
// refusal of the session's state (none active, completed, a feature in
// progress) or of a stale expected sequence is not: reopening the editor
// for it would loop.
func Fixable(err error) bool {
	e, ok := model.AsError(err)
	if !ok {
		return true // the text is no plan
	}
	switch e.Code {
	case model.CodeNoActiveSession, model.CodeSessionCompleted, model.CodePlanNotEditable, model.CodeStaleDecision:
		return false
	}
	return true
}

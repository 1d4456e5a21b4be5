package model

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Landing: a session whose features ran in worktrees delivers its work on
// the integration branch; the person's branch gets it only when they land
// it (flowdeck flow land). The git work is done outside and its result
// arrives on the Land action, so that the model knows the session landed
// (its next command, its status) and replay never runs git.

// Land records that the session's integration branch was landed: Branch is
// the branch it was merged into (or fast-forwarded, or found up to date),
// Commit that branch's head afterwards.
type Land struct {
	Branch string
	Commit string
}

func (Land) Name() string { return "land" }

// Landing is the last landing of a session's work since its integration
// branch last moved.
type Landing struct {
	Branch string    `json:"branch"`
	Commit string    `json:"commit"`
	Seq    uint64    `json:"seq"`
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`
}

// nextLand is the next step of a completed worktree session until it lands.
const nextLand = "flowdeck flow land"

func (a Land) decide(s *Session, b *builder) error {
	if err := requireSession(s); err != nil {
		return err
	}
	if !s.UsesWorktrees() {
		return invalidArg("session", "session %s has no integration branch to land", s.ID)
	}
	if err := checkLanding(a.Branch, a.Commit); err != nil {
		return err
	}
	if l := s.Landed; l != nil && l.Branch == a.Branch && l.Commit == a.Commit {
		return nil // landed again with nothing new: already recorded
	}
	b.emit(Event{Type: EventSessionLanded, Branch: a.Branch, Commit: a.Commit})
	return nil
}

// checkLanding refuses a landing whose commit is not an object id or whose
// branch could not be a git branch: an imported log's landing is shown to
// people and its commit may be handed to git.
func checkLanding(branch, commit string) *Error {
	if !isObjectID(commit) {
		return invalidArg("commit", "landed commit %s is not a git object id", quoteID(commit))
	}
	if !validBranchName(branch) {
		return invalidArg("branch", "landed branch %s is not a branch name", quoteID(branch))
	}
	return nil
}

// validBranchName is a conservative subset of git check-ref-format: one
// line of at most 255 bytes, no controls, spaces or characters git forbids
// in refs, not an option.
func validBranchName(b string) bool {
	if b == "" || len(b) > 255 || !utf8.ValidString(b) || b[0] == '-' || b[0] == '/' ||
		strings.HasSuffix(b, "/") || strings.HasSuffix(b, ".lock") || strings.HasSuffix(b, ".") ||
		strings.Contains(b, "..") || strings.Contains(b, "//") || strings.Contains(b, "@{") {
		return false
	}
	for _, r := range b {
		if r <= ' ' || r == 0x7f || strings.ContainsRune(`~^:?*[\`, r) || r >= 0x80 && r <= 0x9f {
			return false
		}
	}
	return true
}

// applyLandEvent folds session_landed.
func applyLandEvent(s *Session, e Event) (bool, error) {
	if e.Type != EventSessionLanded {
		return false, nil
	}
	if !s.UsesWorktrees() {
		return true, fmt.Errorf("session %s: event %d (%s): the session has no integration branch", s.ID, e.Seq, e.Type)
	}
	if err := checkLanding(e.Branch, e.Commit); err != nil {
		return true, fmt.Errorf("session %s: event %d (%s): %s", s.ID, e.Seq, e.Type, err.Message)
	}
	s.Landed = &Landing{Branch: e.Branch, Commit: e.Commit, Seq: e.Seq, At: e.At, Actor: e.Actor}
	return true, nil
}

// Landable reports whether s is a completed session whose work waits on
// its integration branch for the person to land it.
func Landable(s *Session) bool {
	return s != nil && !s.Archived && s.Status == StatusCompleted && s.UsesWorktrees() && s.Landed == nil
}

// StatusText is the session's status as people read it: a completed
// session whose features ran in worktrees also says whether its work has
// reached the person's branch, since until then it is not theirs.
func StatusText(s *Session) string {
	if s.Status == StatusCompleted && s.UsesWorktrees() {
		if s.Landed == nil {
			return "completed, not landed"
		}
		return "completed, landed into " + s.Landed.Branch
	}
	return string(s.Status)
}

package ops

import (
	"bytes"
	"fmt"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/worktrees"
)

// Refusal codes of flowdeck diff.
const (
	CodeNoGit  = "no_git"
	CodeNoBase = "no_base"
)

// DiffRequest says which change to show.
type DiffRequest struct {
	// Feature is the feature whose change is shown; "" is the active one.
	Feature string
	// Session shows the session's whole change instead.
	Session bool
	// MaxBytes bounds the patch (0: no bound): whole files are kept while
	// they fit, the rest is only listed in Omitted.
	MaxBytes int
}

// DiffResult is a change: the trees it goes between, its files with their
// line counts, and the unified diff.
type DiffResult struct {
	OK      bool         `json:"ok"`
	Error   *model.Error `json:"error,omitempty"`
	Feature string       `json:"feature,omitempty"`
	Session string       `json:"session,omitempty"`
	// From is the base tree, To the tree of the code the diff shows: the
	// evidence's for a feature that has some, else the code as it is now.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Stale says the code moved on since the evidence the diff shows;
	// Current is the tree it is at now.
	Stale   bool               `json:"stale,omitempty"`
	Current string             `json:"current,omitempty"`
	Files   []gitwork.FileStat `json:"files"`
	Added   int                `json:"added"`
	Removed int                `json:"removed"`
	Patch   string             `json:"patch,omitempty"`
	// Dir is the work tree the diff's paths are relative to: the
	// feature's worktree while it has one, else the repository's top.
	Dir string `json:"dir,omitempty"`
	// Omitted are the files left out of Patch by MaxBytes.
	Omitted []gitwork.FileStat `json:"omitted,omitempty"`
	// Protected are the paths the change's commits touch that are not the
	// project's code (.flow, files the person's checkout ignores): the
	// completion and the land refuse them (protected_paths). The diff of
	// trees leaves .flow out, so they are named here.
	Protected []string `json:"protected,omitempty"`
}

func (r *DiffResult) Refusal() *model.Error { return r.Error }

func diffRefusal(code, prerequisite, hint, next, msg string, args ...any) *DiffResult {
	return &DiffResult{Error: &model.Error{Code: code, Message: fmt.Sprintf(msg, args...),
		Recovery: model.Recovery{Prerequisite: prerequisite, Hint: hint, NextCommand: next}}}
}

// Diff is the change of a feature (its base to the tree its latest
// evidence ran against, or to the code now) or of the session (its base to
// the tree the last feature's broad validation ran against, else to the
// integration branch, or to the code now in the project's checkout).
func Diff(st *db.Store, r DiffRequest) (*DiffResult, error) {
	var s *model.Session
	if st != nil {
		var err error
		if s, err = st.Active(); err != nil {
			return nil, err
		}
	}
	if s == nil || s.Plan == nil {
		return diffRefusal(model.CodeNoActiveSession, "an active session with a plan", "There is no change to show yet.",
			"flowdeck flow status", "there is no active session with a plan"), nil
	}
	if !worktrees.InGit(st) {
		return diffRefusal(CodeNoGit, "a project in a git repository", worktrees.ErrNoGit.Error()+".",
			"git init", "%v", worktrees.ErrNoGit), nil
	}
	out := &DiffResult{OK: true, Session: s.ID}
	var err error
	if r.Session {
		err = sessionTrees(st, s, out)
	} else {
		err = featureTrees(st, s, r.Feature, out)
	}
	if err != nil || out.Error != nil {
		return out, err
	}
	repo, err := gitwork.Open(worktrees.ProjectRoot(st))
	if err != nil {
		return nil, err
	}
	if out.Dir == "" {
		out.Dir = repo.Dir
	}
	if out.Files, err = repo.Stat(out.From, out.To); err != nil {
		return nil, err
	}
	for _, f := range out.Files {
		out.Added += max(f.Added, 0)
		out.Removed += max(f.Removed, 0)
	}
	var patch bytes.Buffer
	if err := repo.Diff(out.From, out.To, &patch); err != nil {
		return nil, err
	}
	out.Patch, out.Omitted = BoundPatch(patch.Bytes(), out.Files, r.MaxBytes)
	out.Protected = protectedIn(repo, worktrees.ProjectRoot(st), s, out.Feature, r.Session)
	return out, nil
}

// protectedIn are the paths the commits of the change (feature id's
// branch since it left the integration branch, or the integration branch
// since the session's base) touch that the completion or the land would
// refuse. The diff shows it as a warning: git failing to tell leaves it out.
func protectedIn(repo *gitwork.Repo, root string, s *model.Session, id string, session bool) []string {
	if !s.UsesWorktrees() {
		return nil
	}
	flow, err := repo.FlowPath(root)
	if err != nil {
		return nil
	}
	var paths []string
	if session {
		n, err := model.GitNamesOf(s, "")
		if err != nil {
			return nil
		}
		if head, err := repo.BranchHead(n.Integration); err == nil && head != "" {
			paths, _ = repo.ProtectedSince(flow, n.BaseCommit, head)
		}
	} else if f := s.Plan.Feature(id); f != nil && f.Git != nil && f.Status == model.FeatureInProgress {
		if n, err := model.GitNamesOf(s, id); err == nil {
			paths, _ = repo.BranchProtected(flow, n.Integration, n.Branch)
		}
	}
	return model.CapFiles(paths)
}

// featureTrees fills in the trees of feature id's change.
func featureTrees(st *db.Store, s *model.Session, id string, out *DiffResult) error {
	if id == "" {
		id = s.Execution.ActiveFeature
	}
	if id == "" {
		*out = *diffRefusal(model.CodeFeatureNotActive, "a feature to show", "No feature is active: name one.",
			"flowdeck diff FEATURE", "no feature is active")
		return nil
	}
	f := s.Plan.Feature(id)
	if f == nil {
		*out = *diffRefusal(model.CodeUnknownFeature, "a feature of the plan", "Name a feature of the plan.",
			"flowdeck flow status", "feature %s is not in the plan", id)
		return nil
	}
	out.Feature = f.ID
	if f.Base == "" {
		*out = *diffRefusal(CodeNoBase, "a feature started with its base recorded",
			"flowdeck records where a feature's code starts when it starts; this one has not started since it did.",
			"flowdeck flow status", "feature %s has no recorded base (not started, or started by an older flowdeck)", f.ID)
		return nil
	}
	out.From = f.Base
	if f.Status == model.FeatureInProgress {
		cur, _, err := worktrees.CodeTree(st, s, f.ID)
		if err != nil {
			return err
		}
		out.Current = cur
		if f.Git != nil && cur != "" {
			out.Dir = worktrees.Path(st, model.WorktreePath(f.ID))
		}
	}
	if e := latestTree(f); e != "" {
		out.To = e
	} else {
		out.To = out.Current
	}
	if out.To == "" {
		*out = *diffRefusal(CodeNoBase, "the feature's code", "Its worktree is gone: flowdeck run --feature makes it again.",
			"flowdeck flow status", "feature %s has no code to diff: no evidence and no worktree", f.ID)
		return nil
	}
	out.Stale = out.Current != "" && out.Current != out.To
	return nil
}

// latestTree is the tree of f's latest evidence since it last started.
func latestTree(f *model.Feature) string {
	for i := len(f.Validations) - 1; i >= 0; i-- {
		e := f.Validations[i]
		if e.Seq <= f.StartedSeq {
			break
		}
		if e.Tree != "" {
			return e.Tree
		}
	}
	return ""
}

// sessionTrees fills in the trees of the session's whole change.
func sessionTrees(st *db.Store, s *model.Session, out *DiffResult) error {
	if s.Base == "" {
		*out = *diffRefusal(CodeNoBase, "a session approved with its base recorded",
			"flowdeck records where the session's code starts when its plan is approved.",
			"flowdeck flow status", "session %s has no recorded base (approved by an older flowdeck, or not yet)", s.ID)
		return nil
	}
	out.From = s.Base
	// The final review decides on the code the broad validation ran
	// against: in worktrees, the last feature's, caught up with the rest.
	if f := s.Plan.Feature(s.Execution.ActiveFeature); f != nil {
		if e := model.LatestBroad(f); e != nil && e.Tree != "" {
			out.To = e.Tree
			return nil
		}
	}
	// A read: the tree is not kept (StartTree would write a ref).
	var err error
	out.To, _, err = worktrees.SessionTree(st, s)
	return err
}

// BoundPatch cuts patch (git diff output whose files are files, in order)
// to max bytes at file boundaries: each file whole while it fits, in
// order, and the files that do not fit listed as omitted (a large file
// does not push the small ones after it out). max 0 is no bound.
func BoundPatch(patch []byte, files []gitwork.FileStat, max int) (string, []gitwork.FileStat) {
	if max <= 0 || len(patch) <= max {
		return string(patch), nil
	}
	starts := fileStarts(patch)
	var out []byte
	var omitted []gitwork.FileStat
	for i, start := range starts {
		end := len(patch)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		if len(out)+end-start <= max {
			out = append(out, patch[start:end]...)
		} else if i < len(files) {
			omitted = append(omitted, files[i])
		}
	}
	return string(out), omitted
}

// fileStarts are the offsets of the "diff --git " lines of patch.
func fileStarts(patch []byte) []int {
	var out []int
	marker := []byte("diff --git ")
	for off := 0; off < len(patch); {
		if bytes.HasPrefix(patch[off:], marker) {
			out = append(out, off)
		}
		nl := bytes.IndexByte(patch[off:], '\n')
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return out
}

package model

import (
	"fmt"
	"slices"
	"strings"
)

// Git worktrees for parallel features. The model only names and records
// them; the git work itself (branches, worktrees, merges) is done outside,
// and what came of it arrives on the actions (PlanApprove.Git,
// RunComplete.MergeCommit, RecordConflict) so that replay never runs git.

// GitSetup is how a session's features use git: recorded when the plan is
// first approved in a git repository with worktrees wanted.
type GitSetup struct {
	// Integration is the branch every feature branch starts from and is
	// merged back into: flowdeck/SESSION.
	Integration string `json:"integration"`
	// Base is the branch checked out at approval ("" when HEAD was
	// detached) and BaseCommit the commit the integration branch starts at.
	Base       string `json:"base,omitempty"`
	BaseCommit string `json:"base_commit"`
}

// FeatureGit is one feature's branch and worktree, and what its merge did.
type FeatureGit struct {
	Branch string `json:"branch"`
	// Worktree is the worktree's path relative to the project root.
	Worktree string `json:"worktree"`
	// MergeCommit is the integration branch's head after the feature was
	// merged (set when it completes), MergeBase its head before: a reset of
	// the feature reverts MergeBase..MergeCommit on the integration branch.
	MergeCommit string `json:"merge_commit,omitempty"`
	MergeBase   string `json:"merge_base,omitempty"`
	// Conflicts are the paths the last merge attempt conflicted on.
	Conflicts []string `json:"conflicts,omitempty"`
}

// WorktreesDir is where feature worktrees live, relative to the project root.
const WorktreesDir = ".flow/worktrees"

// IntegrationBranch is the integration branch of session id.
func IntegrationBranch(id string) string { return "flowdeck/" + id }

// FeatureBranch is the branch of feature f in session id. It cannot be
// flowdeck/SESSION/FEATURE: git keeps refs as paths, so a branch
// flowdeck/SESSION (the integration branch) rules out every branch below
// it. A '.' cannot occur in session or feature ids, so no feature branch
// can be another session's integration branch. Feature "lock" would make
// a name ending in ".lock", which git refuses (it is its lock file's
// suffix): it gets a '_', which no feature id holds, so no other
// feature's branch can be the same.
func FeatureBranch(id, f string) string {
	if f == "lock" {
		f += "_"
	}
	return "flowdeck/" + id + "." + f
}

// WorktreePath is the worktree of feature f, relative to the project root.
func WorktreePath(f string) string { return WorktreesDir + "/" + f }

// CodeGitRecordMismatch refuses git work whose stored names (a branch, a
// worktree path) are not the ones flowdeck derives from the ids: the
// database was changed outside flowdeck, and must not point flowdeck's git
// at another branch or directory.
const CodeGitRecordMismatch = "git_record_mismatch"

// CodeWorktreeChanged refuses git work in a feature's worktree that is no
// longer the one flowdeck made (its .git file or git directory rewritten,
// a symlink on its path): run there, flowdeck's git would act on another
// repository or branch than the feature's.
const CodeWorktreeChanged = "worktree_changed"

// WorktreeChanged is the worktree_changed refusal of feature id's
// worktree at path; why says what differs.
func WorktreeChanged(s *Session, id, path string, why error) *Error {
	return refuse(CodeWorktreeChanged, string(s.Status), "the worktree flowdeck made for the feature",
		"Nothing was run in it. Look at what changed there (its .git file names its git directory); "+
			"to start the feature over, remove the directory by hand, run git worktree prune, and reset the feature.",
		"flowdeck flow reset feature "+id, "the worktree of feature %s is not the one flowdeck made: %v", id, why)
}

// GitNames are where flowdeck's git work for a feature of a session
// happens, derived from the ids alone.
type GitNames struct {
	Integration string
	BaseCommit  string
	// Feature, its Branch and its Worktree (relative to the project root);
	// empty for GitNamesOf(s, "").
	Feature, Branch, Worktree string
}

// GitNamesOf are the git names of feature id of s ("" for the session
// alone), derived from the ids: git work uses these, never the stored
// fields, and a stored field that differs (a database edited outside
// flowdeck) is a git_record_mismatch refusal. s must use worktrees.
func GitNamesOf(s *Session, id string) (GitNames, error) {
	mismatch := func(what, stored, want string) error {
		return refuse(CodeGitRecordMismatch, string(s.Status), "git records that match the session's ids",
			"The database was changed outside flowdeck. flowdeck flow verify checks it against its log; "+
				"restore it from a backup or export (flowdeck export) rather than let flowdeck's git act on it.",
			"flowdeck flow verify", "session %s records %s %s, not %s", s.ID, what, quoteID(stored), want)
	}
	if !s.UsesWorktrees() || !ValidSessionID(s.ID) {
		return GitNames{}, mismatch("a git setup for session id", s.ID, "a valid session id")
	}
	n := GitNames{Integration: IntegrationBranch(s.ID), BaseCommit: s.Git.BaseCommit}
	if s.Git.Integration != n.Integration {
		return GitNames{}, mismatch("integration branch", s.Git.Integration, n.Integration)
	}
	if !isObjectID(n.BaseCommit) {
		return GitNames{}, mismatch("base commit", n.BaseCommit, "a git object id")
	}
	if id == "" {
		return n, nil
	}
	if !ValidFeatureID(id) {
		return GitNames{}, mismatch("feature id", id, "a valid feature id")
	}
	n.Feature, n.Branch, n.Worktree = id, FeatureBranch(s.ID, id), WorktreePath(id)
	if s.Plan != nil {
		if f := s.Plan.Feature(id); f != nil && f.Git != nil {
			switch {
			case f.Git.Branch != n.Branch:
				return GitNames{}, mismatch("feature branch", f.Git.Branch, n.Branch)
			case f.Git.Worktree != n.Worktree:
				return GitNames{}, mismatch("worktree", f.Git.Worktree, n.Worktree)
			}
		}
	}
	return n, nil
}

// WantsWorktrees says whether features of plan p run in worktrees in a
// project that is (isRepo) or is not a git repository: the plan's
// worktrees field when set, else whenever several features may be active.
func (p *Plan) WantsWorktrees(isRepo bool) bool {
	if p == nil || !isRepo {
		return false
	}
	if p.Worktrees != nil {
		return *p.Worktrees
	}
	return p.MaxParallel > 1
}

// UsesWorktrees reports whether the features of s run in git worktrees.
func (s *Session) UsesWorktrees() bool { return s != nil && s.Git != nil }

// featureGit is what a feature started in s records about its worktree.
func featureGit(s *Session, f string) *FeatureGit {
	if !s.UsesWorktrees() {
		return nil
	}
	return &FeatureGit{Branch: FeatureBranch(s.ID, f), Worktree: WorktreePath(f)}
}

// checkGitSetup refuses a setup whose branch is not the session's own or
// whose commit is not a hexadecimal object id: it comes from outside.
func checkGitSetup(s *Session, g *GitSetup) error {
	if g == nil {
		return nil
	}
	if g.Integration != IntegrationBranch(s.ID) {
		return invalidArg("git", "integration branch %s is not %s", quoteID(g.Integration), IntegrationBranch(s.ID))
	}
	if !isObjectID(g.BaseCommit) {
		return invalidArg("git", "base commit %s is not a git object id", quoteID(g.BaseCommit))
	}
	return nil
}

func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

// RecordConflict records that merging the active feature's branch into the
// integration branch conflicted on Files. It stores the conflict and is
// always refused: with merge_conflict, whose recovery names the ways on, or
// (storing nothing) with the completion gate that is not met.
type RecordConflict struct {
	Feature string
	Files   []string
}

func (RecordConflict) Name() string { return "merge_conflict" }

func (a RecordConflict) decide(s *Session, b *builder) error {
	f, err := requireActive(s, a.Feature)
	if err != nil {
		return err
	}
	if f.Git == nil {
		return invalidArg("feature", "feature %s has no worktree to merge", f.ID)
	}
	// A merge is tried only once the feature could complete; a conflict
	// reported earlier is the gate's business first.
	if gerr := CompletionGate(s, f); gerr != nil {
		return gerr
	}
	files := CapFiles(a.Files)
	b.emit(Event{Type: EventMergeConflict, Feature: f.ID, Files: files})
	return MergeConflictError(s, f, files)
}

// maxConflictFiles is how many conflicting paths are stored or shown: git
// can name thousands, and each lands in an event and a message.
const maxConflictFiles = 100

// CapFiles is files (a copy) cut to maxConflictFiles, the rest counted in
// a last entry.
func CapFiles(files []string) []string {
	if len(files) <= maxConflictFiles {
		return slices.Clone(files)
	}
	return append(slices.Clone(files[:maxConflictFiles]), fmt.Sprintf("… and %d more", len(files)-maxConflictFiles))
}

// MergeConflictError is the merge_conflict refusal of feature f whose merge
// conflicted on files: the worktree is kept, and the hint says the three
// ways on.
func MergeConflictError(s *Session, f *Feature, files []string) *Error {
	// The names as derived from the ids (GitNamesOf): what git work uses.
	wt, integ := WorktreePath(f.ID), IntegrationBranch(s.ID)
	hint := fmt.Sprintf("The worktree %s is kept. Either rebase the feature branch onto %s (git -C %s rebase %s) "+
		"validate, and complete again; or resolve by hand in %s (merge %s into the branch, fix the files, commit), "+
		"validate, and complete again; or drop the work: flowdeck flow reset feature %s.",
		wt, integ, ShellQuote(wt), integ, wt, integ, f.ID)
	e := refuse(CodeMergeConflict, string(s.Status), "a feature branch that merges cleanly into "+integ,
		hint, "", "merging feature %s into %s conflicts on %s", f.ID, integ, QuotedFiles(files))
	return e.withAction("flow", "run", "complete", f.ID, "--outcome", "completed")
}

// ProtectedPathsError is the protected_paths refusal of completing feature
// f, whose merge into the integration branch would change paths that are
// not the project's code: flowdeck's own .flow directory, or files the
// person's checkout ignores (a database, a .env). Nothing was merged; the
// worktree stays.
func ProtectedPathsError(s *Session, f *Feature, paths []string) *Error {
	// The names as derived from the ids (GitNamesOf): what git work uses.
	wt, integ := WorktreePath(f.ID), IntegrationBranch(s.ID)
	hint := fmt.Sprintf("Nothing was merged and the worktree %s is kept. These files are flowdeck's own or ones your checkout ignores: "+
		"a land would put them over yours. Take them out of the feature's branch (git -C %s rm -r -q --cached -- PATH..., then commit), "+
		"validate, review and complete again; or drop the work: flowdeck flow reset feature %s.",
		wt, ShellQuote(wt), f.ID)
	e := refuse(CodeProtectedPaths, string(s.Status), "a change to the project's code only",
		hint, "", "merging feature %s into %s would change what is not the project's code: %s", f.ID, integ, NamedPaths(paths))
	return e.withAction("diff", f.ID)
}

// maxNamedPaths is how many paths a one-line message names.
const maxNamedPaths = 10

// NamedPaths names paths from git in a message: quoted as QuotedFiles does,
// at most maxNamedPaths of them, the rest counted.
func NamedPaths(paths []string) string {
	if len(paths) <= maxNamedPaths {
		return QuotedFiles(paths)
	}
	return fmt.Sprintf("%s and %d more", QuotedFiles(paths[:maxNamedPaths]), len(paths)-maxNamedPaths)
}

// QuotedFiles lists paths from git as a shell would need them: a file name
// may hold anything, terminal controls included.
func QuotedFiles(files []string) string {
	q := make([]string, len(files))
	for i, f := range files {
		q[i] = ShellQuote(f)
	}
	return strings.Join(q, ", ")
}

// CommitGate refuses to complete f at commit head (its branch's head, what
// the merge would take) when the latest evidence ran against another
// commit: the work changed after it was validated. Evidence that names no
// commit (a report) and an unknown head are not checked.
func CommitGate(s *Session, f *Feature, head string) *Error {
	if head == "" {
		return nil
	}
	since := evidenceSince(f.Validations, f.StartedSeq, "")
	if len(since) == 0 {
		return nil
	}
	latest := since[len(since)-1]
	if latest.Commit == "" || latest.Commit == head {
		return nil
	}
	return withValidate(f, refuse(CodeUnverifiedCommit, string(s.Status), "validation evidence of the commit that merges",
		"The feature's branch changed after its latest validation: validate it again (flowdeck run --feature runs in the worktree and records the commit), then ask for a new review.",
		"", "feature %s is at commit %s but its latest validation ran against %s", f.ID, ShortCommit(head), ShortCommit(latest.Commit)), latest.Scope)
}

// ResetMerges are the completed features a reset of id takes back out of
// the integration branch (id and those downstream of it, in plan order):
// merged lists those whose merge a reset reverts, old those merged before
// flowdeck recorded what they merged onto, whose merge stays. The reset
// and the cockpit's confirmation of it both ask this.
func ResetMerges(s *Session, id string) (merged, old []string) {
	if !s.UsesWorktrees() || s.Plan == nil || s.Plan.Feature(id) == nil {
		return nil, nil
	}
	for _, fid := range append([]string{id}, Downstream(s.Plan.Features, id)...) {
		f := s.Plan.Feature(fid)
		switch {
		case f == nil || f.Status != FeatureCompleted || f.Git == nil || f.Git.MergeCommit == "":
		case f.Git.MergeBase == "":
			old = append(old, fid)
		default:
			merged = append(merged, fid)
		}
	}
	return merged, old
}

package render

import (
	"strings"

	"github.com/flowdeck/flowdeck/model"
)

// writeFeatureGit writes where a feature's work lives in git, for sessions
// whose features run in worktrees: its branch, its worktree while it is
// not completed (completion removes it), the merge commit once merged, and
// the files of a merge conflict with the ways on.
func writeFeatureGit(line func(...string), s *model.Session, f *model.Feature) {
	g := f.Git
	if g == nil {
		return
	}
	line("- **Branch:** ", codeSpan(g.Branch))
	if f.Status != model.FeatureCompleted && g.Worktree != "" {
		line("- **Worktree:** ", codeSpan(g.Worktree))
	}
	if g.MergeCommit != "" {
		into := ""
		if s.Git != nil {
			into = " into " + codeSpan(s.Git.Integration)
		}
		line("- **Merged:** at ", codeSpan(model.ShortCommit(g.MergeCommit)), into)
	}
	if len(g.Conflicts) > 0 {
		files := make([]string, len(g.Conflicts))
		for i, p := range g.Conflicts {
			files[i] = codeSpan(p)
		}
		line("- **Merge conflict:** ", strings.Join(files, ", "),
			" — rebase or resolve by hand in the worktree and complete again, or ",
			codeSpan("flowdeck flow reset feature "+f.ID))
	}
}

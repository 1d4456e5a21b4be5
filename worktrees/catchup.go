package worktrees

import (
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
)

// Integration is where a feature's branch stands against the session's
// integration branch: the run flow's catch-up step (merge the integration
// branch into the feature's, before broad validation) is needed only when
// Contained is false.
type Integration struct {
	Branch    string `json:"branch"`
	Contained bool   `json:"contained"`
}

// IntegrationOf is feature id's branch against the integration branch of
// s; nil when the feature has no branch of its own (no worktrees, not
// started) or git cannot tell. Names come from the ids (GitNamesOf).
func IntegrationOf(st *db.Store, s *model.Session, id string) *Integration {
	if s == nil || s.Plan == nil || !s.UsesWorktrees() {
		return nil
	}
	if f := s.Plan.Feature(id); f == nil || f.Git == nil {
		return nil
	}
	n, err := model.GitNamesOf(s, id)
	if err != nil {
		return nil
	}
	repo, err := gitwork.Open(ProjectRoot(st))
	if err != nil {
		return nil
	}
	integ, err := repo.BranchHead(n.Integration)
	if err != nil || integ == "" {
		integ = n.BaseCommit // no branch yet: it starts there
	}
	head, err := repo.BranchHead(n.Branch)
	if err != nil || head == "" {
		return nil
	}
	in, err := repo.IsAncestor(integ, head)
	if err != nil {
		return nil
	}
	return &Integration{Branch: n.Integration, Contained: in}
}

package model

import (
	"sort"
	"strings"
)

// MaxFeatureIDLen bounds feature ids so they stay usable as file names.
const MaxFeatureIDLen = 64

// ValidFeatureID reports whether id is kebab-case and at most 64 characters.
func ValidFeatureID(id string) bool {
	return len(id) <= MaxFeatureIDLen && kebab(id)
}

// kebab reports whether id matches ^[a-z0-9]+(-[a-z0-9]+)*$: a loop, not a
// regexp, so no process pays for compiling one at init.
func kebab(id string) bool {
	if id == "" || id[0] == '-' || id[len(id)-1] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && id[i-1] != '-':
		default:
			return false
		}
	}
	return true
}

// ValidatePlan checks a plan's ids and dependencies. The first rule broken
// decides the error, in this order: empty, invalid id, duplicate, self
// dependency, unknown dependency, cycle.
func ValidatePlan(p *Plan) error {
	const stage, next = "planning", "flowdeck flow plan apply FILE"
	if p == nil || len(p.Features) == 0 {
		return refuse(CodePlanEmpty, stage, "a plan with at least one feature",
			"Give the plan a non-empty \"features\" array.", next,
			"the plan has no features")
	}
	var bad []string
	for _, f := range p.Features {
		if !ValidFeatureID(f.ID) {
			bad = append(bad, quoteID(f.ID))
		}
	}
	if len(bad) > 0 {
		return refuse(CodePlanInvalidID, stage, "kebab-case feature ids",
			"Feature ids are lowercase letters and digits in words joined by single hyphens, at most 64 characters.", next,
			"invalid feature id: %s", strings.Join(bad, ", "))
	}
	seen := map[string]bool{}
	var dups []string
	for _, f := range p.Features {
		if seen[f.ID] {
			dups = append(dups, f.ID)
		}
		seen[f.ID] = true
	}
	if len(dups) > 0 {
		return refuse(CodePlanDuplicateFeature, stage, "unique feature ids",
			"Rename or merge the features that share an id.", next,
			"duplicate feature id: %s", strings.Join(dups, ", "))
	}
	if dup := duplicateEdge(p.Features); dup != "" {
		return refuse(CodePlanDuplicateDependency, stage, "each dependency listed once",
			"List each dependency of a feature once in depends_on and blocked_by.", next,
			"duplicate dependency: %s", dup)
	}
	var selfs, unknown []string
	for _, f := range p.Features {
		for _, d := range edges(f) {
			switch {
			case d == f.ID:
				selfs = append(selfs, f.ID)
			case !seen[d]:
				unknown = append(unknown, f.ID+" -> "+quoteID(d))
			}
		}
	}
	if len(selfs) > 0 {
		return refuse(CodePlanSelfDependency, stage, "no feature depends on itself",
			"Remove the feature's own id from its depends_on and blocked_by.", next,
			"feature depends on itself: %s", strings.Join(selfs, ", "))
	}
	if len(unknown) > 0 {
		return refuse(CodePlanUnknownDependency, stage, "every dependency names a feature of the plan",
			"Add the missing features or remove the dependencies.", next,
			"unknown dependency: %s", strings.Join(unknown, ", "))
	}
	if cycle := FindCycle(p.Features); cycle != nil {
		return refuse(CodePlanCycle, stage, "an acyclic dependency graph",
			"Break the cycle by removing one of its dependencies.", next,
			"dependency cycle: %s", strings.Join(cycle, " -> "))
	}
	return nil
}

// duplicateEdge names the first dependency that a feature lists twice, as
// "feature -> dependency", or "".
func duplicateEdge(features []Feature) string {
	for _, f := range features {
		seen := map[string]bool{}
		for _, d := range edges(f) {
			if seen[d] {
				return f.ID + " -> " + quoteID(d)
			}
			seen[d] = true
		}
	}
	return ""
}

func quoteID(id string) string {
	if id == "" {
		return `""`
	}
	if len(id) > 80 {
		id = id[:80] + "…"
	}
	return strings.ToValidUTF8(id, "?")
}

// edges returns everything a feature waits for: depends_on and blocked_by.
func edges(f Feature) []string {
	if len(f.BlockedBy) == 0 {
		return f.DependsOn
	}
	out := make([]string, 0, len(f.DependsOn)+len(f.BlockedBy))
	out = append(out, f.DependsOn...)
	return append(out, f.BlockedBy...)
}

// FindCycle returns the ids on one dependency cycle, first id repeated at the
// end, or nil when the graph is acyclic. Unknown dependencies are ignored.
func FindCycle(features []Feature) []string {
	byID := indexFeatures(features)
	const (
		white = iota
		grey
		black
	)
	color := make(map[string]int, len(features))
	var stack []string
	var found []string
	var visit func(id string) bool
	visit = func(id string) bool {
		color[id] = grey
		stack = append(stack, id)
		for _, d := range edges(features[byID[id]]) {
			if _, ok := byID[d]; !ok {
				continue
			}
			switch color[d] {
			case grey:
				for i, s := range stack {
					if s == d {
						found = append(append([]string{}, stack[i:]...), d)
						return true
					}
				}
			case white:
				if visit(d) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[id] = black
		return false
	}
	for _, f := range features {
		if color[f.ID] == white && visit(f.ID) {
			return found
		}
	}
	return nil
}

func indexFeatures(features []Feature) map[string]int {
	byID := make(map[string]int, len(features))
	for i, f := range features {
		if _, dup := byID[f.ID]; !dup {
			byID[f.ID] = i
		}
	}
	return byID
}

// Levels groups feature ids into topological levels (Kahn's algorithm): level
// 0 has no dependencies, level n depends only on levels below n. Ids keep plan
// order inside a level. A plan with a cycle returns nil.
func Levels(features []Feature) [][]string {
	byID := indexFeatures(features)
	indeg := make(map[string]int, len(features))
	dependents := make(map[string][]string, len(features))
	for _, f := range features {
		for _, d := range edges(f) {
			if _, ok := byID[d]; ok {
				indeg[f.ID]++
				dependents[d] = append(dependents[d], f.ID)
			}
		}
	}
	var levels [][]string
	var current []string
	for _, f := range features {
		if indeg[f.ID] == 0 {
			current = append(current, f.ID)
		}
	}
	placed := 0
	for len(current) > 0 {
		levels = append(levels, current)
		placed += len(current)
		var next []string
		for _, id := range current {
			for _, dep := range dependents[id] {
				indeg[dep]--
				if indeg[dep] == 0 {
					next = append(next, dep)
				}
			}
		}
		sort.Slice(next, func(i, j int) bool { return byID[next[i]] < byID[next[j]] })
		current = next
	}
	if placed != len(byID) {
		return nil
	}
	return levels
}

// Downstream returns, in plan order, every feature that transitively waits for
// id through depends_on or blocked_by. id itself is not included.
func Downstream(features []Feature, id string) []string {
	dependents := map[string][]string{}
	for _, f := range features {
		for _, d := range edges(f) {
			dependents[d] = append(dependents[d], f.ID)
		}
	}
	return closure(features, id, dependents)
}

// DependentsIndex maps every feature id to its direct dependents, in plan
// order, in one pass over the plan.
func DependentsIndex(p *Plan) map[string][]string {
	out := map[string][]string{}
	if p == nil {
		return out
	}
	for _, f := range p.Features {
		for _, d := range edges(f) {
			if n := len(out[d]); n == 0 || out[d][n-1] != f.ID {
				out[d] = append(out[d], f.ID)
			}
		}
	}
	return out
}

// Upstream returns, in plan order, every feature that id transitively waits for.
func Upstream(features []Feature, id string) []string {
	deps := map[string][]string{}
	for _, f := range features {
		deps[f.ID] = edges(f)
	}
	return closure(features, id, deps)
}

func closure(features []Feature, id string, next map[string][]string) []string {
	seen := map[string]bool{id: true}
	queue := []string{id}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, n := range next[cur] {
			if !seen[n] {
				seen[n] = true
				queue = append(queue, n)
			}
		}
	}
	var out []string
	for _, f := range features {
		if f.ID != id && seen[f.ID] {
			out = append(out, f.ID)
		}
	}
	return out
}

// Waiting returns the dependencies and blockers of f that are not completed.
func Waiting(p *Plan, f Feature) []string {
	var out []string
	for _, d := range edges(f) {
		if g := p.Feature(d); g == nil || g.Status != FeatureCompleted {
			out = append(out, d)
		}
	}
	return out
}

// Runnable returns the pending features whose dependencies and blockers are
// all completed, in plan order.
func Runnable(p *Plan) []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, f := range p.Features {
		if f.Status == FeaturePending && len(Waiting(p, f)) == 0 {
			out = append(out, f.ID)
		}
	}
	return out
}

// Feature returns the feature with id, or nil.
func (p *Plan) Feature(id string) *Feature {
	if p == nil {
		return nil
	}
	if i, ok := p.pos[id]; ok && i < len(p.Features) && p.Features[i].ID == id {
		return &p.Features[i]
	}
	for i := range p.Features {
		if p.Features[i].ID == id {
			return &p.Features[i]
		}
	}
	return nil
}

// reindex rebuilds the id index after Features was replaced or reordered.
func (p *Plan) reindex() {
	if p == nil {
		return
	}
	p.pos = make(map[string]int, len(p.Features))
	for i, f := range p.Features {
		p.pos[f.ID] = i
	}
}

// CompletedCount returns how many features are completed.
func (p *Plan) CompletedCount() int {
	if p == nil {
		return 0
	}
	n := 0
	for _, f := range p.Features {
		if f.Status == FeatureCompleted {
			n++
		}
	}
	return n
}

// Required returns how many completed features complete the session.
func (p *Plan) Required() int {
	if p == nil {
		return 0
	}
	if m := p.Completion.MinCompletedFeatures; m > 0 && m < len(p.Features) {
		return m
	}
	return len(p.Features)
}

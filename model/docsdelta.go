package model

// DocFeatureIDs returns, in plan order, the ids of the features that get a
// docs/features/<id>.md file. Only valid ids are returned, so a caller can use
// them as file names without any id escaping the docs folder.
func DocFeatureIDs(s *Session) []string {
	if s == nil || s.Plan == nil {
		return nil
	}
	var ids []string
	for _, f := range s.Plan.Features {
		if ValidFeatureID(f.ID) {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// DocsBefore is what DocsToRefresh needs to know of a session as it was
// before an action: taken by MarkDocs before the action is applied.
type DocsBefore struct {
	known   bool
	active  string
	next    string // NextCommand, which the active feature's doc shows
	history []HistoryItem
}

// MarkDocs remembers what of s the feature docs show and an action can drop
// without naming it. The history slice is kept as it is: Apply appends past
// its end or trims into a copy, so the remembered items stay intact.
func MarkDocs(s *Session) DocsBefore {
	if s == nil {
		return DocsBefore{}
	}
	d := DocsBefore{known: true, active: s.Execution.ActiveFeature, history: s.Execution.History}
	if d.active != "" {
		d.next = NextCommand(s) // without an active feature, no doc shows it, and it costs a pass over the plan
	}
	return d
}

// DocsToRefresh returns the features whose docs the events of one action may
// have changed, so an action on a large plan re-renders a handful of docs
// instead of all of them. all is true when every doc must be rendered: a new
// or re-activated session, or a plan applied or narrowed.
//
// A feature doc shows the feature, its state, the states of its direct
// dependencies and dependents, its history items and, when active, that it
// is and the next command. A feature's state depends on its own record and
// its dependencies' statuses, not on which feature is active. So the docs
// to render are the features the events name and those whose history items
// were trimmed away, the dependents of all those (their state may change),
// and the direct neighbours of that set (they show its states); and the
// active feature before and after, alone, when the active feature or the
// next command changed. An action that changes no feature (a note) renders
// none.
func DocsToRefresh(before DocsBefore, after *Session, events []Event) (ids []string, all bool) {
	if after == nil || after.Plan == nil {
		return nil, false
	}
	if !before.known {
		return nil, true
	}
	named := map[string]bool{}
	for _, e := range events {
		switch e.Type {
		case EventSessionStarted, EventPlanApplied, EventPlanSelected, EventSessionActivated:
			return nil, true
		}
		named[e.Feature] = true
		for _, id := range e.FeatureIDs {
			named[id] = true
		}
	}
	if h := after.Execution.History; len(h) > 0 {
		for _, item := range before.history {
			if item.Seq < h[0].Seq {
				named[item.Feature] = true
			}
		}
	}
	delete(named, "")

	dependents := DependentsIndex(after.Plan)
	stateMayChange := map[string]bool{}
	for id := range named {
		stateMayChange[id] = true
		for _, d := range dependents[id] {
			stateMayChange[d] = true
		}
	}
	render := map[string]bool{}
	for id := range stateMayChange {
		render[id] = true
		for _, d := range dependents[id] {
			render[d] = true
		}
		if f := after.Plan.Feature(id); f != nil {
			for _, d := range edges(*f) {
				render[d] = true
			}
		}
	}
	if before.active != after.Execution.ActiveFeature || before.active != "" && before.next != NextCommand(after) {
		render[before.active] = true
		render[after.Execution.ActiveFeature] = true
	}
	for _, f := range after.Plan.Features { // plan order, for stable output
		if render[f.ID] && ValidFeatureID(f.ID) {
			ids = append(ids, f.ID)
		}
	}
	return ids, false
}

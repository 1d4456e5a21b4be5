package fleet

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/flowdeck/flowdeck/fleet/fleetconf"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/termtext"
)

// Gather opens the fleet, waits until every project has answered or failed
// once (each bounded by the call timeout) or ctx ends, closes it and
// returns the statuses.
func Gather(ctx context.Context, entries []Entry, opts Options) []Status {
	f := Open(entries, opts)
	defer f.Close()
	for {
		st := f.Statuses()
		waiting := false
		for _, s := range st {
			waiting = waiting || s.Reach == Connecting
		}
		if !waiting {
			return st
		}
		select {
		case <-f.Changed():
		case <-ctx.Done():
			return st
		}
	}
}

// Listing is `flowdeck fleet list`: its JSON (--json) is this object, its
// text Text.
type Listing struct {
	OK bool `json:"ok"`
	// Config is the fleet's config file.
	Config   string            `json:"config"`
	Projects []ListedProject   `json:"projects"`
	Offers   []fleetconf.Offer `json:"offers,omitempty"`
	now      time.Time
}

// ListedProject is one project of the listing: its entry, whether it
// answered, and its glance (sanitised and bounded).
type ListedProject struct {
	Name    string   `json:"name"`
	Dir     string   `json:"dir,omitempty"`
	Command []string `json:"command,omitempty"`
	Reach   Reach    `json:"reach"`
	Error   string   `json:"error,omitempty"`
	Version string   `json:"version,omitempty"`
	// Glance is what the project's flowdeck said; absent when it never
	// answered.
	Glance *ops.FleetGlance `json:"glance,omitempty"`
}

// List gathers the fleet's statuses (Gather) into a Listing, with the
// known projects that are not in the fleet.
func List(ctx context.Context, entries []Entry, offers []fleetconf.Offer, config string, opts Options) *Listing {
	opts = opts.withDefaults()
	l := &Listing{OK: true, Config: config, Offers: offers, now: opts.Now(), Projects: []ListedProject{}}
	for _, s := range Gather(ctx, entries, opts) {
		l.Projects = append(l.Projects, ListedProject{Name: s.Name, Dir: s.Dir, Command: s.Command, Reach: s.Reach,
			Error: s.Err, Version: s.Version, Glance: s.Glance})
	}
	return l
}

// Text writes the listing for people: per project a head line (name,
// where, reachability) and what its glance says, then the offers.
func (l *Listing) Text(w io.Writer) {
	if len(l.Projects) == 0 {
		fmt.Fprintf(w, "The fleet is empty (%s). Add a project:\n  flowdeck fleet add NAME DIR\n  flowdeck fleet add NAME -- ssh HOST flowdeck --dir DIR mcp\n", l.Config)
	}
	for i, p := range l.Projects {
		if i > 0 {
			fmt.Fprintln(w)
		}
		l.project(w, p)
	}
	if len(l.Offers) > 0 && len(l.Projects) > 0 {
		fmt.Fprintln(w)
	}
	for _, o := range l.Offers {
		// A directory's name may hold controls; its command shows them
		// escaped already (model.ShellQuote).
		fmt.Fprintf(w, "not in the fleet: %s %s — %s\n", o.Name, termtext.Line(o.Dir), o.Command)
	}
}

func (l *Listing) project(w io.Writer, p ListedProject) {
	where := p.Dir
	if len(p.Command) > 0 {
		where = strings.Join(p.Command, " ")
	}
	head := string(p.Reach)
	if p.Version != "" && p.Reach == Reachable {
		head += " (flowdeck " + p.Version + ")"
	}
	if p.Error != "" {
		head += ": " + p.Error
	}
	fmt.Fprintf(w, "%s  %s  %s\n", p.Name, line(where), head)
	g := p.Glance
	if g == nil {
		return
	}
	if p.Reach != Reachable {
		fmt.Fprintln(w, "  last known:")
	}
	if g.Goal != "" {
		fmt.Fprintf(w, "  goal      %s\n", g.Goal)
	}
	status := g.Status
	if g.Total > 0 {
		status += fmt.Sprintf(" · %d/%d features done", g.Done, g.Total)
	}
	if !g.LastActivity.IsZero() {
		status += " · last activity " + ago(l.now, g.LastActivity)
	}
	fmt.Fprintf(w, "  status    %s\n", status)
	for i, a := range g.Active {
		label := "active"
		if i > 0 {
			label = ""
		}
		who := a.State
		if a.Agent != "" {
			who = a.Agent + ", " + a.State
		}
		fmt.Fprintf(w, "  %-9s %s (%s)\n", label, a.Feature, who)
	}
	for i, wt := range g.Waits {
		label := "waits"
		if i > 0 {
			label = ""
		}
		fmt.Fprintf(w, "  %-9s %s\n", label, waitLine(wt, l.now))
	}
	if len(g.Waits) == 0 {
		fmt.Fprintf(w, "  waits     nothing\n")
	}
}

// waitLine is one wait: its label, the id an answer names, its options
// and reason, and how long it has waited.
func waitLine(wt ops.FleetWait, now time.Time) string {
	s := wt.Label
	switch {
	case wt.Decision != "":
		s += " [decision " + wt.Decision + "]"
	case wt.Feature != "":
		s += " [feature " + wt.Feature + "]"
	}
	if len(wt.Options) > 0 {
		ids := make([]string, len(wt.Options))
		for i, o := range wt.Options {
			ids[i] = o.ID
		}
		s += " options: " + strings.Join(ids, " | ")
	}
	if wt.Reason != "" {
		s += " — " + wt.Reason
	}
	if !wt.Since.IsZero() {
		s += " · " + ago(now, wt.Since)
	}
	return s
}

// ago is how long before now t was, coarsely: "40s ago", "5m ago", "3h
// ago", "2d ago".
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

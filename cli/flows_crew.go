package cli

import (
	"fmt"

	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
)

// runCrew is `flows run auto --parallel N`: the crew scheduler runs the
// run flow once per claimed feature, N at a time.
func (e *env) runCrew(args []string, vars map[string]any, parallel, maxSteps int, strict, noWait bool) error {
	if args[0] != "auto" || len(args) > 1 {
		return usageErr("--parallel runs the built-in auto flow only: flowdeck flows run auto --parallel %d", parallel)
	}
	for _, name := range flows.CrewVars {
		if _, ok := vars[name]; ok {
			return usageErr("--var %s: the crew scheduler sets %s for each of its runs", name, name)
		}
	}
	p, err := e.project()
	if err != nil {
		return err
	}
	f, source, err := flows.Load(p.Root(), "run")
	if err != nil {
		return usageErr("%v", err)
	}
	eng, err := e.engine(p, true)
	if err != nil {
		return err
	}
	eng.MaxSteps, eng.Strict = maxSteps, strict
	ctx, stop := flowsContext()
	defer stop()
	crew := &flows.Crew{Engine: eng, Flow: f, Source: source, Parallel: parallel, Vars: vars, Do: p.ActionPath(), NoWait: noWait}
	rep, err := crew.Run(ctx)
	if me, refused := model.AsError(err); refused {
		if e.json {
			e.writeJSON(map[string]any{"ok": false, "error": me})
		} else {
			printRefusal(e.stderr, me)
		}
		return silent(ExitRejected)
	}
	if err != nil && rep == nil {
		return e.fail(err)
	}
	if e.json {
		if werr := e.writeJSON(map[string]any{"ok": err == nil && rep.OK(), "crew": rep}); werr != nil {
			return werr
		}
	} else {
		for _, r := range rep.Runs {
			why := r.Error
			if r.Decision != "" {
				why = "waits for decision " + r.Decision
			}
			fmt.Fprintf(e.stdout, "%-10s %-20s %-12s %s %s\n", r.Agent, r.Feature, r.Status, r.Run, why)
		}
		fmt.Fprintf(e.stdout, "crew of %d: %s\n", rep.Slots, rep.Reason)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "flowdeck: stopped; run flowdeck flows run auto --parallel %d again to resume the unfinished runs\n", parallel)
		return silent(ExitRejected)
	}
	// The same exit codes as the sequential auto loop (see CrewReport.OK).
	if !rep.OK() {
		return silent(ExitRejected)
	}
	return nil
}

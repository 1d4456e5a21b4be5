package ui

import (
	"context"
	"fmt"
	"strconv"

	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"

	tea "charm.land/bubbletea/v2"
)

// crewSize reads /flow-auto's optional agent count: none is the sequential
// auto flow (1).
func crewSize(args []string) (int, error) {
	switch len(args) {
	case 0:
		return 1, nil
	case 1:
		if n, err := strconv.Atoi(args[0]); err == nil && n >= 1 && n <= model.MaxParallelLimit {
			return n, nil
		}
	}
	return 0, usageError("/flow-auto [AGENTS] takes the number of agents at once (1 = one after another), not a goal; /flow-plan GOAL plans a new session")
}

// startCrew runs the crew scheduler (`flows run auto --parallel n`) in an
// engine goroutine: up to n worker agents at once, each on its own run of
// the run flow, which the flow pane and the decisions show as they come.
func (m *Model) startCrew(n int) tea.Cmd {
	m.flowPin = ""
	ec := m.engineConfig()
	return m.flowJob(fmt.Sprintf("flow auto --parallel %d", n), func(ctx context.Context) (*model.FlowRun, error) {
		f, source, err := flows.Load(ec.root, "run")
		if err != nil {
			return nil, err
		}
		eng, err := ec.engine()
		if err != nil {
			return nil, err
		}
		// The cockpit's action path: a claim makes the feature's worktree.
		crew := &flows.Crew{Engine: eng, Flow: f, Source: source, Parallel: n, Do: ec.p.ActionPath()}
		rep, err := crew.Run(ctx)
		if err == nil && rep.Session != model.StatusCompleted {
			err = fmt.Errorf("the crew of %d stopped: %s", rep.Slots, rep.Reason)
		}
		return nil, err
	})
}

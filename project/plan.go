package project

import "github.com/flowdeck/flowdeck/model"

// withConfigDefaults gives a plan entering the session the config's
// [session] max_parallel when the plan sets none: the plan's own value
// wins. The value is then part of the stored plan_applied event, so a
// replay does not depend on the config of the day.
func (p *Project) withConfigDefaults(a model.Action) model.Action {
	apply, ok := a.(model.PlanApply)
	if !ok || apply.Plan.MaxParallel != 0 {
		return a
	}
	n := p.Config().Session.MaxParallel
	if n == 0 {
		return a
	}
	apply.Plan.MaxParallel = n
	return apply
}

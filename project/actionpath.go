package project

import "github.com/flowdeck/flowdeck/model"

// ActionPath is p's action path for a caller that acts as several actors
// (the crew scheduler claiming for each of its agents): p.As(actor).Do, so
// a claim makes the feature's worktree where the project uses them and is
// redacted as every action is. It returns the events stored, or the
// refusal as a *model.Error.
func (p *Project) ActionPath() func(a model.Action, actor string) ([]model.Event, error) {
	return func(a model.Action, actor string) ([]model.Event, error) {
		res, err := p.As(actor).Do(a, 0, false)
		if err != nil {
			return nil, err
		}
		if res.Error != nil {
			return res.Raw, res.Error
		}
		return res.Raw, nil
	}
}

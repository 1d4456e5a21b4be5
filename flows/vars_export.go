package flows

import "github.com/flowdeck/flowdeck/model"

// RunString is a string variable of run (VarAgent, VarFeature, …), trimmed,
// "" when unset or not a string: how the engine and the crew read them, for
// the cockpit to read them alike.
func RunString(run *model.FlowRun, name string) string { return runString(run, name) }

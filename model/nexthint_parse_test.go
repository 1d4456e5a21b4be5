package model_test

import (
	"slices"
	"strconv"
	"strings"

	"github.com/flowdeck/flowdeck/model"
)

// parseHint turns a hinted command — argv (without "flowdeck") when given,
// else the words of cmd — into the actions it names, one per alternative
// of an "a|b|c" value; read-only commands (status, history, help) name
// none. Placeholders get concrete values: FILE a valid plan, GOAL a goal,
// CMD a command, NAME an agent, "..." the missing dependencies. kind names
// the command for coverage counts; ok is false for what the grammar does
// not know.
func (h *hintWalk) parseHint(cmd string, argv []string) (acts []model.Action, kind string, ok bool) {
	if argv == nil {
		words, ok := shellWords(cmd)
		if !ok || len(words) < 2 || words[0] != "flowdeck" {
			return nil, "", false
		}
		argv = words[1:]
	}
	if argv[0] == "run" {
		a, ok := parseRunArgv(argv[1:])
		return []model.Action{a}, "run --feature", ok
	}
	if argv[0] == "help" {
		return nil, "help", true
	}
	if len(argv) > 2 && argv[0] == "flows" && argv[1] == "verify" {
		return h.parseVerify(argv[2:])
	}
	if argv[0] != "flow" || len(argv) < 2 {
		return nil, "", false
	}
	pos, flags, ok := splitFlags(argv[1:])
	if !ok {
		return nil, "", false
	}
	for _, alt := range expand(flags) {
		a, k, ok := h.flowAction(pos, alt)
		if !ok {
			return nil, "", false
		}
		kind = k
		if a != nil {
			acts = append(acts, a)
		}
	}
	return acts, kind, true
}

// flowAction maps "flowdeck flow POS... --FLAG VALUE..." to its action.
func (h *hintWalk) flowAction(pos []string, fl map[string]string) (model.Action, string, bool) {
	cmd := strings.Join(pos[:min(2, len(pos))], " ")
	arg := func(i int) string {
		if i < len(pos) {
			return pos[i]
		}
		return ""
	}
	switch {
	case cmd == "status" && len(pos) == 1, pos[0] == "history" && len(pos) <= 2:
		return nil, pos[0], true
	case cmd == "plan start" && len(pos) >= 3:
		goal := strings.Join(pos[2:], " ")
		if goal == "GOAL" {
			goal = "a new goal"
		}
		return model.PlanStart{ID: "hinted", Goal: goal}, cmd, true
	case cmd == "plan apply" && len(pos) == 3 && pos[2] == "FILE":
		return model.PlanApply{Plan: h.randomPlan()}, cmd, true
	case cmd == "plan approve" && len(pos) == 2:
		return model.PlanApprove{}, cmd, true
	case cmd == "plan select" && len(pos) >= 3:
		return model.PlanSelect{FeatureIDs: h.closure(pos[2:])}, cmd, true
	case cmd == "run start" && len(pos) <= 3:
		agent := fl["agent"]
		if agent == "NAME" {
			agent = "w9"
		}
		return model.RunStart{Feature: arg(2), Agent: agent}, cmd, true
	case cmd == "run complete" && len(pos) == 3 && fl["outcome"] != "":
		return model.RunComplete{Feature: pos[2], Outcome: model.Outcome(fl["outcome"]), Summary: fl["summary"]}, cmd, true
	case cmd == "run resume" && len(pos) == 3:
		return model.RunResume{Feature: pos[2]}, cmd, true
	case pos[0] == "validate" && len(pos) == 2:
		c := fl["command"]
		if c == "CMD" {
			c = "go test ./..."
		}
		return model.Validate{Feature: pos[1], Status: model.ValidationStatus(fl["status"]), Scope: model.Scope(fl["scope"]),
			Command: c, Source: model.SourceReported}, "validate", true
	case pos[0] == "review" && len(pos) == 1 && fl["final"] == "true":
		return model.ReviewFinal{Decision: model.ReviewDecision(fl["decision"])}, "review --final", true
	case pos[0] == "review" && len(pos) == 2:
		return model.ReviewFeature{Feature: pos[1], Decision: model.ReviewDecision(fl["decision"])}, "review", true
	case cmd == "reset feature" && len(pos) == 3:
		return model.ResetFeature{Feature: pos[2]}, cmd, true
	case cmd == "reset session" && len(pos) == 2:
		return model.ResetSession{}, cmd, true
	case cmd == "land" && len(pos) == 1:
		// What flow land records once git landed the integration branch.
		return model.Land{Branch: "main", Commit: "89abcdef0123456789abcdef0123456789abcdef"}, cmd, true
	}
	return nil, "", false
}

// parseVerify maps "flowdeck flows verify F [--scope S]" to the observed,
// passing evidence it records: one per command it runs.
func (h *hintWalk) parseVerify(args []string) ([]model.Action, string, bool) {
	pos, fl, ok := splitFlags(args)
	if !ok || len(pos) != 1 || h.s == nil || h.s.Plan == nil || h.s.Plan.Feature(pos[0]) == nil {
		return nil, "", false
	}
	scope := model.Scope(fl["scope"])
	if scope == "" {
		scope = model.ScopeTargeted
	}
	var acts []model.Action
	for _, c := range model.VerifyCommands(h.s.Plan, h.s.Plan.Feature(pos[0]), scope) {
		acts = append(acts, model.Validate{Feature: pos[0], Status: model.ValidationPassed, Scope: scope, Command: c, Source: model.SourceObserved})
	}
	return acts, "flows verify", len(acts) > 0
}

// parseRunArgv maps "flowdeck run --feature F [--scope S] -- CMD..." to the
// observed, passing evidence the run records.
func parseRunArgv(args []string) (model.Action, bool) {
	i := slices.Index(args, "--")
	if i < 0 || i == len(args)-1 {
		return nil, false
	}
	pos, fl, _ := splitFlags(args[:i])
	if len(pos) > 0 || fl["feature"] == "" {
		return nil, false
	}
	scope := model.Scope(fl["scope"])
	if scope == "" {
		scope = model.ScopeTargeted
	}
	words := args[i+1:]
	command := strings.Join(words, " ")
	if len(words) == 3 && words[0] == "sh" && words[1] == "-c" {
		command = words[2]
	}
	return model.Validate{Feature: fl["feature"], Status: model.ValidationPassed, Scope: scope,
		Command: command, Source: model.SourceObserved}, true
}

// splitFlags separates positional words from --flag VALUE pairs (--final
// takes no value).
func splitFlags(args []string) (pos []string, flags map[string]string, ok bool) {
	flags = map[string]string{}
	for i := 0; i < len(args); i++ {
		name, isFlag := strings.CutPrefix(args[i], "--")
		switch {
		case !isFlag:
			pos = append(pos, args[i])
		case name == "final":
			flags[name] = "true"
		case i+1 < len(args):
			flags[name] = args[i+1]
			i++
		default:
			return nil, nil, false
		}
	}
	return pos, flags, len(pos) > 0
}

// expand turns every "a|b|c" flag value into one flag set per alternative.
func expand(flags map[string]string) []map[string]string {
	out := []map[string]string{{}}
	for k, v := range flags {
		var next []map[string]string
		for _, alt := range strings.Split(v, "|") {
			for _, m := range out {
				c := map[string]string{k: alt}
				for k2, v2 := range m {
					c[k2] = v2
				}
				next = append(next, c)
			}
		}
		out = next
	}
	return out
}

// closure replaces a trailing "..." by what the named features depend on.
func (h *hintWalk) closure(ids []string) []string {
	if ids[len(ids)-1] != "..." || h.s == nil || h.s.Plan == nil {
		return ids
	}
	out := slices.Clone(ids[:len(ids)-1])
	for i := 0; i < len(out); i++ {
		if f := h.s.Plan.Feature(out[i]); f != nil {
			for _, d := range append(slices.Clone(f.DependsOn), f.BlockedBy...) {
				if !slices.Contains(out, d) {
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// shellWords splits a command as a POSIX shell would, for the quoting
// ShellQuote produces: bare words and single-quoted text (with an escaped quote as quote, backslash, quote, quote).
func shellWords(cmd string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '$' && i+1 < len(cmd) && cmd[i+1] == '\'':
			n, ok := ansiC(cmd[i+2:], &cur)
			if !ok {
				return nil, false
			}
			i += 1 + n
			inWord = true
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(cmd):
			i++
			cur.WriteByte(cmd[i])
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '$' || c == '"' || c == '`' || c == ';' || c == '&' || c == '|' && !inWord:
			return nil, false // not what ShellQuote writes for a flowdeck hint
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		return nil, false
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}

// ansiC decodes the body of a $'…' word (after the opening quote) into b,
// for the escapes ShellQuote writes; n counts the bytes up to and with the
// closing quote.
func ansiC(s string, b *strings.Builder) (n int, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\'' {
			return i + 1, true
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i++; i >= len(s) {
			return 0, false
		}
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'e':
			b.WriteByte(0x1b)
		case 'x', 'u':
			w := 2
			if s[i] == 'u' {
				w = 4
			}
			v, err := strconv.ParseUint(s[i+1:min(len(s), i+1+w)], 16, 32)
			if err != nil {
				return 0, false
			}
			if s[i] == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
			i += w
		default:
			b.WriteByte(s[i])
		}
	}
	return 0, false
}

package flowfile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/flows/cond"
	"github.com/flowdeck/flowdeck/internal/lazyre"
)

// config parses a step's {config} block; first is the file line of its
// first line.
func (p *parser) config(s *Step, text string, first int) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		p.yamlError(err, first)
		return
	}
	if len(doc.Content) == 0 {
		return
	}
	m := doc.Content[0]
	at := func(n *yaml.Node) int { return first + n.Line - 1 }
	if m.Kind != yaml.MappingNode {
		p.errorf(at(m), "a {config} block must be a mapping of keys")
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch k.Value {
		case "step":
			s.Name = strings.TrimSpace(p.str(v, first, "step"))
			if s.Name == "" {
				p.errorf(at(k), "step: the name is empty")
			}
		case "parse":
			p.parseVars(s, v, at)
		case "next":
			p.next(s, v, at)
		case "stop":
			switch {
			case v.Kind == yaml.ScalarNode && v.Tag == "!!str" && v.Value == "refused":
				s.Stop, s.Refused = true, true
			case v.Kind != yaml.ScalarNode || v.Tag != "!!bool":
				p.errorf(at(v), "stop must be true, false or refused, not %q", v.Value)
			default:
				s.Stop = v.Value == "true"
			}
		case "idempotent":
			s.Idempotent = p.boolean(v, at, "idempotent")
		case "agent":
			s.Agent = strings.TrimSpace(p.str(v, first, "agent"))
		case "decision":
			s.Decision = p.decision(v, at)
		case "set":
			if v.Kind != yaml.MappingNode {
				p.errorf(at(v), "set must map variable names to expressions")
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				name, ex := v.Content[j], v.Content[j+1]
				if !identRE().MatchString(name.Value) {
					p.errorf(at(name), "set: %q is not a variable name", name.Value)
				}
				if _, err := cond.Compile(ex.Value); err != nil {
					p.errorf(at(ex), "set %s: expression %q: %v", name.Value, ex.Value, err)
				}
				s.Set = append(s.Set, Assign{Name: name.Value, Expr: ex.Value, Line: at(name)})
			}
		case "on_error":
			s.OnError, s.OnErrorLine = strings.TrimSpace(p.str(v, first, "on_error")), at(v)
		case "timeout":
			s.Timeout = p.duration(v, at, "timeout")
		case "limits":
			p.limits(s, v, at)
		default:
			p.errorf(at(k), "unknown config key %q (known: step, parse, next, stop, agent, decision, set, timeout, limits, idempotent, on_error)", k.Value)
		}
	}
}

func (p *parser) boolean(v *yaml.Node, at func(*yaml.Node) int, key string) bool {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
		p.errorf(at(v), "%s must be true or false, not %q", key, v.Value)
		return false
	}
	return v.Value == "true"
}

func (p *parser) duration(v *yaml.Node, at func(*yaml.Node) int, key string) time.Duration {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!int" {
		n, _ := strconv.Atoi(v.Value)
		return time.Duration(n) * time.Second
	}
	d, err := time.ParseDuration(v.Value)
	if err != nil || d < 0 {
		p.errorf(at(v), "%s: %q is not a duration (like 90s or 10m)", key, v.Value)
	}
	return d
}

var enumRE = lazyre.New(`^enum\s*\((.*)\)$`)

// ParseType reads a parse type: string, number, bool, json, array or
// enum(a,b,c). A value that is not a single word (literate-commands lets a
// question stand there) is a string described by that text.
func ParseType(name, t string) (Var, error) {
	v := Var{Name: name}
	t = strings.TrimSpace(t)
	if m := enumRE().FindStringSubmatch(t); m != nil {
		for _, o := range strings.Split(m[1], ",") {
			if o = strings.Trim(strings.TrimSpace(o), `"'`); o != "" {
				v.Enum = append(v.Enum, o)
			}
		}
		if len(v.Enum) == 0 {
			return v, fmt.Errorf("enum() lists no values")
		}
		v.Type = "enum"
		return v, nil
	}
	switch strings.ToLower(t) {
	case "string", "str", "text", "":
		v.Type = "string"
	case "number", "int", "integer", "float":
		v.Type = "number"
	case "bool", "boolean":
		v.Type = "bool"
	case "json", "object", "any":
		v.Type = "json"
	case "array", "list":
		v.Type = "array"
	default:
		if identRE().MatchString(t) {
			return v, fmt.Errorf("unknown type %q (use string, number, bool, json, array or enum(a,b))", t)
		}
		v.Type, v.Description = "string", t
	}
	return v, nil
}

func (p *parser) parseVars(s *Step, v *yaml.Node, at func(*yaml.Node) int) {
	if v.Kind != yaml.MappingNode {
		p.errorf(at(v), "parse must map variable names to types")
		return
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		name, typ := v.Content[j], v.Content[j+1]
		if !identRE().MatchString(name.Value) {
			p.errorf(at(name), "parse: %q is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", name.Value)
			continue
		}
		if typ.Kind != yaml.ScalarNode {
			p.errorf(at(typ), "parse %s: the type must be a word like string or enum(a,b)", name.Value)
			continue
		}
		pv, err := ParseType(name.Value, typ.Value)
		if err != nil {
			p.errorf(at(typ), "parse %s: %v", name.Value, err)
			continue
		}
		s.Parse = append(s.Parse, pv)
	}
}

func (p *parser) next(s *Step, v *yaml.Node, at func(*yaml.Node) int) {
	switch v.Kind {
	case yaml.ScalarNode:
		s.Next = &Next{Target: strings.TrimSpace(v.Value), Routes: nil}
		s.Next.Routes = []Route{{Cond: "_", Target: s.Next.Target, Line: at(v)}}
	case yaml.MappingNode:
		s.Next = &Next{}
		for j := 0; j+1 < len(v.Content); j += 2 {
			c, t := v.Content[j], v.Content[j+1]
			r := Route{Cond: c.Value, Target: strings.TrimSpace(t.Value), Line: at(c)}
			if t.Kind != yaml.ScalarNode {
				p.errorf(at(t), "next: the target of %q must be a step name", c.Value)
				continue
			}
			if r.Cond != "_" {
				prog, err := cond.Compile(r.Cond)
				if err != nil {
					p.errorf(at(c), "next: condition %q: %v", r.Cond, err)
					continue
				}
				r.Program = prog
			}
			s.Next.Routes = append(s.Next.Routes, r)
		}
	default:
		p.errorf(at(v), "next must be a step name or a map of condition: step")
	}
}

func (p *parser) decision(v *yaml.Node, at func(*yaml.Node) int) *Decision {
	d := &Decision{Line: at(v)}
	if v.Kind == yaml.ScalarNode && v.Tag == "!!bool" {
		if v.Value != "true" {
			return nil
		}
		return d
	}
	if v.Kind == yaml.ScalarNode {
		d.Prompt = v.Value
		return d
	}
	if v.Kind != yaml.MappingNode {
		p.errorf(at(v), "decision must be a mapping {prompt, options, timeout, fallback}")
		return d
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, x := v.Content[j], v.Content[j+1]
		switch k.Value {
		case "prompt":
			d.Prompt = x.Value
		case "timeout":
			d.Timeout = p.duration(x, at, "decision timeout")
		case "fallback":
			d.Fallback = strings.TrimSpace(x.Value)
		case "options":
			if x.Kind != yaml.SequenceNode {
				p.errorf(at(x), "decision options must be a list")
				continue
			}
			for _, o := range x.Content {
				opt := p.option(o, at)
				if opt.ID == "" {
					p.errorf(at(o), "a decision option needs an id")
					continue
				}
				if slices.ContainsFunc(d.Options, func(prev Option) bool { return prev.ID == opt.ID }) {
					p.errorf(at(o), "duplicate decision option %q", opt.ID)
				}
				d.Options = append(d.Options, opt)
			}
		default:
			p.errorf(at(k), "unknown decision key %q (known: prompt, options, timeout, fallback)", k.Value)
		}
	}
	if d.Fallback != "" && len(d.Options) > 0 {
		if !slices.ContainsFunc(d.Options, func(o Option) bool { return o.ID == d.Fallback }) {
			p.errorf(d.Line, "decision fallback %q is not one of its options", d.Fallback)
		}
	}
	return d
}

// option reads one decision option: an id, or a mapping {id, description}.
func (p *parser) option(o *yaml.Node, at func(*yaml.Node) int) Option {
	var opt Option
	switch o.Kind {
	case yaml.ScalarNode:
		opt.ID = o.Value
	case yaml.MappingNode:
		for q := 0; q+1 < len(o.Content); q += 2 {
			k, v := o.Content[q], o.Content[q+1]
			switch k.Value {
			case "id":
				opt.ID = v.Value
			case "description":
				opt.Description = v.Value
			default:
				p.errorf(at(k), "unknown option key %q (known: id, description)", k.Value)
			}
		}
	}
	return opt
}

func (p *parser) limits(s *Step, v *yaml.Node, at func(*yaml.Node) int) {
	if v.Kind != yaml.MappingNode {
		p.errorf(at(v), "limits must be a mapping {memory, pids, cpu, network}")
		return
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, x := v.Content[j], v.Content[j+1]
		switch k.Value {
		case "memory":
			n, err := config.ParseBytes(x.Value)
			if err != nil {
				p.errorf(at(x), "limits memory %q: %v", x.Value, err)
			}
			s.Limits.MemoryBytes = n
		case "pids":
			n, err := strconv.Atoi(x.Value)
			if err != nil || n < 0 {
				p.errorf(at(x), "limits pids: %q is not a count", x.Value)
			}
			s.Limits.Pids = n
		case "cpu":
			f, err := strconv.ParseFloat(x.Value, 64)
			if err != nil || f < 0 {
				p.errorf(at(x), "limits cpu: %q is not a number of cores", x.Value)
			}
			s.Limits.CPU = f
		case "network":
			s.Limits.NoNetwork = !p.boolean(x, at, "limits network")
		default:
			p.errorf(at(k), "unknown limit %q (known: memory, pids, cpu, network)", k.Value)
		}
	}
}

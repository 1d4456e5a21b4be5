package flowfile

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowdeck/flowdeck/internal/lazyre"
)

func (p *parser) frontmatter(f *Flow, text string, first int) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		p.yamlError(err, first)
		return
	}
	literate := false
	if len(doc.Content) == 0 {
		p.errorf(first, "the frontmatter needs `literate: true`")
		return
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		p.errorf(first+m.Line-1, "the frontmatter must be a mapping of keys")
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		line := first + k.Line - 1
		switch k.Value {
		case "literate":
			literate = v.Kind == yaml.ScalarNode && v.Tag == "!!bool" && v.Value == "true"
		case "description":
			f.Description = p.str(v, first, "description")
		case "agent":
			f.Agent = p.str(v, first, "agent")
		case "args":
			switch v.Kind {
			case yaml.SequenceNode:
				for _, a := range v.Content {
					f.Args = append(f.Args, p.str(a, first, "args"))
				}
			case yaml.ScalarNode:
				f.Args = strings.Fields(v.Value)
			default:
				p.errorf(line, "args must be a list of names")
			}
			for _, a := range f.Args {
				if !identRE().MatchString(a) {
					p.errorf(line, "args: %q is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", a)
				}
			}
		case "max_steps":
			n, err := strconv.Atoi(v.Value)
			if err != nil || n <= 0 {
				p.errorf(line, "max_steps must be a positive number, not %q", v.Value)
			} else {
				f.MaxSteps = n
			}
		case "model", "subtask":
			// opencode command keys: meaningful to opencode, ignored here.
		default:
			p.errorf(line, "unknown frontmatter key %q (known: literate, description, agent, args, max_steps)", k.Value)
		}
	}
	if !literate {
		p.errorf(first, "the frontmatter needs `literate: true`")
	}
}

func (p *parser) str(v *yaml.Node, first int, key string) string {
	if v.Kind != yaml.ScalarNode {
		p.errorf(first+v.Line-1, "%s must be a string", key)
		return ""
	}
	return v.Value
}

var yamlLine = lazyre.New(`^yaml: line (\d+): (.*)$`)

func (p *parser) yamlError(err error, first int) {
	for _, msg := range strings.Split(err.Error(), "\n") {
		msg = strings.TrimSpace(strings.TrimPrefix(msg, "yaml: unmarshal errors:"))
		if msg == "" {
			continue
		}
		if m := yamlLine().FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			p.errorf(first+n-1, "bad YAML: %s", m[2])
			continue
		}
		p.errorf(first, "bad YAML: %s", strings.TrimPrefix(msg, "yaml: "))
	}
}

// fence is an open ``` or ~~~ block.
type fence struct {
	char  byte
	count int
	info  string
	line  int // 1-based line of the opening fence
	body  []string
}

func openFence(line string) *fence {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return nil
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return nil
	}
	info := strings.TrimSpace(t[n:])
	if t[0] == '`' && strings.Contains(info, "`") {
		return nil
	}
	return &fence{char: t[0], count: n, info: info}
}

func (fe *fence) closes(line string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	n := 0
	for n < len(t) && t[n] == fe.char {
		n++
	}
	return n >= fe.count && strings.TrimSpace(t[n:]) == ""
}

// body splits the lines after the frontmatter into steps.
func (p *parser) body(f *Flow, lines []string, from int) {
	start := from
	var open *fence
	for i := from; i <= len(lines); i++ {
		if i < len(lines) {
			l := lines[i]
			if open != nil {
				if open.closes(l) {
					open = nil
				}
				continue
			}
			if fe := openFence(l); fe != nil {
				open = fe
				continue
			}
			if !dashLine().MatchString(l) {
				continue
			}
		}
		if open != nil && i == len(lines) {
			p.errorf(open.line, "code block is not closed")
		}
		p.step(f, lines[start:i], start+1)
		start = i + 1
	}
}

var (
	configInfo = lazyre.New(`^(yaml|yml)\s*\{\s*config\s*\}$`)
	attrInfo   = lazyre.New(`^([^\s{]*)\s*\{(.*)\}$`)
	identRE    = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// step parses one section; first is the 1-based line of its first line.
func (p *parser) step(f *Flow, lines []string, first int) {
	blank := true
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			blank = false
			break
		}
	}
	if blank {
		return
	}
	s := &Step{Index: len(f.Steps), Line: first}
	for s.Line-first < len(lines) && strings.TrimSpace(lines[s.Line-first]) == "" {
		s.Line++
	}
	var text []string
	flushText := func() {
		if len(text) > 0 {
			s.Body = append(s.Body, Segment{Text: strings.Join(text, "\n")})
			text = nil
		}
	}
	config := false
	for i := 0; i < len(lines); i++ {
		fe := openFence(lines[i])
		if fe == nil {
			text = append(text, lines[i])
			continue
		}
		fe.line = first + i
		j := i + 1
		for j < len(lines) && !fe.closes(lines[j]) {
			j++
		}
		fe.body = lines[i+1 : min(j, len(lines))]
		switch {
		case configInfo().MatchString(fe.info):
			if config {
				p.errorf(fe.line, "a second {config} block in step %d (one per step)", s.Index+1)
			}
			config = true
			p.config(s, strings.Join(fe.body, "\n"), fe.line+1)
		case isExec(fe.info):
			flushText()
			if ex := p.exec(fe); ex != nil {
				ex.Index = len(s.Execs())
				s.Body = append(s.Body, Segment{Exec: ex})
			}
		default:
			text = append(text, lines[i:min(j+1, len(lines))]...)
		}
		i = j
	}
	flushText()
	if s.Name == "" {
		s.Name = fmt.Sprintf("step-%d", s.Index+1)
	}
	f.Steps = append(f.Steps, s)
}

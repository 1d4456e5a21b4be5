// Package cond evaluates the routing conditions of literate flows. The
// expression language is expr-lang/expr; the JavaScript forms that
// literate-commands files use (===, !==, &&, || and ! on any value,
// x.length, null, undefined, and the string and array methods includes,
// startsWith, endsWith, toLowerCase, toUpperCase, trim, indexOf, join) are
// translated so that those files work unchanged; any other method is a
// compile error, so `flows check` catches it. Variables that are not set are nil, as undefined is in
// JavaScript; anything that cannot be evaluated is an error, never a silent
// false.
package cond

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/vm"
)

// method is a JavaScript string or array method a condition may call.
type method struct {
	min, max int // arguments
	fn       func(recv any, args []any) (any, error)
}

var methods = map[string]method{
	"includes":    {1, 1, func(r any, a []any) (any, error) { return includes(r, a[0]) }},
	"startsWith":  {1, 1, stringMethod(func(s string, a []any) any { return strings.HasPrefix(s, text(a[0])) })},
	"endsWith":    {1, 1, stringMethod(func(s string, a []any) any { return strings.HasSuffix(s, text(a[0])) })},
	"toLowerCase": {0, 0, stringMethod(func(s string, _ []any) any { return strings.ToLower(s) })},
	"toUpperCase": {0, 0, stringMethod(func(s string, _ []any) any { return strings.ToUpper(s) })},
	"trim":        {0, 0, stringMethod(func(s string, _ []any) any { return strings.TrimSpace(s) })},
	"indexOf":     {1, 1, indexOf},
	"join":        {0, 1, join},
}

// methodNames lists the supported methods for error messages.
func methodNames() string {
	names := make([]string, 0, len(methods))
	for n := range methods {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Program is a compiled condition.
type Program struct {
	Source string
	prog   *vm.Program
	idents []string
}

// Compile translates and compiles a condition.
func Compile(src string) (*Program, error) {
	if strings.TrimSpace(src) == "" {
		return nil, fmt.Errorf("empty condition")
	}
	p := &Program{Source: src}
	pt := &patcher{}
	prog, err := expr.Compile(translate(src),
		expr.AllowUndefinedVariables(),
		expr.Patch(pt),
		expr.Function("__method", callMethod),
		expr.Function("__truthy", func(a ...any) (any, error) { return Truthy(a[0]), nil }),
		expr.Function("__length", length),
	)
	if pt.err != nil {
		return nil, pt.err
	}
	if err != nil {
		return nil, cleanErr(err)
	}
	p.prog = prog
	sort.Strings(pt.idents)
	p.idents = pt.idents
	return p, nil
}

// Identifiers are the variables the condition reads (top-level names).
func (p *Program) Identifiers() []string { return p.idents }

// Eval evaluates the condition against vars with JavaScript truthiness.
func (p *Program) Eval(vars map[string]any) (bool, error) {
	out, err := p.run(vars)
	if err != nil {
		return false, err
	}
	return Truthy(out), nil
}

// Value compiles and evaluates src to any value (for set: expressions).
func Value(src string, vars map[string]any) (any, error) {
	p, err := Compile(src)
	if err != nil {
		return nil, err
	}
	out, err := p.run(vars)
	if err != nil {
		return nil, err
	}
	return normalize(out), nil
}

// run evaluates the program on a copy of vars, so that nothing expr does to
// its environment reaches the caller's variables.
func (p *Program) run(vars map[string]any) (any, error) {
	env := make(map[string]any, len(vars))
	for k, v := range vars {
		env[k] = v
	}
	out, err := expr.Run(p.prog, env)
	if err != nil {
		return nil, cleanErr(err)
	}
	return out, nil
}

// normalize turns expr's ints into float64 so that values stay JSON-shaped.
func normalize(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
	}
	return v
}

func cleanErr(err error) error {
	msg := err.Error()
	// expr's messages carry a caret diagram over the translated source; the
	// first line is the useful part.
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return fmt.Errorf("%s", msg)
}

// translate rewrites === and !== outside string literals.
func translate(src string) string {
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			if j >= len(src) {
				j = len(src) - 1
			}
			b.WriteString(src[i : j+1])
			i = j
		case strings.HasPrefix(src[i:], "==="):
			b.WriteString("==")
			i += 2
		case strings.HasPrefix(src[i:], "!=="):
			b.WriteString("!=")
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// patcher rewrites JavaScript idioms in the parsed tree and records the
// variables read.
type patcher struct {
	idents []string
	err    error // the first method no JavaScript translation exists for
}

func (p *patcher) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IdentifierNode:
		switch n.Value {
		case "null", "undefined":
			ast.Patch(node, &ast.NilNode{})
			return
		}
		known := false
		for _, id := range p.idents {
			known = known || id == n.Value
		}
		if !known {
			p.idents = append(p.idents, n.Value)
		}
		if _, ok := builtin.Index[n.Value]; ok {
			// A variable named like a builtin (count, sum, all) is the
			// variable: builtins used as functions are parsed as calls.
			ast.Patch(node, &ast.MemberNode{Node: &ast.IdentifierNode{Value: "$env"}, Property: &ast.StringNode{Value: n.Value}})
		}
	case *ast.CallNode:
		if m, ok := n.Callee.(*ast.MemberNode); ok {
			p.method(node, n, m)
		}
		if id, ok := n.Callee.(*ast.IdentifierNode); ok {
			// expr's builtins parse as BuiltinNode: a plain call names a
			// function no condition can reach (variables hold JSON).
			p.fail(fmt.Errorf("function %s() cannot be evaluated (expr-lang's builtins such as len, upper, lower and trim can)", id.Value))
		}
	case *ast.MemberNode:
		if s, ok := n.Property.(*ast.StringNode); ok && s.Value == "length" && !n.Method {
			ast.Patch(node, &ast.CallNode{Callee: &ast.IdentifierNode{Value: "__length"}, Arguments: []ast.Node{n.Node}})
			return
		}
		// a.b.c on a missing a or b is undefined, not an error: flows route
		// on JSON that may lack a key.
		if !n.Method {
			ast.Patch(node, &ast.ChainNode{Node: &ast.MemberNode{Node: n.Node, Property: n.Property, Optional: true}})
		}
	case *ast.UnaryNode:
		if n.Operator == "!" || n.Operator == "not" {
			n.Node = truthy(n.Node)
		}
	case *ast.BinaryNode:
		switch n.Operator {
		case "&&", "||", "and", "or":
			n.Left, n.Right = truthy(n.Left), truthy(n.Right)
		}
	case *ast.ConditionalNode:
		n.Cond = truthy(n.Cond)
	}
}

// method rewrites x.name(args) into __method("name", x, args...), or
// records why it cannot: a condition that flows check passes must not fail
// at run time for want of a method.
func (p *patcher) method(node *ast.Node, call *ast.CallNode, m *ast.MemberNode) {
	s, ok := m.Property.(*ast.StringNode)
	if !ok {
		return
	}
	def, ok := methods[s.Value]
	switch {
	case !ok:
		p.fail(fmt.Errorf("method .%s() cannot be evaluated (supported: %s)", s.Value, methodNames()))
		return
	case len(call.Arguments) < def.min || len(call.Arguments) > def.max:
		p.fail(fmt.Errorf("method .%s() takes %s, got %d", s.Value, arity(def), len(call.Arguments)))
		return
	}
	args := append([]ast.Node{&ast.StringNode{Value: s.Value}, m.Node}, call.Arguments...)
	ast.Patch(node, &ast.CallNode{Callee: &ast.IdentifierNode{Value: "__method"}, Arguments: args})
}

func (p *patcher) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

func arity(m method) string {
	switch {
	case m.max == 0:
		return "no arguments"
	case m.min == m.max && m.min == 1:
		return "one argument"
	}
	return fmt.Sprintf("%d to %d arguments", m.min, m.max)
}

func callMethod(args ...any) (any, error) {
	name, _ := args[0].(string)
	def, ok := methods[name]
	if !ok || len(args) < 2 {
		return nil, fmt.Errorf("no method %q", name)
	}
	if args[1] == nil {
		return nil, fmt.Errorf("cannot call %s on an undefined value", name)
	}
	out, err := def.fn(args[1], args[2:])
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return out, nil
}

func stringMethod(f func(s string, args []any) any) func(any, []any) (any, error) {
	return func(recv any, args []any) (any, error) {
		s, ok := recv.(string)
		if !ok {
			return nil, fmt.Errorf("needs a string, not %s", typeName(recv))
		}
		return f(s, args), nil
	}
}

// text is a value as JavaScript turns it into a string argument.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "undefined"
	}
	if f, ok := num(v); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func typeName(v any) string {
	switch v.(type) {
	case float64, int, int64:
		return "a number"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

func indexOf(recv any, args []any) (any, error) {
	if s, ok := recv.(string); ok {
		i := strings.Index(s, text(args[0]))
		if i < 0 {
			return -1, nil
		}
		return utf8.RuneCountInString(s[:i]), nil
	}
	rv := reflect.ValueOf(recv)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		for i := range rv.Len() {
			if equal(rv.Index(i).Interface(), args[0]) {
				return i, nil
			}
		}
		return -1, nil
	}
	return nil, fmt.Errorf("needs a string or an array, not %s", typeName(recv))
}

func join(recv any, args []any) (any, error) {
	sep := ","
	if len(args) == 1 && args[0] != nil {
		sep = text(args[0])
	}
	rv := reflect.ValueOf(recv)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, fmt.Errorf("needs an array, not %s", typeName(recv))
	}
	parts := make([]string, rv.Len())
	for i := range parts {
		if e := rv.Index(i).Interface(); e != nil {
			parts[i] = text(e) // JavaScript joins null and undefined as ""
		}
	}
	return strings.Join(parts, sep), nil
}

func truthy(n ast.Node) ast.Node {
	if c, ok := n.(*ast.CallNode); ok {
		if id, ok := c.Callee.(*ast.IdentifierNode); ok && id.Value == "__truthy" {
			return n
		}
	}
	return &ast.CallNode{Callee: &ast.IdentifierNode{Value: "__truthy"}, Arguments: []ast.Node{n}}
}

// Truthy is JavaScript's truthiness: nil, false, 0, NaN and "" are false.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0 && !math.IsNaN(x)
	case float32:
		return x != 0
	case int:
		return x != 0
	case int64:
		return x != 0
	}
	return true
}

func includes(recv, v any) (any, error) {
	if s, ok := recv.(string); ok {
		return strings.Contains(s, text(v)), nil
	}
	i, err := indexOf(recv, []any{v})
	if err != nil {
		return nil, err
	}
	return i != -1, nil
}

func length(args ...any) (any, error) {
	switch x := args[0].(type) {
	case nil:
		return nil, fmt.Errorf("cannot read length of an undefined value")
	case string:
		return len([]rune(x)), nil
	}
	rv := reflect.ValueOf(args[0])
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return rv.Len(), nil
	}
	return nil, fmt.Errorf("%T has no length", args[0])
}

// equal compares like JavaScript's === for JSON values (numbers of any Go
// type compare by value).
func equal(a, b any) bool {
	fa, oka := num(a)
	fb, okb := num(b)
	if oka && okb {
		return fa == fb
	}
	return reflect.DeepEqual(a, b)
}

func num(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

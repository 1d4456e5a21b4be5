package termtext

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi/parser"
)

// vt drives x/ansi/parser's DEC transition table (the VT500 state machine)
// one byte at a time and reports what each byte completed. It does what
// x/ansi's Parser does for the parts this package reads, without pulling in
// x/ansi itself, whose dependencies cost every process that links it ~17 ms
// of init (go-runewidth's width tables): the lean CLI links this package.
//
// Memory is fixed: at most parser.MaxParamsSize parameters and visibleData
// bytes of a string's payload are kept.
type vt struct {
	st      parser.State
	cmd     int // final byte | prefix<<8 | intermediate<<16, as x/ansi packs it
	params  [parser.MaxParamsSize]int
	nparams int
	data    [visibleData]byte
	ndata   int
	utf     [utf8.UTFMax]byte
	nutf    int

	r rune // the rune of the last evPrint
	c byte // the control of the last evExecute
}

// event is what one byte completed.
type event uint8

const (
	evNone    event = iota
	evPrint         // a character: vt.r
	evExecute       // a control: vt.c
	evCSI           // vt.cmd, vt.csiParams()
	evESC           // vt.cmd
	evDCS
	evOSC // vt.Data() is the start of the payload
	evAPC
	evPM
	evSOS
)

// State is the parser's state.
func (p *vt) State() parser.State { return p.st }

// Data is the kept start of the current or last string's payload.
func (p *vt) Data() []byte { return p.data[:p.ndata] }

// Reset returns to the ground state, dropping any unfinished sequence.
func (p *vt) Reset() {
	p.clear()
	p.st = parser.GroundState
	p.nutf = 0
}

func (p *vt) clear() {
	p.params[0] = parser.MissingParam
	p.nparams = 0
	p.cmd = 0
}

// csiParams are the parameters of the last evCSI, packed as x/ansi packs
// them (parser.HasMoreFlag marks a sub-parameter follows).
func (p *vt) csiParams() []int { return p.params[:p.nparams] }

// Advance consumes one byte.
func (p *vt) Advance(b byte) event {
	if p.st == parser.Utf8State {
		return p.advanceUTF8(b)
	}
	next, action := parser.Table.Transition(p.st, b)
	if p.st != next {
		// Leaving Escape clears what a string sequence ended by ESC left
		// behind; DCS data that starts without a final byte starts here.
		if p.st == parser.EscapeState {
			p.clear()
		}
		if action == parser.PutAction && p.st == parser.DcsEntryState && next == parser.DcsStringState {
			p.perform(parser.StartAction, next, 0)
		}
	}
	var ev event
	if b == 0x1b && p.st == parser.EscapeState {
		p.cmd, p.c = int(b), b // ESC ESC: the first is executed
		ev = evExecute
	} else {
		ev = p.perform(action, next, b)
	}
	p.st = next
	return ev
}

// advanceUTF8 collects the bytes of a character whose lead byte moved the
// table to Utf8State. The caller decides what a byte that is not a
// continuation means; here it is taken as one, as x/ansi does.
func (p *vt) advanceUTF8(b byte) event {
	if p.nutf < len(p.utf) {
		p.utf[p.nutf] = b
		p.nutf++
	}
	if p.nutf < utf8LeadLen(p.utf[0]) {
		return evNone
	}
	p.r, _ = utf8.DecodeRune(p.utf[:p.nutf])
	p.st, p.nutf = parser.GroundState, 0
	return evPrint
}

// utf8LeadLen is the length a UTF-8 sequence starting with b claims; the
// table enters Utf8State only on 0xC2–0xF4.
func utf8LeadLen(b byte) int {
	switch {
	case b >= 0xf0:
		return 4
	case b >= 0xe0:
		return 3
	}
	return 2
}

// perform does one action of the table; p.st is still the state the byte
// arrived in.
func (p *vt) perform(action parser.Action, next parser.State, b byte) event {
	switch action {
	case parser.ClearAction:
		p.clear()
	case parser.PrintAction:
		p.cmd, p.r = int(b), rune(b)
		return evPrint
	case parser.ExecuteAction:
		p.cmd, p.c = int(b), b
		return evExecute
	case parser.PrefixAction: // only the last prefix is kept
		p.cmd = p.cmd&^(0xff<<parser.PrefixShift) | int(b)<<parser.PrefixShift
	case parser.CollectAction:
		if next == parser.Utf8State {
			p.utf[0], p.nutf = b, 1
		} else { // only the last intermediate is kept
			p.cmd = p.cmd&^(0xff<<parser.IntermedShift) | int(b)<<parser.IntermedShift
		}
	case parser.ParamAction:
		p.param(b)
	case parser.StartAction:
		p.ndata = 0
		if p.st >= parser.DcsEntryState && p.st <= parser.DcsStringState {
			p.cmd |= int(b)
		} else {
			p.cmd = parser.MissingCommand
		}
	case parser.PutAction:
		if p.ndata < len(p.data) {
			p.data[p.ndata] = b
			p.ndata++
		}
	case parser.DispatchAction:
		return p.dispatch(b)
	}
	return evNone
}

// param adds a digit or a separator to the parameters; ':' marks the next
// one a sub-parameter of this one. Parameters past the limit are dropped.
func (p *vt) param(b byte) {
	n := p.nparams
	if n >= len(p.params) {
		return
	}
	if b >= '0' && b <= '9' {
		if p.params[n] == parser.MissingParam {
			p.params[n] = 0
		}
		p.params[n] = p.params[n]*10 + int(b-'0')
	}
	if b == ':' {
		p.params[n] |= parser.HasMoreFlag
	}
	if b == ';' || b == ':' {
		p.nparams++
		if p.nparams < len(p.params) {
			p.params[p.nparams] = parser.MissingParam
		}
	}
}

// dispatch ends the sequence the state names. The parameter count follows
// x/ansi exactly, down to its last-slot rule, so SGR rewrites agree.
func (p *vt) dispatch(b byte) event {
	if p.nparams > 0 && p.nparams < len(p.params)-1 || p.nparams == 0 && p.params[0] != parser.MissingParam {
		p.nparams++
	}
	switch p.st {
	case parser.CsiEntryState, parser.CsiParamState, parser.CsiIntermediateState:
		p.cmd |= int(b)
		return evCSI
	case parser.EscapeState, parser.EscapeIntermediateState:
		p.cmd |= int(b)
		return evESC
	case parser.DcsEntryState, parser.DcsParamState, parser.DcsIntermediateState, parser.DcsStringState:
		return evDCS
	case parser.OscStringState:
		return evOSC
	case parser.SosStringState:
		return evSOS
	case parser.PmStringState:
		return evPM
	case parser.ApcStringState:
		return evAPC
	}
	return evNone
}

// Seq follows escape sequences byte by byte on the same driver, for a
// caller that only needs to know where each one ends (the output
// classifier's line splitter). Its zero value is in the ground state.
type Seq struct{ p vt }

// Advance consumes one byte.
func (s *Seq) Advance(b byte) { s.p.Advance(b) }

// State is the parser's state: parser.GroundState between sequences.
func (s *Seq) State() parser.State { return s.p.State() }

// Reset drops any unfinished sequence.
func (s *Seq) Reset() { s.p.Reset() }

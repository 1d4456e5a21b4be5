package ui

import (
	"reflect"

	"github.com/flowdeck/flowdeck/termtext"
)

// rawFields are strings the cockpit acts with, not only shows: ids it sends
// back, commands it runs, directories it runs them in. They keep their
// bytes; whatever of them is drawn still passes the frame's backstop
// (termtext.Frame in View).
var rawFields = map[string]bool{"ID": true, "Verification": true, "Argv": true, "Cwd": true, "Vars": true}

// cleanText makes every other string reachable from v (a pointer) safe to
// draw, in place: agents, flow files and commands wrote them (termtext).
// It runs where the cockpit loads its state, off the Update path, so each
// pane, prompt and notification draws text that is already clean.
func cleanText(v any) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		cleanValue(rv.Elem())
	}
}

func cleanValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			cleanValue(v.Elem())
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && !rawFields[f.Name] {
				cleanValue(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			cleanValue(v.Index(i))
		}
	case reflect.String:
		if s := v.String(); v.CanSet() && !termtext.Safe(s) {
			v.SetString(termtext.Visible(s)) // an attack shows as what it was
		}
	}
}

package model

import "fmt"

// ViaMax bounds a Via (Context.Via): where a call came from, shown beside
// the actor wherever the history is.
const ViaMax = 64

// CheckVia holds a call's origin to its rule: ASCII letters, digits and
// . _ - @ : only, at most ViaMax bytes ("" is none). It is shown on one line
// beside the actor in every history, so nothing in it can move a terminal
// or read as something else. field names the argument in the refusal.
func CheckVia(field, via string) error {
	if len(via) > ViaMax {
		return fmt.Errorf("%s %q is longer than %d characters", field, via[:ViaMax]+"…", ViaMax)
	}
	for _, r := range via {
		if !viaRune(r) {
			return fmt.Errorf("%s %q: %q is not allowed (letters, digits and . _ - @ : only), e.g. fleet@laptop", field, via, r)
		}
	}
	return nil
}

func viaRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	switch r {
	case '.', '_', '-', '@', ':':
		return true
	}
	return false
}

// ByText is who acted as a history says it: the actor, and where the call
// came from when it came from elsewhere ("human via fleet@laptop").
func ByText(actor, via string) string {
	if via == "" {
		return actor
	}
	return actor + " via " + via
}

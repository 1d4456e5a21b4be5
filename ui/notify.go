package ui

import "github.com/flowdeck/flowdeck/config"

// Notification is what tells the person that something waits, the way
// bell (the config's setting) says: BEL, or a desktop notification through
// the terminal (OSC 777, OSC 99, OSC 9) titled title, saying body; "" when
// the bell is off. The cockpit and the fleet view ring through it. title
// and body may be foreign text: they are cleaned here, so that they cannot
// end the OSC string or forge another sequence.
func Notification(bell, title, body string) string {
	switch bell {
	case config.BellOff:
		return ""
	case config.BellOSC777:
		return "\x1b]777;notify;" + oscSafe(title) + ";" + oscSafe(body) + "\x07"
	case config.BellOSC99:
		return "\x1b]99;;" + oscSafe(title+": "+body) + "\x1b\\"
	case config.BellOSC9:
		// The text starts with flowdeck's title and holds no ';' (oscSafe):
		// ConEmu and Windows Terminal read "9;4;…" as a progress report.
		return "\x1b]9;" + oscSafe(title+": "+body) + "\x07"
	}
	return "\a"
}

package cli

import "github.com/flowdeck/flowdeck/db"

// writeRaw appends raw output to a seeded run, as capture does.
func writeRaw(w *db.RunWriter, p []byte) error { return w.Append(p, nil, 0) }

// indexLine adds one line of text (no newline) to a seeded run's recall
// index, cut at db.MaxIndexLine as capture cuts it.
func indexLine(w *db.RunWriter, line string) {
	if len(line) > db.MaxIndexLine {
		line = line[:db.MaxIndexLine]
	}
	w.Append(nil, []byte(line+"\n"), 1)
}

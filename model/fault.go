package model

import "errors"

// Codes of faults: conditions of the project's files, not of the plan, that
// stop an operation before it changes anything. They exit with 3.
const (
	// CodePathEscapes: a path flowdeck would write, rename or delete leads
	// out of the project directory (a symlink, usually).
	CodePathEscapes = "path_escapes_project"
	// CodeDatabaseCorrupt: the database file is damaged, empty or not a
	// flowdeck database.
	CodeDatabaseCorrupt = "database_corrupt"
	// CodeDatabaseExists: import would overwrite an existing database.
	CodeDatabaseExists = "database_exists"
	// CodeNotRegularFile: a file the person named (export, import, plan
	// apply, patterns test) is a FIFO, socket, device, directory or, for a
	// file flowdeck would write, a symlink.
	CodeNotRegularFile = "not_regular_file"
	// CodeFileExists: export would overwrite an existing file (--force
	// replaces it).
	CodeFileExists = "file_exists"
)

// Fault is a refusal caused by the project's files. Path names the file or
// directory at fault, so a person knows where to look.
type Fault struct {
	Code    string `json:"code"`
	Path    string `json:"path"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
	Err     error  `json:"-"`
}

func (f *Fault) Error() string { return f.Code + ": " + f.Message }
func (f *Fault) Unwrap() error { return f.Err }

// AsFault returns the *Fault inside err, if any.
func AsFault(err error) (*Fault, bool) {
	var f *Fault
	ok := errors.As(err, &f)
	return f, ok
}

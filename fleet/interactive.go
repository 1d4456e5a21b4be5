package fleet

import (
	"path/filepath"
	"slices"
	"strings"
)

// Interactive is the transport's interactive form of a remote entry, which
// attaches the project's full cockpit: the trailing "mcp" dropped and a
// terminal asked for, as the transport spells it (ssh -t; kubectl, docker
// and podman exec -it). Other commands are given as they are without
// "mcp". Local entries: nil.
func Interactive(e Entry) []string {
	if !e.Remote() || len(e.Command) < 2 || e.Command[len(e.Command)-1] != "mcp" {
		return nil
	}
	argv := slices.Clone(e.Command[:len(e.Command)-1])
	switch filepath.Base(argv[0]) {
	case "ssh":
		if !slices.ContainsFunc(argv[1:], sshTTY) {
			argv = slices.Insert(argv, 1, "-t")
		}
	case "kubectl", "docker", "podman":
		execTTY(argv)
		if i := slices.Index(argv, "exec"); i > 0 && !hasTTY(argv[i+1:]) {
			argv = slices.Insert(argv, i+1, "-t")
		}
	}
	return argv
}

// sshTTY reports whether an ssh argument asks for a terminal already
// (-t, -tt, or -t among bundled flags such as -At).
func sshTTY(a string) bool {
	return strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], "t") &&
		strings.Trim(a[1:], "46AaCfGgKkMNnqsTtVvXxYy") == ""
}

// execTTY turns exec's -i (or --stdin) into -it (or adds --tty) in place,
// among the arguments up to "--".
func execTTY(argv []string) {
	i := slices.Index(argv, "exec")
	if i < 0 {
		return
	}
	for j := i + 1; j < len(argv) && argv[j] != "--"; j++ {
		switch argv[j] {
		case "-i":
			if !hasTTY(argv[i+1:]) {
				argv[j] = "-it"
			}
			return
		}
	}
}

// hasTTY reports whether exec's arguments (up to "--") ask for a terminal:
// -t, --tty, or -t bundled (-it, -ti).
func hasTTY(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--tty" || a == "--tty=true" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "t") && strings.Trim(a[1:], "it") == "" {
			return true
		}
	}
	return false
}

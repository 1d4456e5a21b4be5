package fleet

import "github.com/flowdeck/flowdeck/fleet/fleetconf"

// LoadConfig reads the fleet's projects from path (fleetconf.Load): a
// missing file is an empty fleet; bad TOML, an unknown key, a bad name,
// directory or command, or a duplicate is an error naming the file and
// line.
func LoadConfig(path string) ([]Entry, error) { return fleetconf.Load(path) }

// DefaultConfigPath is $XDG_CONFIG_HOME/flowdeck/fleet.toml, else
// ~/.config/flowdeck/fleet.toml.
func DefaultConfigPath() string { return fleetconf.DefaultPath() }

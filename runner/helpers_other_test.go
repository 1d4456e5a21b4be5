//go:build unix && !linux

package runner

func v2Writable() string { return "cgroups are Linux only" }

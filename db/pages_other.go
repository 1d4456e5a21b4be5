//go:build !linux

package db

// dropPages is Linux-only (see pages_linux.go).
func dropPages([]byte) {}

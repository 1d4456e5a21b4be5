//go:build unix && !linux

package isohelper

import "errors"

func loopbackUp() error { return errors.New("network namespaces are Linux only") }

func clearAmbient() error { return nil }

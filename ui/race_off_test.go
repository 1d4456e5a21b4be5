//go:build !race

package ui

const raceDetector = false

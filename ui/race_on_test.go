//go:build race

package ui

// raceDetector: the tests run under -race, whose shadow memory makes RSS
// measurements meaningless.
const raceDetector = true

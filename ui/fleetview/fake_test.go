package fleetview

// TEMPORARY: a stand-in for *fleet.Fleet until package fleet lands; the
// final tests run the real fleet.

import (
	"context"
	"sync"

	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/model"
)

type fakeFleet struct {
	mu       sync.Mutex
	statuses []fleet.Status
	items    []fleet.Item
	ch       chan struct{}
	reviews  []string
	refuse   *model.Error
	block    chan struct{}
}

func newFake() *fakeFleet { return &fakeFleet{ch: make(chan struct{}, 1)} }

func (f *fakeFleet) set(st []fleet.Status, it []fleet.Item) {
	f.mu.Lock()
	f.statuses, f.items = st, it
	f.mu.Unlock()
	select {
	case f.ch <- struct{}{}:
	default:
	}
}
func (f *fakeFleet) Statuses() []fleet.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fleet.Status(nil), f.statuses...)
}
func (f *fakeFleet) Queue() []fleet.Item {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fleet.Item(nil), f.items...)
}
func (f *fakeFleet) Changed() <-chan struct{} { return f.ch }
func (f *fakeFleet) Review(ctx context.Context, project, feature string, final bool, decision string, findings []string, expectSeq uint64) (*model.Error, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reviews = append(f.reviews, project+" "+feature+" "+decision)
	return f.refuse, nil
}
func (f *fakeFleet) Resolve(ctx context.Context, project, decisionID, option, note string) (*model.Error, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reviews = append(f.reviews, project+" "+decisionID+" "+option)
	return nil, nil
}
func (f *fakeFleet) Diff(ctx context.Context, project, feature string) (string, error) {
	return "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,3 @@\n package x\n+func A() {}\n \n", nil
}

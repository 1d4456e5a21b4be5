package output

import (
	"strconv"
	"testing"
)

// lineBlocks keeps lines in order across blocks while the front is cut.
func TestLineBlocks(t *testing.T) {
	var b lineBlocks
	next, first := 0, 0
	add := func(n int) {
		ls := make([]Line, n)
		for i := range ls {
			ls[i] = Line{Text: strconv.Itoa(next)}
			next++
		}
		b.Append(ls)
	}
	check := func() {
		t.Helper()
		if b.Len() != next-first {
			t.Fatalf("len %d, want %d", b.Len(), next-first)
		}
		for _, i := range []int{0, b.Len() / 2, b.Len() - 1} {
			if b.Len() > 0 && b.At(i).Text != strconv.Itoa(first+i) {
				t.Fatalf("line %d = %q, want %d", i, b.At(i).Text, first+i)
			}
		}
	}
	add(10)
	check()
	add(blockLines * 2)
	check()
	b.DropFront(5)
	first += 5
	check()
	b.DropFront(blockLines + 3) // crosses a block boundary
	first += blockLines + 3
	check()
	if len(b.blocks) != 2 || b.blocks[0][b.off-1].Text != "" {
		t.Fatalf("blocks = %d, off %d: dropped lines are still held", len(b.blocks), b.off)
	}
	add(blockLines*3 + 1)
	check()
	b.DropFront(b.Len())
	first = next
	check()
	add(1)
	check()
	b.Set([]Line{{Text: "x"}})
	if b.Len() != 1 || b.At(0).Text != "x" {
		t.Fatal("Set")
	}
}

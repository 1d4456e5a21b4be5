package output

// lineBlocks holds a run's lines in fixed blocks, so that appending a flood of
// output copies only the new lines and cutting the oldest off (to bound
// memory) frees whole blocks instead of copying everything that is kept.
// With one slice, a run printing 20 MB/s made Update copy 225,000 lines
// several times a second, and key presses waited behind it.
type lineBlocks struct {
	blocks [][]Line
	off    int // index in blocks[0] of the first line
	n      int
}

const blockLines = 4096

func (b *lineBlocks) Len() int { return b.n }

func (b *lineBlocks) At(i int) *Line {
	i += b.off
	return &b.blocks[i/blockLines][i%blockLines]
}

func (b *lineBlocks) Append(ls []Line) {
	for len(ls) > 0 {
		end := b.off + b.n // position after the last line
		if end == len(b.blocks)*blockLines {
			b.blocks = append(b.blocks, make([]Line, blockLines))
		}
		blk := b.blocks[end/blockLines]
		k := copy(blk[end%blockLines:], ls)
		b.n += k
		ls = ls[k:]
	}
}

// DropFront forgets the first k lines.
func (b *lineBlocks) DropFront(k int) {
	k = min(k, b.n)
	b.off += k
	b.n -= k
	full := b.off / blockLines
	for i := range full {
		b.blocks[i] = nil // let the strings go
	}
	b.blocks = b.blocks[full:]
	b.off -= full * blockLines
	// The block holding the new first line keeps the strings of the lines
	// before it until it is dropped too; clear them now.
	if len(b.blocks) > 0 {
		clear(b.blocks[0][:b.off])
	}
}

// Set replaces every line.
func (b *lineBlocks) Set(ls []Line) {
	*b = lineBlocks{}
	b.Append(ls)
}

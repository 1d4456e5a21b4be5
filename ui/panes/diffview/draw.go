package diffview

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/flowdeck/flowdeck/ui/layout"
)

// spaces pads rows; longer pads are written in pieces.
const spaces = "                                                                "

func pad(b *strings.Builder, n int) {
	for n > 0 {
		k := min(n, len(spaces))
		b.WriteString(spaces[:k])
		n -= k
	}
}

// View returns exactly h rows of exactly w cells: the file list or the
// diff, and (unless SetStatusLine(false)) a status line with the position
// and whether more is below. It highlights at most a frame's budget of new
// code; Pending tells whether it left some plain.
func (m *Model) View() []string {
	out := make([]string, 0, m.h)
	if m.h <= 0 {
		return out
	}
	bh := m.bodyH()
	switch {
	case len(m.d.Files) == 0:
		out = append(out, layout.Fit(m.th.Dim.Render(" no changes"), m.w))
	case m.mode == ModeList:
		out = m.listRows(out, bh)
	default:
		out = m.diffRows(out, bh, m.hl.budget())
	}
	blank := layout.Fit("", m.w)
	for len(out) < bh {
		out = append(out, blank)
	}
	if bh < m.h {
		out = append(out, m.statusLine())
	}
	return out
}

// listRows draws the totals and the files.
func (m *Model) listRows(out []string, bh int) []string {
	th, d := m.th, m.d
	files := " " + strconv.Itoa(len(d.Files)) + " files changed  "
	if len(d.Files) == 1 {
		files = " 1 file changed  "
	}
	out = append(out, layout.Fit(th.Bold.Render(files)+th.DiffAdd.Render("+"+strconv.Itoa(d.Added))+" "+th.DiffDel.Render("-"+strconv.Itoa(d.Removed)), m.w))
	if bh < 2 {
		return out
	}
	countW := m.countW + 2
	nameW := m.w - 3 - countW
	if nameW < 8 { // too narrow for counts: the path gets the row
		countW, nameW = 0, m.w-3
	}
	from, to := m.sel.Window()
	for i := from; i < to; i++ {
		f := &d.Files[i]
		name := layout.Fit(m.names[i], max(0, nameW))
		c := ""
		if countW > 0 {
			c = strings.Repeat(" ", countW-len(m.counts[i])) + m.counts[i]
		}
		if i == m.sel.Cursor {
			out = append(out, th.Selected.Render(layout.Fit(" "+f.Status.Letter()+" "+name+c, m.w)))
			continue
		}
		if countW > 0 {
			c = strings.Repeat(" ", countW-len(m.counts[i])) + m.paintCounts(f)
		}
		out = append(out, layout.Fit(" "+m.letter(f)+" "+name+c, m.w))
	}
	return out
}

func (m *Model) letter(f *File) string {
	st := m.th.Warn
	switch f.Status {
	case Added:
		st = m.th.DiffAdd
	case Deleted:
		st = m.th.DiffDel
	case Renamed, Copied:
		st = m.th.Accent
	}
	return st.Render(f.Status.Letter())
}

func (m *Model) paintCounts(f *File) string {
	if f.Binary {
		return m.th.Dim.Render("bin")
	}
	return m.th.DiffAdd.Render("+"+strconv.Itoa(f.Added)) + " " + m.th.DiffDel.Render("-"+strconv.Itoa(f.Removed))
}

// header is a file's row in the diff: status, path and counts on a bar.
func (m *Model) header(i int) string {
	f := &m.d.Files[i]
	return m.th.DiffFile.Render(layout.Fit(" "+f.Status.Letter()+" "+m.names[i]+"  "+m.counts[i], m.w))
}

// diffRows draws the visible rows of the diff.
func (m *Model) diffRows(out []string, bh int, bud *budget) []string {
	n, base := m.rows()
	end := min(n, m.top+bh)
	gw := 2*m.numW + 2
	if m.w < gw+1+16 { // too narrow for line numbers: the code gets the row
		gw = 0
	}
	var b strings.Builder
	fi := m.fileAt(base + m.top)
	for r := m.top; r < end; r++ {
		g := base + r
		for g >= m.starts[fi+1] {
			fi++
		}
		f := &m.d.Files[fi]
		k := g - m.starts[fi] - 1
		switch {
		case k < 0:
			out = append(out, m.header(fi))
		case len(f.Lines) == 0:
			out = append(out, layout.Fit(m.th.Dim.Render("   "+note(f)), m.w))
		default:
			b.Reset()
			m.drawLine(&b, fi, f.lo+k, gw, bud)
			out = append(out, b.String())
		}
	}
	return out
}

// note stands in for the lines of a file that has none.
func note(f *File) string {
	switch {
	case f.Binary:
		return "binary file, not shown"
	case f.Status == Renamed || f.Status == Copied:
		return "same content"
	case f.Status == Added:
		return "empty file"
	}
	return "mode change only"
}

// drawLine draws line i (of file fi) into b: gutter, mark and code, cut
// and padded to the width.
func (m *Model) drawLine(b *strings.Builder, fi, i, gw int, bud *budget) {
	th, l := m.th, m.d.lines[i]
	if m.w < 2 {
		b.WriteString(layout.Fit(" ", m.w))
		return
	}
	switch l.Kind {
	case Hunk:
		b.WriteString(th.DiffHunk.Render(layout.Fit(cleanPath(m.d.Text(l)), m.w)))
		return
	case NoNewline:
		pad(b, gw)
		b.WriteString(th.Dim.Render(layout.Fit(`\`+cleanPath(m.d.Text(l)), m.w-gw)))
		return
	}
	if gw > 0 {
		b.WriteString(th.DiffLineNo.Render(m.gutter(l)))
	}
	base := m.hl.tok[kindIndex(l.Kind)][plain]
	switch l.Kind {
	case Add:
		b.WriteString(th.DiffAdd.On(base).Render("+"))
	case Del:
		b.WriteString(th.DiffDel.On(base).Render("-"))
	default:
		b.WriteByte(' ')
	}
	cw := m.w - gw - 1
	if cw <= 0 {
		return
	}
	v := m.hl.line(m.d, fi, i, bud)
	if m.x == 0 && v.w <= cw {
		b.WriteString(v.s)
		b.WriteString(base.Render(padding(cw - v.w)))
		return
	}
	right := m.x + cw
	more := v.w > right
	if more {
		right-- // a cell for the mark that the line goes on
	}
	vis := ansi.Cut(v.s, m.x, right)
	vw := ansi.StringWidth(vis)
	if vw > right-m.x { // a wide character across the left edge
		vis = " " + ansi.Cut(v.s, m.x+1, right)
		vw = ansi.StringWidth(vis)
	}
	b.WriteString(vis)
	if more {
		b.WriteString(base.Render(padding(right - m.x - vw)))
		b.WriteString(th.Dim.On(base).Render("›"))
		return
	}
	b.WriteString(base.Render(padding(cw - vw)))
}

func padding(n int) string {
	if n <= len(spaces) {
		return spaces[:max(0, n)]
	}
	return strings.Repeat(" ", n)
}

// gutter is the old and new line numbers of a line, each right-aligned in
// numW cells; a side the line does not have is blank.
func (m *Model) gutter(l Line) string {
	var buf [32]byte
	var digits [12]byte
	g := buf[:0]
	num := func(n int32, show bool) {
		var s []byte
		if show && n > 0 {
			s = strconv.AppendInt(digits[:0], int64(n), 10)
		}
		for range m.numW - len(s) {
			g = append(g, ' ')
		}
		g = append(g, s...)
		g = append(g, ' ')
	}
	num(l.Old, l.Kind != Add)
	num(l.New, l.Kind != Del)
	return string(g)
}

// statusLine is the last row: where the view is and whether more is below.
func (m *Model) statusLine() string {
	th := m.th
	var left, pos string
	more := false
	switch {
	case len(m.d.Files) == 0:
		return layout.Fit("", m.w)
	case m.mode == ModeList:
		_, to := m.sel.Window()
		left = " " + m.names[m.sel.Cursor]
		pos = "file " + strconv.Itoa(m.sel.Cursor+1) + " of " + strconv.Itoa(len(m.d.Files))
		more = to < m.sel.N
	default:
		i := m.Selected()
		n, _ := m.rows()
		end := min(n, m.top+m.bodyH())
		left = " " + m.d.Files[i].Status.Letter() + " " + m.names[i]
		if m.mode == ModeAll {
			left += " (" + strconv.Itoa(i+1) + "/" + strconv.Itoa(len(m.d.Files)) + ")"
		}
		pos = "rows " + strconv.Itoa(min(m.top+1, end)) + "-" + strconv.Itoa(end) + "/" + strconv.Itoa(n)
		if m.x > 0 {
			pos = "col " + strconv.Itoa(m.x+1) + "  " + pos
		}
		more = end < n
	}
	mark := th.Dim.Render("  end ")
	if more {
		mark = th.Accent.Render("  ↓ more ")
	}
	right := th.Dim.Render("  "+pos) + mark
	rw := layout.Width(right)
	if rw >= m.w {
		return layout.Fit(right, m.w)
	}
	return th.Dim.Render(layout.Fit(left, m.w-rw)) + right
}

// Footer is the position for a frame's edge when the status line is off.
func (m *Model) Footer() string {
	if m.status || len(m.d.Files) == 0 {
		return ""
	}
	if m.mode == ModeList {
		return " " + strconv.Itoa(m.sel.Cursor+1) + "/" + strconv.Itoa(len(m.d.Files)) + " "
	}
	n, _ := m.rows()
	if n <= m.bodyH() {
		return ""
	}
	return " " + strconv.Itoa(100*min(n, m.top+m.bodyH())/n) + "% "
}

// eachCode calls fn with every code line on screen (file, line index).
func (m *Model) eachCode(fn func(fi, i int)) {
	if m.mode == ModeList || len(m.d.Files) == 0 {
		return
	}
	n, base := m.rows()
	end := min(n, m.top+m.bodyH())
	fi := m.fileAt(base + m.top)
	for r := m.top; r < end; r++ {
		g := base + r
		for g >= m.starts[fi+1] {
			fi++
		}
		f := &m.d.Files[fi]
		if k := g - m.starts[fi] - 1; k >= 0 && k < len(f.Lines) {
			if kind := f.Lines[k].Kind; kind == Context || kind == Add || kind == Del {
				fn(fi, f.lo+k)
			}
		}
	}
}

// Pending reports whether code on screen is still drawn plain, waiting
// for highlighting: the caller may schedule Highlight (a short tick) and
// redraw.
func (m *Model) Pending() bool {
	pending := false
	m.eachCode(func(_, i int) {
		if v, ok := m.hl.cache.get(i); !ok || !v.hl {
			pending = true
		}
	})
	return pending
}

// Highlight highlights another frame's budget of the code on screen that
// View left plain, and reports whether some is still plain.
func (m *Model) Highlight() bool {
	bud := m.hl.budget()
	m.eachCode(func(fi, i int) { m.hl.line(m.d, fi, i, bud) })
	return m.Pending()
}

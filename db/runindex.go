package db

import (
	"bytes"
	"encoding/binary"

	bolt "go.etcd.io/bbolt"
)

// Index chunk keys are the chunk's first line number (big-endian) and a kind
// byte. Each chunk is stored twice: as written, for display and scoring, and
// ASCII-lowercased, so that recall's prefilter can use bytes.IndexByte
// without lowercasing 50 MB per query. Both have the same byte offsets.
//
// A third record per chunk, the line table, holds for every line its end
// offset and a 64-bit mask of the characters it contains: recall rejects most
// lines by testing the mask, without touching their text.
const (
	indexFolded byte = 'f'
	indexLines  byte = 'l'
	indexText   byte = 't'

	lineEntry = 12 // uint64 mask + uint32 end offset, little-endian
)

// charBit maps a (lowercased) byte to its bit in a line mask: letters and
// digits get a bit each, other ASCII shares the rest, non-ASCII one bit.
func charBit(c byte) uint64 {
	switch {
	case 'a' <= c && c <= 'z':
		return 1 << (c - 'a')
	case '0' <= c && c <= '9':
		return 1 << (26 + c - '0')
	case c >= 0x80:
		return 1 << 63
	}
	return 1 << (36 + c%27)
}

func lineTable(chunk []byte) []byte {
	out := make([]byte, 0, bytes.Count(chunk, []byte{'\n'})*lineEntry)
	var mask uint64
	for i, c := range chunk {
		if c == '\n' {
			out = binary.LittleEndian.AppendUint64(out, mask)
			out = binary.LittleEndian.AppendUint32(out, uint32(i))
			mask = 0
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		mask |= charBit(c)
	}
	return out
}

func foldASCII(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// putIndexChunks splits text at line ends into chunks keyed by the number of
// their first line.
func putIndexChunks(b *bolt.Bucket, text []byte, first int64) error {
	for len(text) > 0 {
		n := len(text)
		if n > maxIndexChunk {
			n = bytes.LastIndexByte(text[:maxIndexChunk], '\n') + 1
			if n == 0 {
				n = bytes.IndexByte(text, '\n') + 1
			}
		}
		chunk := text[:n]
		key := u64(uint64(first))
		if err := b.Put(append(key, indexText), chunk); err != nil {
			return err
		}
		if err := b.Put(append(key, indexFolded), foldASCII(chunk)); err != nil {
			return err
		}
		if err := b.Put(append(key, indexLines), lineTable(chunk)); err != nil {
			return err
		}
		first += int64(bytes.Count(chunk, []byte{'\n'}))
		text = text[n:]
	}
	return nil
}

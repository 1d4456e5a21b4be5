package db

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
)

// Layout of a bbolt file that precheck reads (bbolt's format, version 2):
// a page starts with a 16-byte header (id u64, flags u16, count u16,
// overflow u32); a meta page's body follows it (magic, version, page size,
// flags, root bucket, freelist page id, high water mark, txid, checksum).
const (
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	pageHeader       = 16
	metaSumEnd       = pageHeader + 56 // the checksum covers the body before it
	freelistPageFlag = 0x10
	noFreelist       = ^uint64(0)
)

// precheckFreelist reads the freelist page of the meta page bbolt will use,
// with plain reads, before a writer's bolt.Open: bbolt loads it while
// opening and panics on a damaged one, and a panic there leaves the file
// mapped and flock'ed until the process exits, so every other opener would
// find the database busy instead of damaged. Nil when the file looks sound
// or is damaged in a way bbolt reports as an error itself.
func precheckFreelist(f *os.File, size int64) error {
	head := make([]byte, 4096)
	if _, err := f.ReadAt(head, 0); err != nil || binary.LittleEndian.Uint32(head[16:]) != boltMagic {
		return nil // bbolt says ErrInvalid
	}
	pageSize := int64(binary.LittleEndian.Uint32(head[24:]))
	if pageSize < 512 || pageSize > 1<<20 || 2*pageSize > size {
		return nil
	}
	meta := bestMeta(f, pageSize)
	if meta == nil {
		return nil // no valid meta page: bbolt says so
	}
	id := binary.LittleEndian.Uint64(meta[pageHeader+32:])
	if id == noFreelist {
		return nil
	}
	if id < 2 || id >= uint64(size/pageSize) {
		return fmt.Errorf("the freelist page %d lies outside the file", id)
	}
	hdr := make([]byte, pageHeader+8)
	if _, err := f.ReadAt(hdr, int64(id)*pageSize); err != nil {
		return fmt.Errorf("the freelist page %d cannot be read: %v", id, err)
	}
	if got := binary.LittleEndian.Uint64(hdr); got != id || binary.LittleEndian.Uint16(hdr[8:]) != freelistPageFlag {
		return fmt.Errorf("page %d, named as the freelist, is not one", id)
	}
	count, start := uint64(binary.LittleEndian.Uint16(hdr[10:])), uint64(pageHeader)
	if count == 0xFFFF {
		count, start = binary.LittleEndian.Uint64(hdr[pageHeader:]), pageHeader+8
	}
	span := (uint64(binary.LittleEndian.Uint32(hdr[12:])) + 1) * uint64(pageSize)
	if count > span/8 || start+count*8 > span || id*uint64(pageSize)+span > uint64(size) {
		return fmt.Errorf("the freelist page %d claims more than the file holds", id)
	}
	return nil
}

// bestMeta is the body of the meta page bbolt uses: the valid one with the
// higher transaction id.
func bestMeta(f *os.File, pageSize int64) []byte {
	var best []byte
	var bestTx uint64
	for i := range int64(2) {
		p := make([]byte, metaSumEnd+8)
		if _, err := f.ReadAt(p, i*pageSize); err != nil {
			continue
		}
		h := fnv.New64a()
		h.Write(p[pageHeader:metaSumEnd])
		if binary.LittleEndian.Uint32(p[16:]) != boltMagic || binary.LittleEndian.Uint32(p[20:]) != boltVersion ||
			binary.LittleEndian.Uint64(p[metaSumEnd:]) != h.Sum64() {
			continue
		}
		if tx := binary.LittleEndian.Uint64(p[pageHeader+48:]); best == nil || tx > bestTx {
			best, bestTx = p, tx
		}
	}
	return best
}

package db

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

// ExportFormat names the export's layout: a header line, then every event
// of every session, one JSON object per line, each session's in order.
const ExportFormat = "flowdeck-events/1"

// ExportHeader is the first line of an export.
type ExportHeader struct {
	Format   string   `json:"flowdeck_export"`
	Schema   int      `json:"schema"`
	Active   string   `json:"active,omitempty"`
	Sessions []string `json:"sessions"`
}

// Export writes every session's event log to w as JSONL: the recovery path
// for a damaged database (import replays it into a new one). Each session
// is read in its own transaction, so damage in one session's pages loses
// only the rest of that session's log: what was read before the damage is
// written, and the problem is reported.
func (s *Store) Export(w io.Writer) (*model.ExportReport, error) {
	var head ExportHeader
	err := s.view(func(tx *bolt.Tx) error {
		head = ExportHeader{Format: ExportFormat, Schema: schemaOf(tx), Active: string(tx.Bucket(bucketMeta).Get(keyActive))}
		return tx.Bucket(bucketEvents).ForEachBucket(func(k []byte) error {
			head.Sessions = append(head.Sessions, string(k))
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriter(w)
	line, _ := json.Marshal(head)
	bw.Write(append(line, '\n'))
	rep := &model.ExportReport{Problems: []string{}}
	for _, id := range head.Sessions {
		n, err := s.exportSession(bw, id)
		rep.Events += n
		rep.Sessions++
		if err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("session %s: exported %d events, then: %v", id, n, err))
		}
	}
	if err := bw.Flush(); err != nil {
		return rep, fmt.Errorf("write export: %w", err)
	}
	return rep, nil
}

// exportSession writes one session's events, stopping at the first that is
// not a JSON object.
func (s *Store) exportSession(w io.Writer, id string) (int, error) {
	n := 0
	err := s.view(func(tx *bolt.Tx) error {
		log := tx.Bucket(bucketEvents).Bucket([]byte(id))
		if log == nil {
			return fmt.Errorf("no event log")
		}
		return log.ForEach(func(k, v []byte) error {
			var line bytes.Buffer // one line, whatever the stored bytes hold
			if err := json.Compact(&line, v); err != nil {
				return fmt.Errorf("event %d is not valid JSON: %w", getU64(k), err)
			}
			line.WriteByte('\n')
			if _, err := w.Write(line.Bytes()); err != nil {
				return err
			}
			n++
			return nil
		})
	})
	return n, err
}

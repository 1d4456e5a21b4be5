package digest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/internal/rootdir"
)

// SchemaVersion must equal db.SchemaVersion: a digest in a database of
// another layout is not read. db imports this package, so it cannot be
// db's own constant; TestDigestReadsThisSchema in db holds the two equal,
// and the lean binary's parity tests read real databases.
const SchemaVersion = 1

// ErrUnavailable is anything that keeps Read from answering on its own: no
// database, a writer holding the lock, a read-only project, damage, an old
// database without a digest. The full code handles each of these and says
// what is wrong; Read never has to.
var ErrUnavailable = errors.New("digest: not available")

// Read returns the digest stored in the database of the project at root,
// when it shows the database's current state (its counter is the
// database's). It takes the same shared lock as every reader (the side file that db
// uses) without waiting, opens the file read-only through an os.Root on
// the project (a symlink out of it is refused, as db refuses it), and
// reads one key.
func Read(root string) (d Digest, err error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return Digest{}, unavailable(err)
	}
	defer r.Close()
	rel := filepath.FromSlash(rootdir.DBFile)
	if fi, err := r.Lstat(rel); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return Digest{}, unavailable(err)
	}
	// The lock file exists once anything has opened the database; a reader
	// that would have to create it (or cannot open it: a read-only
	// project) leaves the case to db.
	lock, err := r.OpenFile(rel+".lock", os.O_RDWR, 0)
	if err != nil {
		return Digest{}, unavailable(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return Digest{}, unavailable(err) // a writer is at work: db waits for it
	}
	// bbolt panics or faults on some damaged files; any of that is db's to
	// report.
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if p := recover(); p != nil {
			d, err = Digest{}, unavailable(fmt.Errorf("bbolt: %v", p))
		}
	}()
	b, err := bolt.Open(filepath.Join(root, rel), 0, &bolt.Options{
		ReadOnly: true,
		Timeout:  100 * time.Millisecond,
		OpenFile: func(_ string, flag int, mode os.FileMode) (*os.File, error) {
			return r.OpenFile(rel, flag&^os.O_CREATE, mode)
		},
	})
	if err != nil {
		return Digest{}, unavailable(err)
	}
	defer b.Close()
	var raw []byte
	var changes uint64
	err = b.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(Bucket)
		if meta == nil {
			return fs.ErrNotExist
		}
		if v, _ := strconv.Atoi(string(meta.Get([]byte("schema")))); v != SchemaVersion {
			return fmt.Errorf("schema %d", v)
		}
		if c := meta.Get(CounterKey); len(c) == 8 {
			changes = binary.BigEndian.Uint64(c)
		}
		raw = append([]byte(nil), meta.Get(Key)...) // valid only inside the transaction
		return nil
	})
	if err != nil || raw == nil {
		return Digest{}, unavailable(err)
	}
	d, err = Decode(raw)
	if err != nil {
		return Digest{}, unavailable(err)
	}
	// A write that did not render the digest moved the counter past it:
	// the state it shows is gone.
	if d.Changes != changes {
		return Digest{}, unavailable(fmt.Errorf("digest of change %d, database at change %d", d.Changes, changes))
	}
	return d, nil
}

func unavailable(cause error) error {
	if cause == nil {
		return ErrUnavailable
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, cause)
}

package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/flowdeck/flowdeck/model"
)

// Limits on one inbound message, enforced before the SDK sees it: the SDK's
// stdio transport ends the session on the first frame it cannot decode, so
// every malformed line is answered here with a JSON-RPC error instead.
const (
	// MaxLineBytes is the longest message accepted (a plan is at most 10 MB).
	MaxLineBytes = 16 << 20
	// MaxDepth is the deepest nesting of objects and arrays accepted; real
	// messages nest fewer than ten levels.
	MaxDepth = 64
)

// frameFilter reads newline-delimited JSON-RPC from in and passes each
// well-formed message on, one per line, to the reader it returns (the SDK's
// transport); a malformed line is answered on out and dropped, and reading
// goes on. The returned reader ends when in does.
func frameFilter(in io.Reader, out *lockedWriter, maxLine, maxDepth int) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, tooLong, err := readLine(br, maxLine)
			if reply, pass := checkFrame(line, tooLong, maxLine, maxDepth); reply != nil {
				if _, werr := out.Write(reply); werr != nil {
					pw.CloseWithError(werr)
					return
				}
			} else if pass {
				if _, werr := pw.Write(append(line, '\n')); werr != nil {
					return // the server stopped reading
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// prefixKeep is how much of an over-long line is kept, to find its id.
const prefixKeep = 4 << 10

// readLine reads one line without its newline. A line longer than max is
// read to its end but not kept: tooLong is set and line holds its first
// prefixKeep bytes.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		chunk = bytes.TrimSuffix(chunk, []byte("\n"))
		switch {
		case tooLong:
		case len(line)+len(chunk) > max:
			tooLong = true
			if keep := prefixKeep - len(line); keep > 0 {
				line = append(line, chunk[:min(keep, len(chunk))]...)
			}
		default:
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// checkFrame decides about one line: a JSON-RPC error reply to send, or
// pass (a message for the server); a blank line is neither.
func checkFrame(line []byte, tooLong bool, maxLine, maxDepth int) (reply []byte, pass bool) {
	line = bytes.TrimSpace(line)
	if tooLong {
		return errorReply(scanID(line), jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("message too long: the limit is %d bytes (one message per line)", maxLine)), false
	}
	if len(line) == 0 {
		return nil, false
	}
	if model.NestingBeyond(line, maxDepth) >= 0 {
		return errorReply(scanID(line), jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("message nests more than %d levels deep: the limit is %d", maxDepth, maxDepth)), false
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			msg := "a message must be a JSON object"
			if line[0] == '[' {
				msg = "batches are not supported: send one JSON-RPC message per line"
			}
			return errorReply(nil, jsonrpc.CodeInvalidRequest, msg), false
		}
		return errorReply(nil, jsonrpc.CodeParseError, "parse error: "+err.Error()), false
	}
	id, problem := validMessage(fields)
	if problem == "" {
		if _, err := jsonrpc.DecodeMessage(line); err != nil {
			problem = err.Error() // the SDK's own decoder must accept it too
		}
	}
	if problem != "" {
		return errorReply(id, jsonrpc.CodeInvalidRequest, "invalid request: "+problem), false
	}
	return nil, true
}

// validMessage checks a JSON-RPC 2.0 request, notification or response; it
// returns the message's id when it is usable in a reply.
func validMessage(f map[string]json.RawMessage) (id json.RawMessage, problem string) {
	if raw, ok := f["id"]; ok {
		switch kind(raw) {
		case '"', '0':
			id = replyID(raw)
		case 'n':
		default:
			return nil, "id must be a string or a number"
		}
	}
	var version string
	if json.Unmarshal(f["jsonrpc"], &version) != nil || version != "2.0" {
		return id, `jsonrpc must be "2.0"`
	}
	if raw, ok := f["method"]; ok {
		if kind(raw) != '"' {
			return id, "method must be a string"
		}
		if p, ok := f["params"]; ok && kind(p) != '{' && kind(p) != '[' {
			return id, "params must be an object"
		}
		return id, ""
	}
	_, hasResult := f["result"]
	errRaw, hasError := f["error"]
	switch {
	case id == nil:
		return nil, "a message needs a method, or an id with a result or an error"
	case !hasResult && !hasError:
		return id, "a response needs a result or an error"
	case hasError && kind(errRaw) != '{' && kind(errRaw) != 'n':
		return id, "error must be an object"
	}
	return id, ""
}

// replyID is an id that can be echoed in a reply: a string, or a number
// that a client can read back (not 1e400).
func replyID(raw json.RawMessage) json.RawMessage {
	var f float64
	if kind(raw) == '0' && json.Unmarshal(raw, &f) != nil {
		return nil
	}
	return raw
}

// kind is the JSON type of a raw value by its first byte: '"', '0' (any
// number), '{', '[', 't'/'f', 'n'.
func kind(raw json.RawMessage) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	switch c := raw[0]; {
	case c == '-' || c >= '0' && c <= '9':
		return '0'
	default:
		return c
	}
}

// scanID finds the top-level "id" of a message that could not be decoded
// whole (too long, too deep), so that the client's call still gets its
// answer; nil when it cannot be told.
func scanID(data []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key == "id" {
			var v json.RawMessage
			if dec.Decode(&v) != nil || (kind(v) != '"' && kind(v) != '0') {
				return nil
			}
			return replyID(v)
		}
		if _, ok := key.(string); !ok {
			return nil
		}
		if skipValue(dec) != nil {
			return nil
		}
	}
}

// skipValue reads past one value with tokens, so that a deep value is never
// decoded whole.
func skipValue(dec *json.Decoder) error {
	level := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			level++
		case json.Delim('}'), json.Delim(']'):
			level--
		}
		if level == 0 {
			return nil
		}
	}
}

// errorReply is a JSON-RPC error response line; a nil id is sent as null.
func errorReply(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: message}})
	return append(b, '\n')
}

// lockedWriter serialises whole messages from the SDK and from the frame
// filter onto one stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lockedWriter) Close() error { return nil }

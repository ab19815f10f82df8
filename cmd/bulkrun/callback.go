package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/budget"
	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// keyEnv is the environment variable that holds the QR eKYC callback key.
// It is never a flag: a flag would show in ps.
const keyEnv = "SVC_ENCRYPTION_KEY"

// The budgets of callback decode's input: the longest value it reads (an
// eKYC payload with a photo is tens of kilobytes), and the most input.
const (
	maxCallbackLine  = 16 << 20
	maxCallbackInput = 1 << 30
)

var callbackHelp = cli.Help{Synopsis: "bulkrun callback decode [--mask] [FILE|-]", Examples: `  # try it with the sandbox's values and key (no account needed)
  eval "$(go run ./cmd/svcsandbox callback --out values.txt)"
  bulkrun callback decode values.txt

  # values exported from the web tier, one per line, Aadhaar numbers masked
  SVC_ENCRYPTION_KEY=$(cat /etc/svcrecon/callback.key) bulkrun callback decode --mask callbacks.txt > kyc.jsonl

  # from a pipe
  grep -o 'data=[^& ]*' access.log | cut -d= -f2 | bulkrun callback decode - | jq .payload.name

The key comes from SVC_ENCRYPTION_KEY only: 64 hex digits, base64 of 32 bytes
(standard or URL alphabet, padded or not) or 32 raw bytes, told apart by length.
Output: one JSON object per value, {"line":N,"payload":{...}}; a payload that
is not JSON is {"line":N,"payload":"<base64>","binary":true}. The payload is
identity data: it goes to stdout only, never to a log.
Budgets: a line longer than 16 MiB, or more than 1 GiB of input, stops the
decoding there (exit 1); a file larger than 1 GiB is refused (exit 2).
Exit status: 0 every value decoded; 1 some lines failed (each named on stderr,
the others decoded); 2 bad flags, key or input file, nothing read.`}

// callbackCmd is "bulkrun callback decode [FILE|-]": it decrypts QR eKYC
// callback values (spec Part 6), one per line.
type callbackCmd struct {
	mask   bool
	common cli.Common
}

func (c *callbackCmd) Flags(fs *flag.FlagSet) {
	fs.BoolVar(&c.mask, "mask", false, "mask Aadhaar-like numbers (12 digits) in the payload to their last four")
	fs.StringVar(&c.common.LogFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&c.common.LogLevel, "log-level", "info", "log level: debug, info, warn, error (no level logs a key or a payload)")
}

func (c *callbackCmd) Run(ctx context.Context, call *cli.Call) (string, error) {
	pos := call.Args
	switch {
	case len(pos) == 0 || !strings.EqualFold(pos[0], "decode"):
		return "", cli.Usagef("callback: type bulkrun callback decode [FILE|-] (see bulkrun callback -h)")
	case len(pos) > 2:
		return "", cli.Usagef("callback decode reads one FILE, or - for stdin (see bulkrun callback -h)")
	}
	log, err := c.common.Logger(ctx, call.Stderr)
	if err != nil {
		return "", err
	}
	key, err := encryptionKey(os.Getenv(keyEnv))
	if err != nil {
		return "", &cli.ExitError{Code: cli.ExitUsage, Err: err}
	}
	name, in := "stdin", call.Stdin
	if len(pos) == 2 && pos[1] != "-" {
		f, err := openCallbacks(ctx, pos[1])
		if err != nil {
			return "", &cli.ExitError{Code: cli.ExitUsage, Err: err}
		}
		defer f.Close()
		name, in = pos[1], f
	}
	// A read of standard input or a FIFO blocks in the kernel: it ends
	// with ctx (SIGTERM) all the same.
	in = budget.Reader(ctx, in)
	return "", decodeCallbacks(ctx, log, in, name, key, c.mask, call.Stdout, c.common.Lines(ctx, call.Stderr, log, slog.LevelWarn))
}

// openCallbacks opens callback decode's input file: a regular file larger
// than its budget is refused before it is read; a FIFO is opened when its
// writer comes, or not at all when ctx ends first.
func openCallbacks(ctx context.Context, path string) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() > maxCallbackInput {
		return nil, &budget.Error{Input: path, Reason: fmt.Sprintf("%s: more than the %s callback decode reads: split it",
			budget.Size(st.Size()), budget.Size(maxCallbackInput))}
	}
	return budget.Open(ctx, path)
}

// encryptionKey reads the 32-byte key from the variable's value, told apart
// by length: 64 hex digits, 43 or 44 characters of base64 (standard or URL
// alphabet, padded or not), or 32 raw bytes. Its errors never hold the
// value.
func encryptionKey(v string) ([]byte, error) {
	const forms = "64 hex digits, base64 of 32 bytes (standard or URL alphabet, padded or not) or 32 raw bytes"
	if v == "" {
		return nil, &svcapi.ConfigError{Setting: keyEnv, Reason: "not set: the QR eKYC callback key, as " + forms}
	}
	switch t := strings.TrimSpace(v); len(t) {
	case 64:
		if b, err := hex.DecodeString(t); err == nil {
			return b, nil
		}
		return nil, &svcapi.ConfigError{Setting: keyEnv, Reason: "64 characters but not hex digits: give " + forms}
	case 43, 44:
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(t); err == nil && len(b) == 32 {
				return b, nil
			}
		}
		return nil, &svcapi.ConfigError{Setting: keyEnv, Reason: strconv.Itoa(len(t)) + " characters but not base64 of 32 bytes: give " + forms}
	}
	if len(v) == 32 {
		return []byte(v), nil
	}
	return nil, &svcapi.ConfigError{Setting: keyEnv, Reason: fmt.Sprintf("%d characters is no form of a 32-byte key: give %s", len(v), forms)}
}

// decodeCallbacks decodes every non-blank line of in and writes one JSON
// object per value to stdout. A bad line is one line on stderr, and the
// rest are still decoded; the error then says how many failed (exit 1).
func decodeCallbacks(ctx context.Context, log *slog.Logger, in io.Reader, name string, key []byte, mask bool, stdout, stderr io.Writer) error {
	log.Debug("decoding callback values", "input", name, "mask", mask)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), maxCallbackLine)
	n, values, failed := 0, 0, 0
	var read int64
	for sc.Scan() {
		n++
		if err := ctx.Err(); err != nil {
			return err
		}
		if read += int64(len(sc.Bytes())) + 1; read > maxCallbackInput {
			return fmt.Errorf("%s: line %d: more than %s read: more than callback decode reads (the values before were decoded)",
				name, n, budget.Size(maxCallbackInput))
		}
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		values++
		plain, err := svcapi.DecodeCallback(line, key)
		if err != nil {
			failed++
			fmt.Fprintf(stderr, "%s: line %d: %s\n", name, n, callbackReason(err))
			continue
		}
		if mask {
			plain = svcapi.MaskCallback(plain)
		}
		out, isJSON := callbackLine(n, plain)
		if _, err := stdout.Write(out); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		log.Debug("callback value decoded", "input", name, "line", n, "bytes", len(plain), "json", isJSON)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("line %d: longer than %s", n+1, budget.Size(maxCallbackLine))
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	log.Debug("callback values done", "input", name, "values", values, "failed", failed)
	if failed > 0 {
		return fmt.Errorf("%s: %d of %d callback values could not be decoded", name, failed, values)
	}
	return nil
}

// callbackLine is the output line of one decoded value: the payload itself
// when it is JSON (in UTF-8), else its base64 with "binary":true.
func callbackLine(n int, plain []byte) ([]byte, bool) {
	b := append([]byte(`{"line":`), strconv.Itoa(n)...)
	b = append(b, `,"payload":`...)
	var compact bytes.Buffer
	if utf8.Valid(plain) && json.Compact(&compact, plain) == nil {
		return append(append(b, compact.Bytes()...), "}\n"...), true
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, plain)
	return append(b, `","binary":true}`+"\n"...), false
}

// callbackReason says in words why a value did not decode. It holds
// neither the value nor the key.
func callbackReason(err error) string {
	switch {
	case errors.Is(err, svcapi.ErrCallbackURL):
		return "not URL-encoding (a bad %-escape)"
	case errors.Is(err, svcapi.ErrCallbackBase64):
		return "not base64"
	case errors.Is(err, svcapi.ErrCallbackShort):
		return "shorter than one block after the IV (want a 16-byte IV and at least one 16-byte block)"
	case errors.Is(err, svcapi.ErrCallbackBlocks):
		return "ciphertext is not a multiple of the block size (16 bytes): cut off or corrupted"
	case errors.Is(err, svcapi.ErrCallbackPadding):
		return "padding does not verify: wrong key or corrupted value"
	}
	return err.Error()
}

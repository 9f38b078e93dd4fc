package registry

import (
	"strings"
	"unicode/utf8"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// DecodeFast decodes the payload skills::register nearly always gets, an
// object such as {"id":"billing","skill":"# Billing\n…","_caller_worker_id":"…"},
// without reflection (iii.FastDecoder): one validating pass of the codec's
// scanner (wire.EachMember), then each string copied once with its escapes
// undone. encoding/json checked the whole payload, then scanned it again
// to decode it, about a sixth of the worker's own work per registration
// (docs/decisions.md D77). Anything else (an escape other than JSON's
// short ones, such as \u00e9; invalid UTF-8; a key that only folds to "id"
// or "skill"; either key twice; a value that is not a string; not an
// object; a version member, D78) is left to encoding/json, which decides it as before, errors
// included (D15). FuzzRegisterInputDecodeFast holds what it accepts to
// encoding/json's result.
func (in *registerSkillInput) DecodeFast(data []byte) bool {
	var id, skill, worker *string
	err := wire.EachMember(data, func(key string, value []byte) error {
		var dst **string
		switch {
		case key == "id":
			dst = &id
		case key == "skill":
			dst = &skill
		case key == callerWorkerKey:
			dst = &worker // the writer of the revision (D83)
		case strings.EqualFold(key, "id"), strings.EqualFold(key, "skill"), strings.EqualFold(key, "version"),
			strings.EqualFold(key, callerWorkerKey):
			// encoding/json matches keys without regard to case
			// (Unicode's simple folding: "ſkill" is "skill" to it);
			// version (D78) is rare and decided there too.
			return errLeaveToJSON
		default:
			return nil // encoding/json ignores any other member, valid as it is
		}
		if *dst != nil {
			return errLeaveToJSON // the last of duplicates wins there
		}
		s, ok := shortEscapedString(value)
		if !ok {
			return errLeaveToJSON
		}
		*dst = &s
		return nil
	})
	if err != nil {
		return false
	}
	if id != nil {
		in.ID = *id
	}
	if skill != nil {
		in.Skill = *skill
	}
	if worker != nil {
		in.CallerWorker = *worker
	}
	return true
}

// shortEscapedString decodes the JSON string literal lit (as the codec's
// scanner delimited it) when it is valid UTF-8 whose only escapes are
// JSON's two-character ones (\" \\ \/ \b \f \n \r \t), as markdown
// encoded by any JSON library nearly always is; ok is false for anything
// else, left to encoding/json.
func shortEscapedString(lit []byte) (s string, ok bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	body := lit[1 : len(lit)-1]
	if !utf8.Valid(body) {
		return "", false // encoding/json writes U+FFFD for each bad byte
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c < 0x20 || c == '"' {
			return "", false // not inside a valid string literal
		}
		if c != '\\' {
			continue
		}
		if b.Cap() == 0 {
			b.Grow(len(body))
		}
		if i+1 >= len(body) {
			return "", false
		}
		unescaped, short := shortEscapes[body[i+1]]
		if !short {
			return "", false
		}
		b.Write(body[:i])
		b.WriteByte(unescaped)
		body = body[i+2:]
		i = -1
	}
	if b.Cap() == 0 {
		return string(body), true // no escape: the bytes are the value
	}
	b.Write(body)
	return b.String(), true
}

// shortEscapes maps the byte after a backslash to what the escape stands
// for, for JSON's two-character escapes.
var shortEscapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

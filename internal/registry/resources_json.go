package registry

import (
	"slices"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// AppendJSON writes the resources-read result straight into the reply
// frame (iii.JSONAppender, docs/decisions.md D52): the 0.2 bytes,
// {"contents":[{"uri":…,"mimeType":…,"text":…}]}, exactly as
// encoding/json writes them from the struct tags above, without
// reflection. TestReadOutputMatchesEncodingJSON and its fuzz target hold
// it to that.
func (o readResourceOutput) AppendJSON(dst []byte) []byte {
	if o.Contents == nil {
		return append(dst, `{"contents":null}`...)
	}
	n := len(`{"contents":[]}`)
	for _, c := range o.Contents {
		// Escaping may add to this; most bodies need little.
		n += len(`{"uri":"","mimeType":"","text":""},`) + len(c.URI) + len(c.MimeType) + len(c.Text)
	}
	dst = slices.Grow(dst, n)
	dst = append(dst, `{"contents":[`...)
	for i, c := range o.Contents {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"uri":`...)
		dst = wire.AppendJSONString(dst, c.URI)
		dst = append(dst, `,"mimeType":`...)
		dst = wire.AppendJSONString(dst, c.MimeType)
		dst = append(dst, `,"text":`...)
		dst = wire.AppendJSONString(dst, c.Text)
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

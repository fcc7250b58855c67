package cassette

import (
	"mime"
	"net/http"
	"slices"
	"strings"
)

// formParts returns a multipart/form-data body with the values of its
// credential fields replaced (secretParams and the rules' query keys, as
// in a query or a url-encoded form): a client that uploads a file may send
// its key beside it as a field. Only those values change, byte for byte
// in place, and one long enough to be a key is replaced wherever else the
// body holds it; a body of another type is returned as it came.
func (d *Detector) formParts(h http.Header, body string) string {
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return body
	}
	delim := "--" + params["boundary"]
	pieces := strings.Split(body, delim)
	var found []string
	for i := 1; i < len(pieces); i++ {
		if start, end, ok := d.secretPart(pieces[i]); ok {
			v := pieces[i][start:end]
			pieces[i] = pieces[i][:start] + Placeholder(v) + pieces[i][end:]
			found = append(found, v)
		}
	}
	if len(found) == 0 {
		return body
	}
	out := strings.Join(pieces, delim)
	for _, v := range found {
		d.learn(v)
		if len(v) >= 8 {
			out = strings.ReplaceAll(out, v, Placeholder(v))
		}
	}
	return out
}

// secretPart is where the value of a part (the text between two
// delimiters: its line end, headers, a blank line, the value, a line end)
// starts and ends, when it is a credential field's, not a file's.
func (d *Detector) secretPart(piece string) (start, end int, ok bool) {
	sep := "\r\n\r\n"
	at := strings.Index(piece, sep)
	if at < 0 {
		sep = "\n\n"
		if at = strings.Index(piece, sep); at < 0 {
			return 0, 0, false
		}
	}
	head, value := piece[:at], piece[at+len(sep):]
	value = strings.TrimSuffix(strings.TrimSuffix(value, "\n"), "\r")
	var name string
	for line := range strings.SplitSeq(head, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "Content-Disposition") {
			continue
		}
		_, ps, err := mime.ParseMediaType(strings.TrimSpace(v))
		if err != nil || ps["filename"] != "" {
			return 0, 0, false
		}
		name = ps["name"]
	}
	if !slices.Contains(secretParams, name) && !slices.Contains(d.queries, name) {
		return 0, 0, false
	}
	if strings.TrimSpace(value) == "" || notSecret(value) {
		return 0, 0, false
	}
	start = at + len(sep)
	return start, start + len(value), true
}

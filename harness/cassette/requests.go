package cassette

// Request is one recorded request of a cassette.
type Request struct {
	Method, URL string
	Body        []byte
}

// Requests reads the requests a cassette recorded, in order (for
// estimating what recording it again costs, testbed record --dry-run).
func Requests(path string) ([]Request, error) {
	f, err := readFile(path)
	if err != nil {
		return nil, err
	}
	out := make([]Request, 0, len(f.Interactions))
	for _, in := range f.Interactions {
		out = append(out, Request{Method: in.Request.Method, URL: in.Request.URL, Body: []byte(in.Request.Body)})
	}
	return out, nil
}

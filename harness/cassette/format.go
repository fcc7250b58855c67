package cassette

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sync/errgroup"
)

// Format is a cassette's file format: go-vcr's format version.
type Format int

// The formats testbed reads.
const (
	// FormatGoVCR2 is go-vcr v2's format (version 1), which testbed
	// records in.
	FormatGoVCR2 Format = FormatVersion
	// FormatGoVCR4 is go-vcr v4's format (version 2): each interaction
	// also has an id, and its request and response their protocol,
	// content length, host and trailers, which replay does not need.
	FormatGoVCR4 Format = 2
)

// String names the format: "go-vcr v4 (format version 2)".
func (f Format) String() string {
	switch f {
	case FormatGoVCR2:
		return "go-vcr v2 (format version 1)"
	case FormatGoVCR4:
		return "go-vcr v4 (format version 2)"
	}
	return fmt.Sprintf("format version %d", int(f))
}

// ReadFormat reads the cassette at path and returns its format; it fails
// as replay would on a file testbed cannot read.
func ReadFormat(path string) (Format, error) {
	f, err := readFile(path)
	if err != nil {
		return 0, err
	}
	return Format(f.Version), nil
}

// FileFormat is the format of one file under a cassette folder, or why it
// is not a cassette testbed reads.
type FileFormat struct {
	Path   string
	Format Format // 0 when Err is set
	Err    error
}

// Formats reads every .yaml file under root, as Scan finds them, and
// returns each one's format, in path order.
func Formats(root string) ([]FileFormat, error) {
	var out []FileFormat
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".yaml") {
			out = append(out, FileFormat{Path: path})
		}
		return nil
	})
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range out {
		g.Go(func() error {
			out[i].Format, out[i].Err = ReadFormat(out[i].Path)
			return nil
		})
	}
	g.Wait()
	return out, err
}

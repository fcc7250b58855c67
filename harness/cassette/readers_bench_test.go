package cassette_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goccy "github.com/goccy/go-yaml"
	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/harness/cassette"
)

// committed returns every committed cassette's bytes and their total size.
func committed(b *testing.B) ([][]byte, int64) {
	var out [][]byte
	var size int64
	filepath.WalkDir(filepath.Join("..", "..", "cassettes"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") {
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, data)
			size += int64(len(data))
		}
		return nil
	})
	return out, size
}

// BenchmarkReaders reads every committed cassette with the fast reader,
// yaml.v3 and goccy/go-yaml, side by side, per byte: the fast reader stays
// only while it is at least 3× faster than the faster library.
func BenchmarkReaders(b *testing.B) {
	all, size := committed(b)
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, data := range all {
				if !cassette.ParseFast(data) {
					b.Fatal("the fast reader declined a committed cassette")
				}
			}
		}
	})
	b.Run("yaml.v3", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, data := range all {
				var f cassette.File
				if err := yaml.Unmarshal(data, &f); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("goccy", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, data := range all {
				var f cassette.File
				if err := goccy.Unmarshal(data, &f); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

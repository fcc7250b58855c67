package cassette

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Finding is something in a cassette that looks like a secret.
type Finding struct {
	Path string
	Line int
	What string // which rule matched
	Text string // the match, partly masked
}

// String formats f as "path:line: what: text".
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", f.Path, f.Line, f.What, f.Text)
}

var secretPatterns = []struct {
	what string
	re   *regexp.Regexp
}{
	{"OpenAI-style key", regexp.MustCompile(`sk-[A-Za-z0-9_-]{16,}`)},
	{"Google API key", regexp.MustCompile(`AIza[0-9A-Za-z_-]{30,}`)},
	{"Anthropic key", regexp.MustCompile(`sk-ant-[A-Za-z0-9_-]{16,}`)},
	{"bearer token", regexp.MustCompile(`Bearer [A-Za-z0-9._~+/=-]{20,}`)},
	{"key query parameter", regexp.MustCompile(`[?&](?:key|api_key|apikey|access_token)=[A-Za-z0-9._~%-]{12,}`)},
	{"key in JSON", regexp.MustCompile(`"(?:api_?key|apiKey|access_token|secret)"\s*:\s*"[A-Za-z0-9._~-]{12,}"`)},
}

// KeyVariables returns the environment variables whose values must never
// appear in a cassette.
func KeyVariables() []string {
	return []string{"OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"}
}

// Scan looks for secrets in every .yaml file under root: known key
// patterns, and the literal values of the given secrets (for example the
// provider keys present in the environment; values shorter than 8 bytes
// are ignored). Matches of the word REDACTED are not findings.
func Scan(root string, secrets []string) ([]Finding, error) {
	var out []Finding
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return nil
		}
		found, err := scanFile(path, secrets)
		out = append(out, found...)
		return err
	})
	return out, err
}

func scanFile(path string, secrets []string) ([]Finding, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Finding
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		for _, p := range secretPatterns {
			for _, m := range p.re.FindAllString(line, -1) {
				if !strings.Contains(m, Redacted) {
					out = append(out, Finding{Path: path, Line: n, What: p.what, Text: mask(m)})
				}
			}
		}
		for _, s := range secrets {
			if len(s) >= 8 && strings.Contains(line, s) {
				out = append(out, Finding{Path: path, Line: n, What: "value of a key variable", Text: mask(s)})
			}
		}
	}
	return out, sc.Err()
}

// mask keeps the first six characters of a secret, enough to find it.
func mask(s string) string {
	if len(s) <= 6 {
		return "***"
	}
	return s[:6] + strings.Repeat("*", min(len(s)-6, 12))
}

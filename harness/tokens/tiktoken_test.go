package tokens_test

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/harness/tokens"
)

// reference returns tiktoken-go's encoding, the reference the Counter must
// agree with token for token count.
var reference = func() func(encoding string) *tiktoken.Tiktoken {
	var mu sync.Mutex
	built := map[string]*tiktoken.Tiktoken{}
	return func(encoding string) *tiktoken.Tiktoken {
		mu.Lock()
		defer mu.Unlock()
		if tk, ok := built[encoding]; ok {
			return tk
		}
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		tk, err := tiktoken.GetEncoding(encoding)
		if err != nil {
			panic(err)
		}
		built[encoding] = tk
		return tk
	}
}()

// referenceTokens is text cut into tokens by tiktoken-go.
func referenceTokens(ref *tiktoken.Tiktoken, text string) []string {
	var out []string
	for _, id := range ref.EncodeOrdinary(text) {
		out = append(out, ref.Decode([]int{id}))
	}
	return out
}

// uncached counts text with a fresh Counter, so that no cache answers.
func uncached(encoding, text string) int {
	c, err := tokens.New(encoding)
	if err != nil {
		panic(err)
	}
	return c.Count(text)
}

// chunked counts text with a fresh Counter that cuts it at every point
// where Count may cut a long text, counting each line on its own.
func chunked(encoding, text string) int {
	c, err := tokens.NewChunked(encoding, 1)
	if err != nil {
		panic(err)
	}
	return c.Count(text)
}

// tricky are characters on every edge of the split patterns: letters of
// each case class, marks, numbers that are not digits, white space that is
// not ASCII, the apostrophe and contraction letters (with case-folding
// look-alikes), slashes, line breaks, CJK, emoji and a byte that is not
// UTF-8.
var tricky = []string{
	"a", "Z", "é", "É", "ǅ", "ʰ", "中", "ー", "\u0301", "\u0903", "ß", "ſ", "K", "İ",
	"0", "7", "٣", "Ⅻ", "½", "²",
	" ", " ", " ", "\t", "\n", "\r", "\r\n", "\v", "\f", "\u0085", "\u00a0", "\u2028", "\u3000",
	"'", "'s", "'S", "'t", "'re", "'RE", "'ve", "'m", "'ll", "'Ll", "'d", "'x",
	"/", "//", "{", "}", "\"", ":", ",", ".", "-", "_", "(", "！", "。", "«", "$",
	"😀", "👍🏽", "\xff", "\xe4\xb8",
	"hello", "World", "JSONSchema", "camelCase", "UPPER", "lower", "12345", "3.14", "x2", "de'd",
}

func generated(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(tricky[r.IntN(len(tricky))])
	}
	return b.String()
}

// corpus is the text of every committed cassette interaction body (as
// agents and the harness count them: decoded), fixture, prompt and suite,
// each cut to at most max bytes so the reference keeps up.
func corpus(max int) []string {
	GinkgoHelper()
	var out []string
	add := func(s string) {
		if len(s) > max {
			s = s[:max] // may cut a character in two: both must agree on that too
		}
		out = append(out, s)
	}
	for _, dir := range []string{"fixtures", "scenarios", "agents"} {
		Expect(filepath.WalkDir(filepath.Join(repoRoot, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(path, ".go") {
				return err
			}
			data, err := os.ReadFile(path)
			add(string(data))
			return err
		})).To(Succeed())
	}
	Expect(filepath.WalkDir(filepath.Join(repoRoot, "cassettes"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var f struct {
			Interactions []struct {
				Request  struct{ Body string }
				Response struct{ Body string }
			}
		}
		if err := yaml.Unmarshal(data, &f); err != nil {
			return err
		}
		for _, in := range f.Interactions {
			add(in.Request.Body)
			add(in.Response.Body)
		}
		return nil
	})).To(Succeed())
	return out
}

const repoRoot = "../.."

var _ = Describe("counts identical to tiktoken-go", func() {
	for _, enc := range []string{tokens.EncodingO200K, tokens.EncodingCL100K} {
		It("from the same ranks as tiktoken-go's offline loader, in "+enc, func() {
			want, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(enc + ".tiktoken")
			Expect(err).NotTo(HaveOccurred())
			got, err := tokens.Ranks(enc)
			Expect(err).NotTo(HaveOccurred())
			Expect(len(got)).To(Equal(len(want)))
			for tok, rank := range want {
				if got[tok] != rank {
					Fail(fmt.Sprintf("token %q: rank %d, the loader says %d", tok, got[tok], rank))
				}
			}
		})

		It("on generated text full of pattern edges, in "+enc, func() {
			ref := reference(enc)
			r := rand.New(rand.NewPCG(9, uint64(len(enc))))
			for i := range 3000 {
				text := generated(r, r.IntN(60))
				want := len(ref.EncodeOrdinary(text))
				Expect(uncached(enc, text)).To(Equal(want), "text %d: %q", i, text)
				Expect(chunked(enc, text)).To(Equal(want), "text %d, cut into lines: %q", i, text)
			}
		})

		It("cuts text into tiktoken-go's tokens, byte for byte, in "+enc, func() {
			ref := reference(enc)
			c := mustNew(enc)
			r := rand.New(rand.NewPCG(11, uint64(len(enc))))
			texts := append(slices.Clone(tricky), "The capital of Minas Gerais is Belo Horizonte.", "naïve café 🌍🌍 — ok")
			for range 2000 {
				texts = append(texts, generated(r, r.IntN(60)))
			}
			for i, text := range texts {
				Expect(c.Tokens(text)).To(Equal(referenceTokens(ref, text)), "text %d: %q", i, text)
			}
		})

		It("on long texts that share a long line, each line counted once, in "+enc, func() {
			ref := reference(enc)
			line := strings.Repeat(`{"entity_id":"sensor.pool","state":"25.6"},`, 120) // 5 KB, over one chunk
			texts := []string{
				line,
				"[System: File from previous tool response]\n" + line + "\n" + line,
				"Chart it\n\n" + line + "\n/" + line + "\n " + line + "\n\u00a0" + line,
				"it's\n's" + line + "\r\n" + line + "'\nll",
			}
			c := mustNew(enc)
			for i, text := range texts {
				Expect(c.Count(text)).To(Equal(len(ref.EncodeOrdinary(text))), "text %d", i)
			}
		})

		It("on every committed cassette body, fixture and prompt, in "+enc, func() {
			ref := reference(enc)
			texts := corpus(8 << 10)
			Expect(len(texts)).To(BeNumerically(">", 1000))
			c := mustNew(enc)
			lines, err := tokens.NewChunked(enc, 64)
			Expect(err).NotTo(HaveOccurred())
			for i, text := range texts {
				want := len(ref.EncodeOrdinary(text))
				Expect(c.Count(text)).To(Equal(want), "text %d: %.200q", i, text)
				Expect(c.Count(text)).To(Equal(want), "text %d, from the cache: %.200q", i, text)
				Expect(lines.Count(text)).To(Equal(want), "text %d, cut into lines: %.200q", i, text)
			}
		})
	}
})

// FuzzCount checks the Counter's counts and tokens against tiktoken-go on any text short
// enough to hold no piece over tokens.MaxPiece bytes, beyond which counts
// may differ by design (see bpe.go).
func FuzzCount(f *testing.F) {
	for _, s := range tricky {
		f.Add(s + " " + s + s + "\n" + s)
	}
	f.Add("I'm here; they'LL go, we'Ve  \n\n  /path//x\r\n\t ok")
	f.Fuzz(func(t *testing.T, text string) {
		if len(string([]rune(text))) > tokens.MaxPiece {
			return // as counted: each invalid byte becomes U+FFFD
		}
		for _, enc := range []string{tokens.EncodingO200K, tokens.EncodingCL100K} {
			want := len(reference(enc).EncodeOrdinary(text))
			if got := uncached(enc, text); got != want {
				t.Fatalf("%s: %q: %d tokens, tiktoken-go says %d", enc, text, got, want)
			}
			if got := chunked(enc, text); got != want {
				t.Fatalf("%s: %q cut into lines: %d tokens, tiktoken-go says %d", enc, text, got, want)
			}
			c, err := tokens.New(enc)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := c.Tokens(text), referenceTokens(reference(enc), text); !slices.Equal(got, want) {
				t.Fatalf("%s: %q: tokens %q, tiktoken-go says %q", enc, text, got, want)
			}
		}
	})
}

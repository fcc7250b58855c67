// Package cost prices model calls in US dollars from a price table in the
// schema of LiteLLM's model_prices_and_context_window.json, the public
// table the field maintains: per-token input, output, cached-read,
// cache-write (Anthropic's 5-minute and 1-hour) and reasoning rates, and
// long-context tiers (input_cost_per_token_above_200k_tokens …) that bill a
// whole request at the higher rates once its prompt passes the tier.
//
// testbed ships a dated table (Default) for the models its suites and
// examples name, each row with its source; a user passes a newer LiteLLM
// file, or their own in its schema, to Load. A model the table lacks is
// unpriced: Price says so, and reports show it as unpriced, never as $0.
package cost

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
)

//go:embed prices/prices.json
var defaultTable []byte

// Rates are one model's prices in US dollars per token. A rate that is nil
// was not given: cached reads and cache writes then cost what plain input
// costs, reasoning what output costs (as OpenAI, Gemini and Anthropic bill
// them when they publish no rate of their own).
type Rates struct {
	Input          float64
	Output         float64
	CacheRead      *float64
	CacheWrite     *float64 // Anthropic's 5-minute cache write, or the only one
	CacheWrite1h   *float64 // Anthropic's 1-hour cache write
	Reasoning      *float64
	InputAudio     *float64 // input_cost_per_audio_token
	CacheReadAudio *float64 // cache_read_input_audio_token_cost; CacheRead's when nil
	OutputAudio    *float64 // output_cost_per_audio_token
}

// Tier is a long-context tier: a request whose prompt holds more than
// Above input tokens is billed whole at Rates.
type Tier struct {
	Above int
	Rates Rates
}

// Model is one row of a table.
type Model struct {
	Name     string
	Provider string // litellm_provider
	Rates    Rates
	Tiers    []Tier // by Above, ascending
	// Service is the rates of the service tiers the row prices ("flex",
	// "priority", "batch": LiteLLM's input_cost_per_token_flex …,
	// input_cost_per_token_batches …).
	Service map[string]Rates
	// ServiceTiers is the long-context tiers of a service tier, by Above
	// ascending (LiteLLM's input_cost_per_token_above_200k_tokens_priority
	// …): a call at that service tier past a long-context tier of the
	// row's is priced only at one of these.
	ServiceTiers map[string][]Tier
	// SearchPerQuery is what one server-side web search costs
	// (search_context_cost_per_query's search_context_size_medium, the
	// rate LiteLLM bills a search at), nil when the row gives none.
	SearchPerQuery *float64
	// SearchPerPrompt bills SearchPerQuery once per call that searched,
	// whatever the number of its searches, as Google bills Gemini 2.x's
	// grounding per grounded prompt (the row's testbed_search_per:
	// "prompt"); false bills each search, as Gemini 3's grounding, OpenAI's
	// web search and Anthropic's are billed.
	SearchPerPrompt bool
	Source          string // where the prices come from
	AsOf            string // the date they were read
}

// Table is a price table, by model name.
type Table struct {
	models map[string]*Model
	// Origin names the file the table came from, for reports.
	Origin string
}

// Default returns testbed's own dated table (prices/prices.json): every
// model the committed suites and examples name.
func Default() *Table {
	t, err := Parse(defaultTable, "testbed's price table")
	if err != nil {
		panic(fmt.Sprintf("cost: the embedded price table does not parse: %v", err))
	}
	return t
}

// Load reads a price table in LiteLLM's schema from path.
func Load(path string) (*Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// Parse reads a price table in LiteLLM's schema: an object of model names
// to rows. Rows without input_cost_per_token or output_cost_per_token
// (LiteLLM's sample_spec, image and audio models priced otherwise) are left
// out, and so are rows whose mode is not chat, completion, responses or
// embedding. A rate that is not a number, or is negative, is an error
// naming the model and the key, and all such errors are returned at once.
func Parse(data []byte, origin string) (*Table, error) {
	at := scanLines(data)
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("%s:%d: not a LiteLLM price table (an object of model names to rows): %w", origin, max(at.errLine(err), 1), err)
	}
	t := &Table{models: map[string]*Model{}, Origin: origin}
	var problems []problem
	report := func(line int, name, format string, args ...any) {
		problems = append(problems, problem{line, fmt.Sprintf("%s:%d: %q: ", origin, line, name) + fmt.Sprintf(format, args...)})
	}
	for _, name := range slices.Sorted(maps.Keys(top)) {
		var row map[string]json.RawMessage
		if err := json.Unmarshal(top[name], &row); err != nil {
			report(at.row(name), name, "a row is an object of rates, not %s", top[name])
			continue
		}
		if mode := str(row["mode"]); mode != "" && !slices.Contains([]string{"chat", "completion", "responses", "embedding"}, mode) {
			continue
		}
		num := func(key string) *float64 {
			raw, ok := row[key]
			if !ok || string(raw) == "null" {
				return nil
			}
			var v float64
			if err := json.Unmarshal(raw, &v); err != nil {
				report(at.key(name, key), name, "%s is not a number: %s", key, raw)
				return nil
			}
			if v < 0 {
				// No provider pays for tokens: a sign typo would make every
				// cost threshold and gate pass.
				report(at.key(name, key), name, "%s is negative: %s; a price is 0 or more", key, raw)
				return nil
			}
			return &v
		}
		in, out := num("input_cost_per_token"), num("output_cost_per_token")
		if in == nil || out == nil {
			continue
		}
		m := &Model{Name: name, Provider: str(row["litellm_provider"]), Source: str(row["source"]), AsOf: str(row["testbed_as_of"]),
			Rates: Rates{Input: *in, Output: *out, CacheRead: num("cache_read_input_token_cost"), CacheWrite: num("cache_creation_input_token_cost"),
				CacheWrite1h: num("cache_creation_input_token_cost_above_1hr"), Reasoning: num("output_cost_per_reasoning_token"),
				InputAudio: num("input_cost_per_audio_token"), OutputAudio: num("output_cost_per_audio_token"), CacheReadAudio: num("cache_read_input_audio_token_cost")}}
		m.Service = serviceTiers(num, m.Rates)
		m.SearchPerQuery = searchRate(row["search_context_cost_per_query"], func(p string) {
			report(at.key(name, "search_context_cost_per_query"), name, "%s", p)
		})
		m.SearchPerPrompt = searchPerPrompt(row["testbed_search_per"], func(p string) {
			report(at.key(name, "testbed_search_per"), name, "%s", p)
		})
		m.Tiers = longTiers(row, num, m.Rates, "")
		for tier, svc := range m.Service {
			if ts := longTiers(row, num, svc, serviceSuffixes[tier]); ts != nil {
				if m.ServiceTiers == nil {
					m.ServiceTiers = map[string][]Tier{}
				}
				m.ServiceTiers[tier] = ts
			}
		}
		t.models[name] = m
	}
	if len(problems) > 0 {
		// in the file's order, as a reader fixes them
		slices.SortStableFunc(problems, func(a, b problem) int { return a.line - b.line })
		texts := make([]string, len(problems))
		for i, p := range problems {
			texts[i] = p.text
		}
		return nil, fmt.Errorf("%s", strings.Join(texts, "\n"))
	}
	return t, nil
}

// scaled fills the rates a long-context tier r does not give from the
// base row's: a cached read or write at the base's rate scaled as the
// tier's input rate is to the base's, since the providers that bill long
// prompts apart price those parts as the same multiples of input above the
// tier as below it (Anthropic's 5-minute write at 1.25 times input, its
// 1-hour write at twice, its reads at a tenth; Gemini's reads); the
// reasoning rate as the base's, as LiteLLM reads it (keepReasoning; else
// scaled as output), and the audio rates scaled as input and output. A
// rate neither gives stays nil, and Price falls back on the tier's input
// or output rate.
func (r Rates) scaled(base Rates, keepReasoning bool) Rates {
	scale := func(own, b *float64) *float64 {
		if own != nil || b == nil {
			return own
		}
		v := *b
		if base.Input > 0 {
			v = *b * r.Input / base.Input
		}
		return &v
	}
	r.CacheRead = scale(r.CacheRead, base.CacheRead)
	r.CacheWrite = scale(r.CacheWrite, base.CacheWrite)
	r.CacheWrite1h = scale(r.CacheWrite1h, base.CacheWrite1h)
	r.InputAudio = scale(r.InputAudio, base.InputAudio)
	r.CacheReadAudio = scale(r.CacheReadAudio, base.CacheReadAudio)
	if r.OutputAudio == nil && base.OutputAudio != nil {
		v := *base.OutputAudio
		if base.Output > 0 {
			v = v * r.Output / base.Output
		}
		r.OutputAudio = &v
	}
	if r.Reasoning == nil && base.Reasoning != nil {
		v := *base.Reasoning
		if !keepReasoning && base.Output > 0 {
			v = v * r.Output / base.Output
		}
		r.Reasoning = &v
	}
	return r
}

func str(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// dated matches a dated model name's suffix: -2025-04-14 or -20251001.
var dated = regexp.MustCompile(`-(\d{4}-\d{2}-\d{2}|\d{8})$`)

// geminiVersion matches a Gemini stable version's suffix (gemini-2.0-flash-001):
// the three digits Google appends to a model's name for its stable
// versions, each the model itself at the model's price.
var geminiVersion = regexp.MustCompile(`^(gemini-.+)-\d{3}$`)

// claudeDotted matches the dotted version of a Claude name as OpenRouter
// and other gateways spell it (anthropic/claude-sonnet-4.5,
// claude-3.5-haiku): Anthropic's own name has a hyphen there.
var claudeDotted = regexp.MustCompile(`^(claude-.*\d)\.(\d.*)$`)

// aliases are the other names a model's row stands for, each the same
// model at the same price: without a date suffix
// (gpt-4.1-mini-2025-04-14), without -latest (Anthropic's
// claude-3-5-sonnet-latest, the newest snapshot of claude-3-5-sonnet;
// chatgpt-4o-latest is a model of its own and finds no row), without a
// Gemini stable version's digits, and a Claude name's dots as hyphens.
// Preview names with a date of their own (gemini-2.5-flash-preview-05-20)
// are left as they are: some were billed at rates the GA model does not
// have.
func aliases(name string) []string {
	var out []string
	if d := dated.ReplaceAllString(name, ""); d != name {
		out = append(out, d)
	}
	if base, ok := strings.CutSuffix(name, "-latest"); ok {
		out = append(out, base)
	}
	if g := geminiVersion.FindStringSubmatch(name); g != nil {
		out = append(out, g[1])
	}
	if c := claudeDotted.ReplaceAllString(name, "$1-$2"); c != name {
		out = append(out, c)
		out = append(out, aliases(c)...)
	}
	return out
}

// Models lists the names of the table's models of provider
// (litellm_provider), sorted.
func (t *Table) Models(provider string) []string {
	var names []string
	for name, m := range t.models {
		if m.Provider == provider {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Lookup finds a model's row: its name as given, with the provider's prefix
// (LiteLLM keys some rows "gemini/…", "ollama/…"), without such a prefix,
// and then each of those as another name of the same model at the same
// price (aliases): without a date suffix (gpt-4.1-mini-2025-04-14 is
// gpt-4.1-mini), without -latest (claude-3-5-sonnet-latest), without a
// Gemini stable version (gemini-2.0-flash-001), and a Claude name's dots as
// hyphens (claude-sonnet-4.5). A name as given always wins, so a snapshot
// billed at rates of its own (gpt-4o-2024-05-13) has its own row. ok is
// false when none matches: the model is unpriced.
func (t *Table) Lookup(provider, model string) (*Model, bool) {
	if t == nil {
		return nil, false
	}
	names := []string{model}
	if _, bare, ok := strings.Cut(model, "/"); ok {
		names = append(names, bare)
	}
	if provider != "" {
		names = append(names, provider+"/"+model)
	}
	for _, n := range names {
		if m, ok := t.models[n]; ok {
			return m, true
		}
	}
	for _, n := range names { // the other names, only when none is a row
		for _, a := range aliases(n) {
			if m, ok := t.models[a]; ok {
				return m, true
			}
		}
	}
	return nil, false
}

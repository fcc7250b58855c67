package cassette

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/agentreplay/testbed/harness/wire"
)

// apiNames are the model APIs by their wire format, as a miss names them.
var apiNames = map[wire.Dialect]string{
	wire.Chat:         "OpenAI's Chat Completions API",
	wire.Responses:    "OpenAI's Responses API",
	wire.Gemini:       "Gemini's generateContent",
	wire.Anthropic:    "Anthropic's Messages API",
	wire.Ollama:       "Ollama's native API",
	wire.Interactions: "Gemini's Interactions API",
}

// apiSwitch is what a miss says when the live request is a model call of
// another API than the nearest recorded one (a Responses call where Chat
// Completions were recorded, say): an SDK upgrade that moved the agent to
// another API, which no match rule bridges. "" when they are calls of the
// same API, or either is no model call.
func apiSwitch(recordedURL, liveURL string) string {
	ru, err1 := url.Parse(recordedURL)
	lu, err2 := url.Parse(liveURL)
	if err1 != nil || err2 != nil {
		return ""
	}
	rd, rok := wire.Of(ru.Path)
	ld, lok := wire.Of(lu.Path)
	if !rok || !lok || rd == ld {
		return ""
	}
	return fmt.Sprintf("the request is a call of %s where the cassette has calls of %s: the agent, or an SDK upgrade under it (the Vercel AI SDK's openai(model) moved from Chat Completions to the Responses API), now calls another API, and no match rule makes one API's answer another's; re-record, or have the agent call the API it called when recorded",
		apiNames[ld], apiNames[rd])
}

// apiVersion is a path segment that names an API's version: v1, v1beta,
// v2alpha1; its first group is the major version.
var apiVersion = regexp.MustCompile(`^v([0-9]+)(?:(?:alpha|beta)[0-9]*)?$`)

// sameMajor reports whether a and b name two stages of one major version
// of an API (v1beta and v1), not two versions (v1 and v2).
func sameMajor(a, b string) bool {
	ma, mb := apiVersion.FindStringSubmatch(a), apiVersion.FindStringSubmatch(b)
	return ma != nil && mb != nil && ma[1] == mb[1]
}

// versionHint is what a miss adds to a path that changed in its API
// version's stage alone (Gemini's /v1beta/… → /v1/…, as @google/genai 1.x
// and 3.x call it): the normalise rule that compares the two as one, when
// the SDK's move to the other stage is all that changed; "" for any other
// change of path, another major version (v1 → v2) included.
func versionHint(recorded, live string) string {
	rs, ls := strings.Split(recorded, "/"), strings.Split(live, "/")
	if len(rs) != len(ls) {
		return ""
	}
	at := -1
	for i := range rs {
		if rs[i] == ls[i] {
			continue
		}
		if at >= 0 || !sameMajor(rs[i], ls[i]) {
			return ""
		}
		at = i
	}
	if at < 0 {
		return ""
	}
	prefix := strings.Join(rs[:at], "/")
	long, short := rs[at], ls[at]
	if len(short) > len(long) {
		long, short = short, long
	}
	re := "^" + regexp.QuoteMeta(prefix+"/") + "(?:" + long + "|" + short + ")/"
	return fmt.Sprintf(" (only the API version changed, %s → %s: if the SDK now calls this version and the answers it was given read the same to it, compare the two as one with match: {normalise: [{regex: '%s', as: %s}]}; else re-record; docs/recording.md)",
		rs[at], ls[at], re, flowScalar(prefix+"/"+ls[at]+"/"))
}

// documentedDefaults reports whether a request to rawURL is a call of an
// API whose defaults modelDefaults holds: OpenAI's Chat Completions or
// Responses, Anthropic's Messages.
func documentedDefaults(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	d, ok := wire.Of(u.Path)
	return ok && (d == wire.Chat || d == wire.Responses || d == wire.Anthropic)
}

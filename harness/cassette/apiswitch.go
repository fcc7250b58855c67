package cassette

import (
	"fmt"
	"net/url"

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

package wire

import (
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// outputs gathers the outputs a request asks for explicitly, to name the
// one the trace states (Request.Output, the span's gen_ai.output.type).
// The conventions give that attribute one value, the content type the
// client requests, and say the model may return zero or more outputs of
// it; they say nothing of a request asking for several. So: JSON, when
// asked for, is the output (the one that changes how the answer is read,
// and what a stand-in answers with); else the one modality asked for
// beyond text, which every model gives anyway (Chat Completions'
// modalities ["text", "audio"] is speech, Gemini's ["TEXT", "IMAGE"]
// image); else text when text was asked for by name. Two modalities
// beyond text, or one the conventions have no value for (video), name
// none.
type outputs struct {
	json, text bool
	other      llm.Output
	several    bool // modalities beyond text the one value cannot name
}

// modality adds the output modality name (text, image, audio; any case).
func (o *outputs) modality(name string) {
	switch strings.ToLower(name) {
	case "text":
		o.text = true
	case "image":
		o.add(llm.OutputImage)
	case "audio":
		o.add(llm.OutputSpeech)
	default: // video, document: no conventions' value
		o.several = true
	}
}

func (o *outputs) add(out llm.Output) {
	if o.other != "" && o.other != out {
		o.several = true
	}
	o.other = out
}

// output is the output o states, "" when none.
func (o outputs) output() llm.Output {
	switch {
	case o.json:
		return llm.OutputJSON
	case o.several:
		return ""
	case o.other != "":
		return o.other
	case o.text:
		return llm.OutputText
	}
	return ""
}

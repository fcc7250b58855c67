package wire

import (
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// interactionsUsage is an interaction's usage as the API reports it.
type interactionsUsage struct {
	Input   int `json:"total_input_tokens"`
	Output  int `json:"total_output_tokens"`
	Thought int `json:"total_thought_tokens"`
	Cached  int `json:"total_cached_tokens"`
	ToolUse int `json:"total_tool_use_tokens"`
	// the breakdowns by modality, for their audio
	InputModalities   modalityTokens `json:"input_tokens_by_modality"`
	OutputModalities  modalityTokens `json:"output_tokens_by_modality"`
	CachedModalities  modalityTokens `json:"cached_tokens_by_modality"`
	ToolUseModalities modalityTokens `json:"tool_use_tokens_by_modality"`
}

// modalityTokens is an Interactions API usage breakdown by modality.
type modalityTokens []struct {
	Modality string `json:"modality"`
	Tokens   int    `json:"tokens"`
}

// audio is the audio modality's tokens.
func (m modalityTokens) audio() int {
	n := 0
	for _, d := range m {
		if strings.EqualFold(d.Modality, "audio") {
			n += d.Tokens
		}
	}
	return n
}

// usage counts thinking beside the output's tokens, and what the built-in
// tools (search, code execution) added to the prompt beside the input's,
// as generateContent's usageMetadata does (thoughtsTokenCount,
// toolUsePromptTokenCount): both are billed. The audio of the input (the
// tools' prompt included) less the cached audio, and of the output, are
// the audio tokens, billed at the audio rates, and the cached audio the
// cached reads' audio, as generateContent's AUDIO modality is read.
func (u interactionsUsage) usage() llm.Usage {
	return llm.Usage{InputTokens: u.Input + u.ToolUse, OutputTokens: u.Output + u.Thought, ReasoningTokens: u.Thought, CacheReadTokens: u.Cached,
		CacheReadAudioTokens: u.CachedModalities.audio(),
		InputAudioTokens:     max(u.InputModalities.audio()+u.ToolUseModalities.audio()-u.CachedModalities.audio(), 0),
		OutputAudioTokens:    u.OutputModalities.audio()}
}

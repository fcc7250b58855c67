package wire

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
)

// Thought signatures, from Gemini's API reference ("Thought signatures"):
// a Gemini 3 model gives an opaque thoughtSignature on the first
// functionCall part of each answer that calls functions, and the request
// that continues the conversation must send every such part back with its
// signature in the current turn (the model's steps since the last user
// message with text): a functionCall first in its step without one is a
// 400 INVALID_ARGUMENT. Earlier turns are not checked, and Gemini 3's
// image models do not check. The stand-in gives its own signatures,
// derived from the answer and its call, and takes any signature sent (it
// cannot tell a real one); the API also takes a placeholder such as
// "skip_thought_signature_validator" for history it did not make.

// signs reports whether model gives and checks thought signatures.
func signs(model string) bool {
	return strings.HasPrefix(model, "gemini-3") && !strings.Contains(model, "image")
}

// thoughtSignature is the stand-in's signature for the call named name
// with arguments args in the answer id: standard base64, as Gemini's are.
func thoughtSignature(id, name string, args []byte) string {
	h := sha256.New()
	for _, s := range [][]byte{[]byte(id), []byte(name), args} {
		h.Write(s)
		h.Write([]byte{0})
	}
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}

// validateSignatures refuses gr, a request to model, as Gemini 3 does when
// a functionCall of the current turn that is first in its step comes back
// without its thought signature.
func validateSignatures(model string, gr geminiRequest) error {
	if !signs(model) {
		return nil
	}
	start := 0 // the current turn: after the last user content with text
	for i, c := range gr.Contents {
		if c.Role != "model" && c.text() != "" {
			start = i + 1
		}
	}
	first := true // the next functionCall is the first of its step
	for i := start; i < len(gr.Contents); i++ {
		c := gr.Contents[i]
		if c.Role != "model" {
			first = true
			continue
		}
		for _, p := range c.Parts {
			if p.FunctionCall == nil {
				continue
			}
			if first && p.ThoughtSignature == "" {
				return &invalid{msg: fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, "+
					"and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. "+
					"Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", p.FunctionCall.Name, i+1)}
			}
			first = false
		}
	}
	return nil
}

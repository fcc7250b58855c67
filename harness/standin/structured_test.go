package standin_test

import (
	"encoding/json"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/standin"
)

var _ = Describe("structured outputs", func() {
	const (
		system = "Extract the person the user describes."
		user   = "Maria Lopez is 31 years old and lives in Lyon."
		schema = `{"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}, "city": {"type": "string"}}, "required": ["name", "age", "city"], "additionalProperties": false}`
	)

	// answerText is the text of an answer in the dialect of path.
	answerText := func(path string, raw []byte) string {
		GinkgoHelper()
		var r struct {
			Content []struct {
				Type, Text string
			} `json:"content"`
			Candidates []struct {
				Content struct {
					Parts []struct{ Text string } `json:"parts"`
				} `json:"content"`
			} `json:"candidates"`
		}
		Expect(json.Unmarshal(raw, &r)).To(Succeed(), string(raw))
		if len(r.Candidates) > 0 {
			return r.Candidates[0].Content.Parts[0].Text
		}
		Expect(r.Content).NotTo(BeEmpty(), string(raw))
		Expect(r.Content[0].Type).To(Equal("text"))
		return r.Content[0].Text
	}

	DescribeTable("answer a JSON object of the schema the request gives",
		func(path, body string) {
			srv := startStandin(standin.Options{})
			status, raw := postBody(srv, path, body)
			Expect(status).To(Equal(http.StatusOK), string(raw))
			var obj map[string]any
			Expect(json.Unmarshal([]byte(answerText(path, raw)), &obj)).To(Succeed(), string(raw))
			Expect(obj).To(HaveKeyWithValue("age", 31.0))
			Expect(obj).To(HaveKeyWithValue("city", "Lyon"))
			Expect(obj).To(HaveKey("name"))
		},
		Entry("Messages, output_config.format", "/v1/messages", `{"model": "claude-sonnet-4-5", "max_tokens": 500, "system": "`+system+`",
			"messages": [{"role": "user", "content": "`+user+`"}], "output_config": {"format": {"type": "json_schema", "schema": `+schema+`}}}`),
		Entry("Messages, the beta's output_format", "/v1/messages", `{"model": "claude-sonnet-4-5", "max_tokens": 500, "system": "`+system+`",
			"messages": [{"role": "user", "content": "`+user+`"}], "output_format": {"type": "json_schema", "schema": `+schema+`}}`),
		Entry("generateContent, responseJsonSchema", "/v1beta/models/gemini-2.5-flash:generateContent", `{"systemInstruction": {"parts": [{"text": "`+system+`"}]},
			"contents": [{"role": "user", "parts": [{"text": "`+user+`"}]}], "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": `+schema+`}}`),
		Entry("generateContent, responseSchema", "/v1beta/models/gemini-2.5-flash:generateContent", `{"systemInstruction": {"parts": [{"text": "`+system+`"}]},
			"contents": [{"role": "user", "parts": [{"text": "`+user+`"}]}], "generationConfig": {"responseMimeType": "application/json",
			"responseSchema": {"type": "OBJECT", "properties": {"name": {"type": "STRING"}, "age": {"type": "INTEGER"}, "city": {"type": "STRING"}}, "required": ["name", "age", "city"]}}}`),
	)
})

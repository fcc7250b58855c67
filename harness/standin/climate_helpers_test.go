package standin_test

import (
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/climate/trim"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/harness/standin"
)

// The Climate Advisor's prompt is read from the agent's source, so that these
// specs break when a prompt edit loses the phrase the stand-in recognises.
const (
	climatePrompt   = "../../agents/climate/prompts/default.md"
	climateFixtures = "../../fixtures/climate/"
)

// Inventory ids of fixtures/climate (README.md).
const (
	ccNewYork2021 = "a540697c-c481-5bc0-aa83-5c16cbccaf15"
	ccNewYork2022 = "a5a81e9d-1818-5213-9277-84661b1d3213"
	ccNewYork2023 = "384a3c8f-0234-5f82-a359-8677faa4a4f4"
	ccCapeTown    = "4847be5c-bddb-530e-8d7e-eed6f70312eb"
	ccOslo        = "4701cd10-470a-526d-a771-c9e03a1b189f"
	ccRio         = "fed7e8c8-46a4-5164-95b3-c2141d343eaf"
	ccLima        = "532804f9-4d68-5a1c-9f67-8f23386237d9"
	ccTokyo       = "b1ba9d2d-9197-5a62-a24e-1bf8744b5cce"
)

// advisorTools are the agent's five tools, with its argument schemas.
func advisorTools() []llm.Tool {
	id := json.RawMessage(`{"type":"object","properties":{"inventory_id":{"type":"string"}},"required":["inventory_id"]}`)
	return []llm.Tool{
		{Name: "get_user_inventories", Description: "Lists the user's inventories.", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
		{Name: "city_inventory_search", Description: "Finds the user's inventories for a named city.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"city_name":{"type":"string"},"year":{"type":["integer","null"]}},"required":["city_name"]}`)},
		{Name: "get_inventory", Description: "Details of one inventory.", Parameters: id},
		{Name: "get_all_datasources", Description: "Data sources of an inventory.", Parameters: id},
		{Name: "climate_vector_search", Description: "Searches the climate knowledge base.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}`)},
	}
}

// advisorRequest is a Climate Advisor model call: the prompt, then msgs.
func advisorRequest(msgs ...llm.Message) llm.Request {
	b, err := os.ReadFile(climatePrompt)
	Expect(err).NotTo(HaveOccurred())
	all := append([]llm.Message{{Role: llm.RoleSystem, Content: string(b)}}, msgs...)
	return llm.Request{Role: "advisor", Messages: all, Tools: advisorTools(), Temperature: llm.Float(0.1), MaxTokens: 1024}
}

func userSays(text string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: text} }

func assistantSays(text string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: text}
}

func modelCalls(id, name, arguments string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: name, Arguments: json.RawMessage(arguments)}}}
}

func toolSays(id, name, content string) llm.Message {
	return llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: name, Content: content}
}

// succeeded is a successful tool result as the agent marshals it.
func succeeded(data any) string {
	b, err := json.Marshal(map[string]any{"success": true, "data": data})
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// failed is a failed tool result as the agent marshals it.
func failed(msg, code string) string {
	b, err := json.Marshal(map[string]any{"success": false, "error": msg, "error_code": code})
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

func readJSON(name string) map[string]any {
	b, err := os.ReadFile(climateFixtures + name)
	Expect(err).NotTo(HaveOccurred())
	var v map[string]any
	Expect(json.Unmarshal(b, &v)).To(Succeed())
	return v
}

// cityListing is the trimmed city_inventory_search result for city (matched
// case-insensitively, as the agent does) and year (0: any).
func cityListing(city string, year int) string {
	all := readJSON("inventories/user-inventories.json")
	var hits []any
	for _, e := range all["data"].([]any) {
		inv := e.(map[string]any)
		name := inv["city"].(map[string]any)["name"].(string)
		if !strings.Contains(strings.ToLower(name), strings.ToLower(city)) {
			continue
		}
		if year != 0 && int(inv["year"].(float64)) != year {
			continue
		}
		hits = append(hits, inv)
	}
	if hits == nil {
		hits = []any{}
	}
	return succeeded(trim.Listing(map[string]any{"data": hits}))
}

// allListing is the trimmed get_user_inventories result.
func allListing() string {
	return succeeded(trim.Listing(readJSON("inventories/user-inventories.json")))
}

// inventoryDetail is the trimmed get_inventory result for id.
func inventoryDetail(id string) string {
	files, err := filepath.Glob(climateFixtures + "inventory/*.json")
	Expect(err).NotTo(HaveOccurred())
	for _, f := range files {
		body := readJSON("inventory/" + filepath.Base(f))
		if body["data"].(map[string]any)["inventoryId"] == id {
			return succeeded(trim.Inventory(body))
		}
	}
	Fail("no inventory fixture for " + id)
	return ""
}

// datasourceFiles are the data-source fixtures by inventory id.
var datasourceFiles = map[string]string{
	ccNewYork2023: "datasource/new-york-2023.json",
	ccRio:         "datasource/rio-de-janeiro-2023.json",
	ccCapeTown:    "datasource/cape-town-2023.json",
	ccTokyo:       "datasource/tokyo-2020.json",
}

// cityCatalyst answers a tool call from the fixtures as the agent with
// trim ours would; Lima's detail fails as its route does.
func cityCatalyst(tc llm.ToolCall) string {
	var a struct {
		City string `json:"city_name"`
		Year int    `json:"year"`
		ID   string `json:"inventory_id"`
	}
	Expect(json.Unmarshal(tc.Arguments, &a)).To(Succeed())
	switch tc.Name {
	case "get_user_inventories":
		return allListing()
	case "city_inventory_search":
		return cityListing(a.City, a.Year)
	case "get_inventory":
		if a.ID == ccLima {
			return failed(`CityCatalyst returned HTTP 500: {"error":"internal error"}`, "cc_error")
		}
		return inventoryDetail(a.ID)
	case "get_all_datasources":
		return succeeded(trim.Datasources(readJSON(datasourceFiles[a.ID])))
	}
	Fail("cityCatalyst: unexpected tool " + tc.Name)
	return ""
}

// converse plays turns against the model as the agent does, answering tool
// calls from the fixtures, and returns the whole conversation.
func converse(c llm.Client, turns ...string) []llm.Message {
	var msgs []llm.Message
	for _, q := range turns {
		msgs = append(msgs, userSays(q))
		for step := 0; ; step++ {
			Expect(step).To(BeNumerically("<", 6), "the model kept calling tools")
			resp := chat(c, advisorRequest(msgs...))
			msgs = append(msgs, resp.Message)
			if len(resp.Message.ToolCalls) == 0 {
				break
			}
			for _, tc := range resp.Message.ToolCalls {
				msgs = append(msgs, toolSays(tc.ID, tc.Name, cityCatalyst(tc)))
			}
		}
	}
	return msgs
}

// toolCallsIn returns every tool call of msgs, in order.
func toolCallsIn(msgs []llm.Message) []llm.ToolCall {
	var out []llm.ToolCall
	for _, m := range msgs {
		out = append(out, m.ToolCalls...)
	}
	return out
}

// embedder is the agent's embeddings adapter pointed at srv.
func embedder(srv *standin.Server, dims int) *openai.Embedder {
	tr := &http.Transport{}
	DeferCleanup(tr.CloseIdleConnections)
	return openai.NewEmbedder(srv.URL()+"/v1", "text-embedding-3-small", "", dims, &http.Client{Transport: tr})
}

// passages splits a knowledge-base document as the agent does: front
// matter off, then paragraphs of at least 80 bytes that are not headings.
func passages(doc string) []string {
	b, err := os.ReadFile(climateFixtures + "kb/" + doc)
	Expect(err).NotTo(HaveOccurred())
	body := string(b)
	Expect(body).To(HavePrefix("---\n"))
	end := strings.Index(body[4:], "\n---")
	Expect(end).To(BeNumerically(">=", 0))
	body = body[4+end+4:]
	var out []string
	for _, p := range strings.Split(body, "\n\n") {
		p = strings.TrimSpace(p)
		if len(p) >= 80 && !strings.HasPrefix(p, "#") {
			out = append(out, p)
		}
	}
	Expect(out).NotTo(BeEmpty())
	return out
}

func cosine(a, b []float32) float64 {
	Expect(a).To(HaveLen(len(b)))
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	Expect(na).To(BeNumerically(">", 0))
	Expect(nb).To(BeNumerically(">", 0))
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

// idsOf are the ids of calls.
func idsOf(calls []llm.ToolCall) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.ID)
	}
	return out
}

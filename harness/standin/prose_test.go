package standin_test

import (
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

var sentenceEnd = regexp.MustCompile(`[.!?](?:\s|$)`)

// appending adds a line to a prompt.
func appending(line string) func(string) string {
	return func(p string) string { return p + "\n" + line + "\n" }
}

// replacing replaces old, which the prompt must hold, by new.
func replacing(old, new string) func(string) string {
	return func(p string) string {
		Expect(p).To(ContainSubstring(old))
		return strings.Replace(p, old, new, 1)
	}
}

var _ = Describe("instructions every prose-writing policy obeys", func() {
	var c llm.Client

	BeforeEach(func() { c = client(startStandin(standin.Options{})) })

	// cbaFailed is a CBA turn whose tool answered an error, asked in q.
	cbaFailed := func(q string) llm.Request {
		return cbaFull().request(cbaTurnWith(q, "get_soil_carbon", `{"lat":-0.1,"lon":34.7}`, "Error: upstream returned 503")...)
	}

	DescribeTable("the answer's language: the user's, a named one, or English when the prompt states none",
		func(q string, edit func(string) string, want string) {
			req := cbaFailed(q)
			if edit != nil {
				req = mutated(req, edit)
			}
			Expect(chat(c, req).Message.Content).To(HavePrefix(want))
		},
		Entry("the user's (the prompt as given), in Spanish", "¿Cuánto carbono orgánico tiene el suelo de Kisumu?", nil, "No pude obtener eso: upstream returned 503"),
		Entry("the user's, in French", "Quel est le carbone du sol à Kisumu ?", nil, "Je n'ai pas pu l'obtenir : upstream returned 503"),
		Entry("the user's, in Chinese", "基蘇木的土壤碳是多少？", nil, "我無法取得這項資料：upstream returned 503"),
		Entry("the user's, in English", "Soil carbon at Kisumu?", nil, "I could not get that: upstream returned 503"),
		Entry("unstated: English", "¿Cuánto carbono orgánico tiene el suelo de Kisumu?", replacing("Answer in the user's language. ", ""), "I could not get that"),
		Entry("a named one", "Soil carbon at Kisumu?", replacing("Answer in the user's language.", "Always reply in French."), "Je n'ai pas pu"),
	)

	DescribeTable("the answer's language in the other prose-writing policies, told by a rule added to their prompts",
		func(req llm.Request, want string) {
			m := chat(c, req).Message
			Expect(m.ToolCalls).To(BeEmpty())
			Expect(m.Content).To(HavePrefix(want))
		},
		Entry("Climate Advisor, stated", mutated(advisorRequest(userSays("¿Qué puedes hacer hoy?")), appending("Reply in the user's language.")), "Puedo ayudarte a encontrar"),
		Entry("Climate Advisor, unstated", advisorRequest(userSays("¿Qué puedes hacer hoy?")), "I can help you find"),
		Entry("the visualization service, stated", mutated(familyRequest("data_visualization.md", userSays("Haz un gráfico de la temperatura")), appending("Reply in the user's language.")), "No se dio ningún adjunto"),
		Entry("the visualization service, unstated", familyRequest("data_visualization.md", userSays("Haz un gráfico de la temperatura")), "No attachment was given"),
	)

	DescribeTable("the answer's length: the sentences a prompt allows, else every sentence and a closing offer",
		func(req llm.Request, edit func(string) string, sentences int, offer bool) {
			if edit != nil {
				req = mutated(req, edit)
			}
			m := chat(c, req).Message
			Expect(m.ToolCalls).To(BeEmpty())
			Expect(sentenceEnd.FindAllString(m.Content, -1)).To(HaveLen(sentences), "%q", m.Content)
			Expect(strings.HasSuffix(m.Content, "anything else I can help you with.")).To(Equal(offer), "%q", m.Content)
		},
		Entry("CBA, unstated", cbaMinimal().request(userSays("Hello there")), nil, 3, true),
		Entry("CBA, one sentence", cbaMinimal().request(userSays("Hello there")), appending("Answer in one sentence."), 1, false),
		Entry("Climate Advisor, unstated", advisorRequest(userSays("Bonjour !")), nil, 2, true),
		Entry("Climate Advisor, one sentence", advisorRequest(ccAfter("Inventaires pour Oslo", "get_inventory", `{"inventory_id":"`+ccOslo+`"}`, inventoryDetail(ccOslo))...), appending("Answer in one sentence."), 1, false),
		Entry("family, unstated", familyRequest("default.md", userSays("Bonjour")), nil, 3, true),
		Entry("family, one to two sentences", familyRequest("default.md", userSays("Bonjour")), appending("Respond in one to two sentences."), 2, false),
	)

	DescribeTable("the Climate Advisor calls its knowledge search by the prompt's condition on it, else whenever the lexicon says its purpose",
		func(q string, edit func(string) string, calls bool) {
			req := advisorRequest(userSays(q))
			if edit != nil {
				req = mutated(req, edit)
			}
			m := chat(c, req).Message
			called := len(m.ToolCalls) == 1 && m.ToolCalls[0].Name == "climate_vector_search"
			Expect(called).To(Equal(calls), "answered %q %v", m.Content, m.ToolCalls)
		},
		Entry("as stated, a methodology question", "How do scope 2 emissions work?", nil, true),
		Entry("the condition inverted: only for emission totals, not methodology", "How do scope 2 emissions work?",
			replacing("only when the user needs sourced climate facts: science, methodology, standards or policy (GPC, scopes, global warming potentials, emission factors, sector methods)", "only when the user asks for a total (never for scopes or methods)"), false),
		Entry("a condition on something the lexicon does not tie to the tool", "Will it rain tomorrow?",
			replacing("only when the user needs sourced climate facts", "only when the user asks about rain or sourced climate facts"), true),
		Entry("unstated: the lexicon decides", "How do scope 2 emissions work?", dropLines("Call `climate_vector_search` only when"), true),
		Entry("unstated, a question the lexicon does not tie to it", "Will it rain tomorrow?", dropLines("Call `climate_vector_search` only when"), false),
	)

	DescribeTable("the visualization service explores a large history with the jq tool when its prompt says so, else charts what it is shown",
		func(edit func(string) string, want string) {
			req := familyRequest("data_visualization.md", userSays("Chart it\n\n[System: Large JSON]\n[Attachment ID: att-1]\nData structure (JSON Schema): {\"entities\": [], \"states\": []}"))
			if edit != nil {
				req = mutated(req, edit)
			}
			m := chat(c, req).Message
			Expect(m.ToolCalls).To(HaveLen(1), "answered %q", m.Content)
			Expect(m.ToolCalls[0].Name).To(Equal(want))
		},
		Entry("as stated", nil, "jq_query"),
		Entry("the jq guidance deleted", dropLines("with `jq_query`"), "create_vega_chart"),
	)
})

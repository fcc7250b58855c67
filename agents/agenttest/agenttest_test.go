package agenttest_test

import (
	"encoding/json"
	"errors"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/agenttest"
)

func TestAgenttest(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Agenttest Suite")
}

var _ agents.Tracer = (*agenttest.Tracer)(nil)

var _ = Describe("Tracer", func() {
	It("keeps copies of tool reports and notes, in order, by name and key", func() {
		var t agenttest.Tracer
		args, raw := json.RawMessage(`{"q":1}`), []byte("payload")
		t.Tool("search", args, raw, "ctx", nil)
		t.Tool("fetch", nil, nil, "", errors.New("down"))
		t.Note("k", 1)
		t.Note("other", 2)
		t.Note("k", "two")
		raw[0] = 'X' // the caller's buffer is reused

		Expect(t.ToolNames()).To(Equal([]string{"search", "fetch"}))
		Expect(t.Reports("search")).To(HaveLen(1))
		Expect(t.Reports("search")[0].Raw).To(Equal([]byte("payload")))
		Expect(t.Reports("fetch")[0].Err).To(MatchError("down"))
		Expect(t.Reports("")).To(HaveLen(2))
		Expect(t.Noted("k")).To(Equal([]any{1, "two"}))
		Expect(t.Noted("missing")).To(BeEmpty())
	})
})

package external_test

import (
	"context"
	"net/http"
	"os/exec"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/external"
)

var _ = Describe("a tool an outside agent reports with raw_from", func() {
	// run has a program fetch the weather upstream, read the name the
	// proxy gave its answer, and report one tool with raw_from set to
	// name(the name it read).
	run := func(name string) (*traced, error) {
		GinkgoHelper()
		if _, err := exec.LookPath("curl"); err != nil {
			Skip("curl is not installed")
		}
		script := `read l
id=$(curl -s -D - -o /dev/null "$WEATHER_BASE_URL/forecast?city=Taipei" | tr -d '\r' | sed -n 's/^x-testbed-exchange: *//Ip')
printf '{"text": "21 C", "tools": [{"name": "get_weather", "args": {"city": "Taipei"}, "raw_from": "` + name + `", "context": "21 C"}]}\n' "$id"`
		tr := &traced{}
		cfg := agents.Config{
			HTTP: &http.Client{Transport: &responsesAPI{}}, Tracer: tr, Clock: func() time.Time { return time.Unix(0, 0) },
			Endpoint:  llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "gpt-4.1-mini"},
			Upstreams: map[string]string{"weather": "https://weather.example"},
		}
		a, err := external.New(external.Spec{Command: []string{"sh", "-c", script}, TurnTimeout: time.Minute}, GinkgoT().TempDir())(cfg)
		Expect(err).NotTo(HaveOccurred())
		_, err = a.Run(context.Background(), agents.Input{Turns: []string{"Weather in Taipei?"}})
		return tr, err
	}

	It("is given the body of the upstream answer the proxy named so", func() {
		tr, err := run("%s")
		Expect(err).NotTo(HaveOccurred())
		Expect(tr.tools).To(Equal([]string{`get_weather {"city": "Taipei"} raw={"temp": 21, "unit": "C", "station": "Taipei"} context=21 C`}))
	})

	It("fails the run when it names no answer of the run", func() {
		_, err := run("7")
		Expect(err).To(MatchError(ContainSubstring(`turn 1: tool get_weather: raw_from "7" names no upstream answer of this run: give the X-Testbed-Exchange of an answer it read whole, or its bytes in raw`)))
	})
})

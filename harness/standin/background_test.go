package standin_test

import (
	"context"
	"errors"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/standin"
)

// streamed are the sequence numbers and types of a Responses stream's
// events, and the response as the last event that carries one gives it.
func streamed(st *ssestream.Stream[responses.ResponseStreamEventUnion]) (seqs []int64, types []string, last responses.Response) {
	GinkgoHelper()
	for st.Next() {
		ev := st.Current()
		seqs, types = append(seqs, ev.SequenceNumber), append(types, ev.Type)
		if ev.Response.ID != "" {
			last = ev.Response
		}
	}
	Expect(st.Err()).NotTo(HaveOccurred())
	return seqs, types, last
}

var _ = Describe("a background response", func() {
	var (
		c      sdk.Client
		ctx    = context.Background()
		params responses.ResponseNewParams
	)

	BeforeEach(func() {
		c = echoOpenAI()
		params = responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt), Background: sdk.Bool(true),
			Input: userInput("call get_sst"), Tools: []responses.ToolUnionParam{sdkSST}}
	})

	It("is answered queued, and polled done with the answer a call made in the foreground gets, with the official SDK", func() {
		created, err := c.Responses.New(ctx, params)
		Expect(err).NotTo(HaveOccurred())
		Expect(created.Status).To(BeEquivalentTo("queued"))
		Expect(created.Background).To(BeTrue())
		Expect(created.Output).To(BeEmpty())
		Expect(created.Usage.TotalTokens).To(BeZero())

		got, err := c.Responses.Get(ctx, created.ID, responses.ResponseGetParams{})
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Status).To(BeEquivalentTo("completed"))
		Expect(got.Background).To(BeTrue())
		Expect(got.Output).To(HaveLen(1))
		Expect(got.Output[0].AsFunctionCall().Name).To(Equal("get_sst"))
		Expect(got.Usage.TotalTokens).To(BeNumerically(">", 0))

		params.Background = sdk.Bool(false)
		params.Input = userInput("call get_sst ")
		fore, err := c.Responses.New(ctx, params)
		Expect(err).NotTo(HaveOccurred())
		Expect(fore.Background).To(BeFalse())
		Expect(fore.Output[0].AsFunctionCall().Arguments).To(Equal(got.Output[0].AsFunctionCall().Arguments))
	})

	It("is cancelled as it is once done, and continued like any stored response", func() {
		created, err := c.Responses.New(ctx, params)
		Expect(err).NotTo(HaveOccurred())
		cancelled, err := c.Responses.Cancel(ctx, created.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(cancelled.Status).To(BeEquivalentTo("completed"), "done before the cancel came")
		got, err := c.Responses.Get(ctx, created.ID, responses.ResponseGetParams{})
		Expect(err).NotTo(HaveOccurred())
		Expect(got.RawJSON()).To(MatchJSON(cancelled.RawJSON()))

		call := got.Output[0].AsFunctionCall()
		next, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt), PreviousResponseID: sdk.String(created.ID),
			Input: inputItems(callOutput(call.CallID, "26.4")), Tools: []responses.ToolUnionParam{sdkSST}})
		Expect(err).NotTo(HaveOccurred())
		Expect(echoed(next).Messages).To(HaveLen(4))
	})

	It("is kept to be polled with store: false, though not to be continued", func() {
		params.Store = sdk.Bool(false)
		created, err := c.Responses.New(ctx, params)
		Expect(err).NotTo(HaveOccurred())
		got, err := c.Responses.Get(ctx, created.ID, responses.ResponseGetParams{})
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Status).To(BeEquivalentTo("completed"))
		_, err = c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt), PreviousResponseID: sdk.String(created.ID),
			Input: userInput("and now?")})
		var apiErr *sdk.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
	})

	It("is the only kind cancelled: a response made in the foreground is refused with 400, one it does not keep with 404", func() {
		params.Background = sdk.Bool(false)
		fore, err := c.Responses.New(ctx, params)
		Expect(err).NotTo(HaveOccurred())
		_, err = c.Responses.Cancel(ctx, fore.ID)
		var apiErr *sdk.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(apiErr.Message).To(ContainSubstring("background=true"))
		_, err = c.Responses.Cancel(ctx, "resp_1")
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusNotFound))
	})

	It("made streaming, is streamed again from after the event a client lost it at, with the official SDK", func() {
		params.Input = userInput("hello")
		st := c.Responses.NewStreaming(ctx, params, option.WithHeader(cassette.FaultHeader, standin.FaultStreamCut))
		seqs, types, started := streamed(st)
		Expect(types[0]).To(Equal("response.created"))
		Expect(types).NotTo(ContainElement("response.completed"), "the stream was cut")
		Expect(started.Background).To(BeTrue())
		id := started.ID
		Expect(id).NotTo(BeEmpty())

		after := seqs[len(seqs)-1]
		rest, restTypes, done := streamed(c.Responses.GetStreaming(ctx, id, responses.ResponseGetParams{StartingAfter: sdk.Int(after)}))
		Expect(rest).NotTo(BeEmpty())
		Expect(rest[0]).To(Equal(after+1), "from the event after the one it had")
		Expect(restTypes[len(restTypes)-1]).To(Equal("response.completed"))
		got, err := c.Responses.Get(ctx, id, responses.ResponseGetParams{})
		Expect(err).NotTo(HaveOccurred())
		Expect(done.RawJSON()).To(MatchJSON(got.RawJSON()))

		whole, _, _ := streamed(c.Responses.GetStreaming(ctx, id, responses.ResponseGetParams{}))
		Expect(whole).To(Equal(append(seqs, rest...)), "the whole stream without starting_after")
		none, _, _ := streamed(c.Responses.GetStreaming(ctx, id, responses.ResponseGetParams{StartingAfter: sdk.Int(rest[len(rest)-1])}))
		Expect(none).To(BeEmpty(), "nothing after its last event")
	})

	It("is the only kind streamed again: one made in the foreground, or not streaming, is refused with 400", func() {
		unstreamed, err := c.Responses.New(ctx, params)
		Expect(err).NotTo(HaveOccurred())
		params.Background = sdk.Bool(false)
		params.Input = userInput("hello")
		var fore responses.Response
		st := c.Responses.NewStreaming(ctx, params)
		for st.Next() {
			fore = st.Current().Response
		}
		Expect(st.Err()).NotTo(HaveOccurred())
		for _, id := range []string{unstreamed.ID, fore.ID} {
			st := c.Responses.GetStreaming(ctx, id, responses.ResponseGetParams{})
			Expect(st.Next()).To(BeFalse())
			var apiErr *sdk.Error
			Expect(errors.As(st.Err(), &apiErr)).To(BeTrue(), "got %v", st.Err())
			Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
			Expect(apiErr.Message).To(ContainSubstring("background=true and stream=true"))
		}
	})
})

package climate_test

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/agenttest"
	"github.com/agentreplay/testbed/agents/climate"
)

var _ = Describe("the CityCatalyst client", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	DescribeTable("sends the user's token and the service headers on every request",
		func(secrets map[string]string, token, key string) {
			w.secrets = secrets
			reply := ask(w.agent(nil), "Show me the inventories for New York")
			Expect(reply.Error).To(BeEmpty())
			reqs := w.transport.Requests(ccHost)
			Expect(reqs).To(HaveLen(1))
			for _, r := range reqs {
				Expect(r.Method).To(Equal(http.MethodGet))
				Expect(r.Path).To(Equal("/api/v1/user/inventories/"))
				Expect(r.Header.Get("Authorization")).To(Equal("Bearer " + token))
				Expect(r.Header.Get("X-Service-Name")).To(Equal("climate-advisor"))
				Expect(r.Header.Get("X-Service-Key")).To(Equal(key))
			}
		},
		Entry("with the fixtures' defaults", nil, "tok-start", "dev-service-key"),
		Entry("with the secrets given", map[string]string{"CITYCATALYST_TOKEN": "tok-secret", "CC_API_KEY": "svc-secret"}, "tok-secret", "svc-secret"),
	)

	It("refreshes an expired token once and retries the request with the new one (Oslo)", func() {
		a := w.agent(nil)
		replies := run(a, "Show me the details of the Oslo inventory", "Show me the inventories for New York")

		Expect(names(replies[0])).To(Equal([]string{climate.ToolCitySearch, climate.ToolInventory}))
		Expect(replies[0].Tools[1].Success).To(BeTrue())
		Expect(replies[0].Text).To(ContainSubstring("Oslo"))
		Expect(replies[0].Text).To(ContainSubstring("1.1 million tCO2e"))

		reqs := w.transport.Requests(ccHost)
		type line struct{ Method, Path, Auth string }
		var got []line
		for _, r := range reqs {
			got = append(got, line{r.Method, r.Path, r.Header.Get("Authorization")})
		}
		Expect(got).To(Equal([]line{
			{"GET", "/api/v1/user/inventories/", "Bearer tok-start"},
			{"GET", "/api/v1/inventory/" + idOslo, "Bearer tok-start"},
			{"POST", "/api/v1/internal/ca/user-token", ""},
			{"GET", "/api/v1/inventory/" + idOslo, "Bearer tok-fresh1"},
			// the next turn keeps the refreshed token and needs no refresh
			{"GET", "/api/v1/user/inventories/", "Bearer tok-fresh1"},
		}))
		refresh := reqs[2]
		Expect(refresh.Body).To(MatchJSON(`{"user_id":"user-123"}`))
		Expect(refresh.Header.Get("Content-Type")).To(Equal("application/json"))
		Expect(refresh.Header.Get("X-CA-Service-Key")).To(Equal("dev-service-key"))

		reports := w.tracer.Reports("")
		Expect(reports[1].Name).To(Equal(climate.ToolInventory))
		Expect(reports[1].ID).NotTo(BeEmpty(), "the model's call it ran")
		Expect(reports[1].Err).NotTo(HaveOccurred())
		Expect(reports[1].Raw).To(Equal(fixture("inventory/oslo-2021.json")))
	})

	It("asks for the token of the configured user", func() {
		w.secrets = map[string]string{"CC_USER_ID": "user-777", "CC_API_KEY": "svc-secret"}
		w.useModel(callOnce(climate.ToolInventory, `{"inventory_id":"`+idOslo+`"}`))
		reply := ask(w.agent(nil), "Oslo")
		Expect(reply.Tools[0].Success).To(BeTrue())
		var posts []agenttest.Request
		for _, r := range w.transport.Requests(ccHost) {
			if r.Method == http.MethodPost {
				posts = append(posts, r)
			}
		}
		Expect(posts).To(HaveLen(1))
		Expect(posts[0].Body).To(MatchJSON(`{"user_id":"user-777"}`))
		Expect(posts[0].Header.Get("X-CA-Service-Key")).To(Equal("svc-secret"))
	})

	Describe("against a CityCatalyst that keeps refusing", func() {
		var (
			mu     sync.Mutex
			gets   []string // Authorization of each GET
			posts  int
			status int // of the token endpoint
		)

		BeforeEach(func() {
			gets, posts, status = nil, 0, http.StatusOK
			w.serveCityCatalyst(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				mu.Lock()
				defer mu.Unlock()
				rw.Header().Set("Content-Type", "application/json")
				if r.Method == http.MethodPost && r.URL.Path == "/api/v1/internal/ca/user-token" {
					posts++
					rw.WriteHeader(status)
					json.NewEncoder(rw).Encode(map[string]any{"access_token": "tok-fresh1", "expires_in": 3600})
					return
				}
				gets = append(gets, r.Header.Get("Authorization"))
				rw.WriteHeader(http.StatusUnauthorized)
				io.WriteString(rw, `{"error":"token expired"}`)
			}))
			w.useModel(callOnce(climate.ToolInventory, `{"inventory_id":"`+idOslo+`"}`))
		})

		It("reports a second 401 after the refresh as a cc_error, without a second refresh", func() {
			reply := ask(w.agent(nil), "Oslo")
			Expect(reply.Tools).To(HaveLen(1))
			Expect(reply.Tools[0].Success).To(BeFalse())
			Expect(reply.Tools[0].ErrorCode).To(Equal("cc_error"))

			mu.Lock()
			Expect(gets).To(Equal([]string{"Bearer tok-start", "Bearer tok-fresh1"}))
			Expect(posts).To(Equal(1))
			mu.Unlock()

			env := decodeEnvelope(w.tracer.Reports("")[0].Context)
			Expect(env.Success).To(BeFalse())
			Expect(env.ErrorCode).To(Equal("cc_error"))
			Expect(env.Error).To(ContainSubstring("HTTP 401"))
			Expect(env.Data).To(BeEmpty())
			Expect(w.tracer.Reports("")[0].Err).To(HaveOccurred())
		})

		It("reports a failed refresh as a cc_error and does not retry the request", func() {
			status = http.StatusInternalServerError
			reply := ask(w.agent(nil), "Oslo")
			Expect(reply.Tools[0].Success).To(BeFalse())
			Expect(reply.Tools[0].ErrorCode).To(Equal("cc_error"))
			env := decodeEnvelope(w.tracer.Reports("")[0].Context)
			Expect(env.Error).To(ContainSubstring("token refresh failed"))

			mu.Lock()
			defer mu.Unlock()
			Expect(gets).To(Equal([]string{"Bearer tok-start"}))
			Expect(posts).To(Equal(1))
		})
	})

	It("reports a body that is not a JSON object as invalid_response_format", func() {
		w.serveCityCatalyst(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			io.WriteString(rw, `<html>maintenance</html>`)
		}))
		w.useModel(callOnce(climate.ToolUserInventories, `{}`))
		reply := ask(w.agent(nil), "Which inventories do I have?")
		Expect(reply.Tools[0].Success).To(BeFalse())
		Expect(reply.Tools[0].ErrorCode).To(Equal("invalid_response_format"))
		Expect(w.tracer.Reports("")[0].Raw).To(Equal([]byte(`<html>maintenance</html>`)))
	})

	It("reports Lima's 500 as a cc_error, and the model gets the error and no inventory data", func() {
		reply := ask(w.agent(nil), "What are the total emissions of the Lima inventory?")

		Expect(names(reply)).To(Equal([]string{climate.ToolCitySearch, climate.ToolInventory}))
		Expect(reply.Tools[1].Success).To(BeFalse())
		Expect(reply.Tools[1].ErrorCode).To(Equal("cc_error"))
		Expect(reply.Tools[1].Arguments).To(MatchJSON(`{"inventory_id":"` + idLima + `"}`))

		// What the model was told after the failed call: the error envelope only.
		reqs := w.model.Requests()
		Expect(reqs).To(HaveLen(3))
		last := reqs[2].Messages[len(reqs[2].Messages)-1]
		Expect(last.Role).To(Equal("tool"))
		Expect(last.Name).To(Equal(climate.ToolInventory))
		env := decodeEnvelope(last.Content)
		Expect(env.Success).To(BeFalse())
		Expect(env.ErrorCode).To(Equal("cc_error"))
		Expect(env.Error).To(ContainSubstring("HTTP 500"))
		Expect(env.Data).To(BeEmpty())
		Expect(last.Content).NotTo(ContainSubstring("totalEmissions"))
		Expect(last.Content).NotTo(ContainSubstring("14215690"))

		Expect(reply.Text).To(ContainSubstring("could not get that from CityCatalyst"))
		Expect(reply.Text).To(ContainSubstring("500"))
		Expect(reply.Text).To(ContainSubstring("will not guess"))
		Expect(reply.Text).NotTo(ContainSubstring("million"))
		Expect(reply.Text).NotTo(ContainSubstring("tCO2e"))
	})
})

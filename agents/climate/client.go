package climate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agentreplay/testbed/agents"
)

// client calls the CityCatalyst API as the Climate Advisor service does:
// a user's bearer token plus service headers; a 401 refreshes the token
// through the internal user-token endpoint and retries once.
type client struct {
	base       string
	http       *http.Client
	userID     string
	serviceKey string
	timeout    time.Duration // per request; see timeoutFor
	mu         sync.Mutex
	token      string
}

// Request timeouts of the real citycatalyst_client.py: 30 s by default, and
// max(timeout, 90 s) for a datasource, whose payloads are the largest.
const (
	RequestTimeout    = 30 * time.Second
	DatasourceTimeout = 90 * time.Second
)

// timeoutFor is the time the client waits for path.
func (c *client) timeoutFor(path string) time.Duration {
	if strings.HasPrefix(path, "/api/v1/datasource/") {
		return max(c.timeout, DatasourceTimeout)
	}
	return c.timeout
}

// Secrets the client reads, with the defaults the fixtures accept.
const (
	secretToken      = "CITYCATALYST_TOKEN"
	secretServiceKey = "CC_API_KEY"
	secretUserID     = "CC_USER_ID"
)

func newClient(base string, hc *http.Client, secrets map[string]string, timeout time.Duration) *client {
	get := func(k, def string) string {
		if v := secrets[k]; v != "" {
			return v
		}
		return def
	}
	return &client{
		base: strings.TrimRight(base, "/"), http: hc, timeout: timeout,
		token:      get(secretToken, "tok-start"),
		serviceKey: get(secretServiceKey, "dev-service-key"),
		userID:     get(secretUserID, "user-123"),
	}
}

// apiError is a failed CityCatalyst call.
type apiError struct {
	Status int
	Body   string
}

func (e *apiError) Error() string {
	if e.Status == 0 {
		return "CityCatalyst did not answer: " + e.Body
	}
	return fmt.Sprintf("CityCatalyst returned HTTP %d: %s", e.Status, e.Body)
}

// get fetches path and returns the raw body of a 200.
func (c *client) get(ctx context.Context, path string) ([]byte, error) {
	body, status, err := c.do(ctx, path)
	if err != nil {
		return nil, err
	}
	if status == http.StatusUnauthorized {
		if err := c.refresh(ctx); err != nil {
			return nil, err
		}
		body, status, err = c.do(ctx, path)
		if err != nil {
			return nil, err
		}
	}
	if status != http.StatusOK {
		return nil, &apiError{Status: status, Body: clip(string(body), 200)}
	}
	return body, nil
}

func (c *client) do(ctx context.Context, path string) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeoutFor(path))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, 0, err
	}
	c.mu.Lock()
	req.Header.Set("Authorization", "Bearer "+c.token)
	c.mu.Unlock()
	req.Header.Set("X-Service-Name", "climate-advisor")
	req.Header.Set("X-Service-Key", c.serviceKey)
	resp, err := c.http.Do(req)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, 0, &apiError{Body: fmt.Sprintf("no answer within %s", c.timeoutFor(path))}
	}
	if err != nil {
		return nil, 0, &apiError{Body: err.Error()}
	}
	defer resp.Body.Close()
	body, err := agents.ReadBody(resp)
	if err != nil {
		return nil, 0, &apiError{Body: "the answer " + agents.Unreadable(err)}
	}
	return body, resp.StatusCode, nil
}

// refresh asks for a new user token.
func (c *client) refresh(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	payload, _ := json.Marshal(map[string]string{"user_id": c.userID})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/api/v1/internal/ca/user-token", bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CA-Service-Key", c.serviceKey)
	resp, err := c.http.Do(req)
	if err != nil {
		return &apiError{Body: "token refresh failed: " + err.Error()}
	}
	defer resp.Body.Close()
	body, _ := agents.ReadBody(resp)
	var out struct {
		AccessToken string `json:"access_token"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &out) != nil || out.AccessToken == "" {
		return &apiError{Status: resp.StatusCode, Body: "token refresh failed: " + clip(string(body), 200)}
	}
	c.mu.Lock()
	c.token = out.AccessToken
	c.mu.Unlock()
	return nil
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

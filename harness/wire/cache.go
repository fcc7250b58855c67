package wire

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Gemini's explicit context caching: the cachedContents API, which keeps a
// system instruction, contents, tools and tool config under a name, and the
// generateContent and countTokens calls that name one (cachedContent),
// read with what the cache holds first, as the API reads them.

// maxCaches is how many cached contents Threads keeps; older ones are
// forgotten, as an expired cache is.
const maxCaches = 1 << 10

// cachesVersions are the API versions whose …/cachedContents path is
// Gemini's cachedContents API.
var cachesVersions = []string{"/v1beta/cachedContents", "/v1/cachedContents", "/v1alpha/cachedContents"}

// IsCachedContents reports whether path is Gemini's cachedContents API
// (…/v1beta/cachedContents, or one cached content below it).
func IsCachedContents(path string) bool {
	for _, v := range cachesVersions {
		if strings.HasSuffix(path, v) || strings.Contains(path, v+"/") {
			return true
		}
	}
	return false
}

// cachedContent is a cache as the API keeps it: the model it is for
// ("models/<model>"), what it holds for the calls that name it, its
// tokens, and the object the API returns for it (nil when it was followed
// in traffic rather than made here).
type cachedContent struct {
	model  string
	held   geminiRequest
	tokens int
	object map[string]any
}

// cacheRequest is the part of a request to create or update a cached
// content that is not a generateContent request's.
type cacheRequest struct {
	Model       string `json:"model"`
	DisplayName string `json:"displayName"`
	TTL         string `json:"ttl"`
	ExpireTime  string `json:"expireTime"`
}

// notCached is the API's answer to a call naming a cache it does not keep.
func notCached() (int, any) {
	return http.StatusForbidden, geminiError(http.StatusForbidden, "CachedContent not found (or permission denied)")
}

// CachedContents answers Gemini's cachedContents API at path: create (POST
// …/cachedContents, which count gives the tokens of), list (GET), get,
// update its ttl or expireTime (PATCH) and delete one (…/cachedContents/
// <id>). It returns the status and the body, errors in Gemini's shape. The
// stand-in keeps no wall clock: a cache is created at the epoch and expires
// only when forgotten (the latest 1,024 are kept), whatever its ttl says.
func (t *Threads) CachedContents(method, path string, body []byte, count func(Request) int) (int, any) {
	rest := path
	for _, v := range cachesVersions {
		if _, r, ok := strings.Cut(path, v); ok {
			rest = strings.Trim(r, "/")
			break
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if rest == "" {
		switch method {
		case http.MethodPost:
			return t.createCache(body, count)
		case http.MethodGet:
			list := []any{}
			for _, name := range t.caches.order {
				if c, _ := t.caches.get(name); c.object != nil {
					list = append(list, c.object)
				}
			}
			return http.StatusOK, map[string]any{"cachedContents": list}
		}
	}
	name := "cachedContents/" + rest
	c, ok := t.caches.get(name)
	switch {
	case strings.Contains(rest, "/") || rest == "" || method != http.MethodGet && method != http.MethodPatch && method != http.MethodDelete:
		return http.StatusNotFound, geminiError(http.StatusNotFound, method+" "+path+": the stand-in serves the cachedContents API's create and list (POST and GET …/cachedContents), get, update and delete (GET, PATCH and DELETE …/cachedContents/<id>)")
	case !ok || c.object == nil:
		return notCached()
	case method == http.MethodDelete:
		t.caches.drop(name)
		return http.StatusOK, map[string]any{}
	case method == http.MethodPatch:
		var u cacheRequest
		if err := json.Unmarshal(body, &u); err != nil {
			return http.StatusBadRequest, geminiError(http.StatusBadRequest, "Invalid JSON payload received. "+err.Error())
		}
		expire, err := expiry(u)
		if err != nil {
			return http.StatusBadRequest, geminiError(http.StatusBadRequest, err.Error())
		}
		obj := maps.Clone(c.object)
		obj["expireTime"] = expire
		c.object = obj
		t.caches.put(name, c, maxCaches)
	}
	return http.StatusOK, c.object
}

// createCache makes a cached content of body (t.mu held).
func (t *Threads) createCache(body []byte, count func(Request) int) (int, any) {
	var cr cacheRequest
	if err := json.Unmarshal(body, &cr); err != nil {
		return http.StatusBadRequest, geminiError(http.StatusBadRequest, "Invalid JSON payload received. "+err.Error())
	}
	held, err := parse[geminiRequest](body)
	if err != nil {
		return http.StatusBadRequest, geminiError(http.StatusBadRequest, err.Error())
	}
	if cr.Model == "" {
		return http.StatusBadRequest, geminiError(http.StatusBadRequest, "cachedContent.model is required")
	}
	expire, err := expiry(cr)
	if err != nil {
		return http.StatusBadRequest, geminiError(http.StatusBadRequest, err.Error())
	}
	model := cr.Model
	if !strings.HasPrefix(model, "models/") {
		model = "models/" + model
	}
	req, err := held.decode(strings.TrimPrefix(model, "models/"), false)
	if err != nil {
		return http.StatusBadRequest, geminiError(http.StatusBadRequest, err.Error())
	}
	// Its name derives from the body and how many were made of it before,
	// counted apart from the conversations made of a body.
	sum := sha256.Sum256(append([]byte("cachedContents\n"), body...))
	if t.created == nil {
		t.created = map[[32]byte]int{}
	}
	n := t.created[sum]
	t.created[sum]++
	h := requestHash(body, n+1)
	id := new(big.Int).SetBytes(h[:8]).Text(36)
	c := cachedContent{model: model, held: held, tokens: count(req)}
	c.object = map[string]any{
		"name": "cachedContents/" + id, "model": model,
		"createTime": interactionsEpoch, "updateTime": interactionsEpoch, "expireTime": expire,
		"usageMetadata": map[string]any{"totalTokenCount": c.tokens},
	}
	if cr.DisplayName != "" {
		c.object["displayName"] = cr.DisplayName
	}
	t.caches.put("cachedContents/"+id, c, maxCaches)
	return http.StatusOK, c.object
}

// expiry is a cache's expireTime as a create or update request gives it:
// its expireTime, or the epoch and its ttl ("3600s", the default).
func expiry(cr cacheRequest) (string, error) {
	if cr.ExpireTime != "" {
		return cr.ExpireTime, nil
	}
	ttl := cmp.Or(cr.TTL, "3600s")
	secs, err := strconv.ParseFloat(strings.TrimSuffix(ttl, "s"), 64)
	if err != nil || !strings.HasSuffix(ttl, "s") || secs < 0 {
		return "", &invalid{msg: fmt.Sprintf("Invalid value at 'cached_content.ttl' (type.googleapis.com/google.protobuf.Duration), %q", ttl)}
	}
	return time.Unix(0, 0).UTC().Add(time.Duration(secs * float64(time.Second))).Format(time.RFC3339), nil
}

// withCache returns gr read with the cache it names first (its system
// instruction, tools and tool config, and its contents before gr's), and
// the cache's tokens; gr as it is when it names none. Strict (the
// stand-in), a cache t does not keep, one for another model, or a request
// that sets what a cache holds is refused as the API refuses it; not
// strict (reading traffic), gr is read as it is then.
func (t *Threads) withCache(gr geminiRequest, model string, strict bool) (geminiRequest, int, error) {
	name := gr.CachedContent
	if name == "" {
		return gr, 0, nil
	}
	var c cachedContent
	ok := false
	if t != nil {
		t.mu.Lock()
		c, ok = t.caches.get(name)
		t.mu.Unlock()
	}
	switch {
	case !ok && strict:
		return gr, 0, &threadError{status: http.StatusForbidden, msg: "CachedContent not found (or permission denied)"}
	case !ok:
		return gr, 0, nil
	case gr.SystemInstruction != nil || len(gr.Tools) > 0 || cmp.Or(gr.ToolConfig, gr.ToolConfigSnake) != nil:
		if strict {
			return gr, 0, &invalid{msg: "CachedContent can not be used with GenerateContent request setting system_instruction, tools or tool_config.\n\nProposed fix: move those values to CachedContent from GenerateContent request."}
		}
		return gr, 0, nil
	case strict && model != "" && c.model != "models/"+model:
		return gr, 0, &invalid{msg: fmt.Sprintf("Model used by GenerateContent request (models/%s) and CachedContent (%s) has to be the same.", model, c.model)}
	}
	gr.SystemInstruction, gr.Tools = c.held.SystemInstruction, c.held.Tools
	gr.ToolConfig, gr.ToolConfigSnake = cmp.Or(c.held.ToolConfig, c.held.ToolConfigSnake), nil
	gr.Contents = append(append([]geminiContent(nil), c.held.Contents...), gr.Contents...)
	return gr, c.tokens, nil
}

// followCache applies a cachedContents exchange answered with success to
// the caches t keeps (t.mu held): a cache created is kept under the name
// its answer gives, with what its request holds; a deleted one is
// forgotten.
func (t *Threads) followCache(method, path string, body, resp []byte) {
	switch {
	case method == http.MethodPost && strings.HasSuffix(path, "/cachedContents"):
		var made struct {
			Name  string `json:"name"`
			Model string `json:"model"`
			Usage struct {
				Total int `json:"totalTokenCount"`
			} `json:"usageMetadata"`
		}
		held, err := parse[geminiRequest](body)
		if json.Unmarshal(resp, &made) != nil || made.Name == "" || err != nil {
			return
		}
		t.caches.put(made.Name, cachedContent{model: made.Model, held: held, tokens: made.Usage.Total}, maxCaches)
	case method == http.MethodDelete:
		if _, rest, ok := strings.Cut(path, "/cachedContents/"); ok {
			t.caches.drop("cachedContents/" + rest)
		}
	}
}

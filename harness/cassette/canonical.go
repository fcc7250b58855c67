package cassette

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"

	matcher "github.com/agentreplay/testbed/harness/match"
	"github.com/agentreplay/testbed/harness/wire"
)

// secretParams are query parameters that carry credentials; they are
// redacted when recorded and ignored when matching.
var secretParams = []string{"key", "api_key", "apikey", "api-key", "access_token", "token",
	"auth_token", "refresh_token", "id_token", "client_secret", "secret", "password"}

// recordedRequestHeaders are the request headers a recording keeps as they
// are: what matching and debugging need (content negotiation, the SDK and
// its version, API versions and options). Every other request header is
// dropped, or kept as REDACTED when its name says it carries credentials;
// an SDK can add headers of its own from the environment
// (OPENAI_CUSTOM_HEADERS), and a list of what to remove would miss them.
var recordedRequestHeaders = []string{
	"Accept", "Accept-Language", "Content-Type", "Content-Encoding", "User-Agent",
	"X-Stainless-Lang", "X-Stainless-Package-Version", "X-Stainless-Os", "X-Stainless-Arch",
	"X-Stainless-Runtime", "X-Stainless-Runtime-Version", "X-Stainless-Retry-Count",
	"X-Stainless-Timeout", "X-Stainless-Async", "X-Stainless-Helper-Method",
	"X-Goog-Api-Client", "X-Goog-Fieldmask", "X-Server-Timeout", "X-Service-Name",
	"Anthropic-Version", "Anthropic-Beta", "Openai-Beta", "Mcp-Protocol-Version",
}

// accountHeaders are response headers that name the account a provider
// answered for (OpenAI's organization and project, Anthropic's
// organization): a recording drops them, as it drops the request's.
var accountHeaders = []string{"Openai-Organization", "Openai-Project", "Anthropic-Organization-Id"}

// credentialWords are the parts of a header name that mark it as carrying
// credentials (Authorization, X-Api-Key, Cf-Access-Client-Secret, Cookie).
var credentialWords = []string{"auth", "key", "token", "secret", "cookie", "session", "password",
	"passwd", "credential", "signature", "jwt", "assertion"}

// Redacted replaces every secret in a recorded cassette.
const Redacted = "REDACTED"

// CanonicalURL drops secret query parameters and sorts the rest, so that a
// URL matches whatever key it was recorded with.
func CanonicalURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	for _, p := range secretParams {
		q.Del(p)
	}
	u.RawQuery = q.Encode()
	u.Fragment = ""
	return normalizePlaceholders(u.String())
}

// CanonicalBody returns body with JSON keys sorted, insignificant white space
// dropped, the named volatile top-level fields removed, the values of
// secret fields (see Detector.Body) replaced by REDACTED and every
// placeholder made REDACTED. A body that is not JSON is returned with the
// values of secret key=value parameters replaced.
func CanonicalBody(body []byte, volatile []string) []byte {
	return canonicalBody(body, volatile, nil, nil)
}

// canonicalBody is CanonicalBody with the match rules applied to the
// decoded JSON, or to the text of a body that is not JSON, and the decoded
// JSON passed through also, if given.
func canonicalBody(body []byte, volatile []string, rules *matcher.Rules, also func(any)) []byte {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return []byte(rules.Text(normalizePlaceholders(redactParams(string(body)))))
	}
	v, err := decodeJSON(trimmed)
	if err != nil {
		if rules.Empty() {
			return body
		}
		return []byte(rules.Text(string(body)))
	}
	if m, ok := v.(map[string]any); ok {
		for _, f := range volatile {
			delete(m, f)
		}
	}
	// A key in a body is recorded as REDACTED; whatever key the live
	// request carries, it matches.
	redactJSON(v)
	if also != nil {
		also(v)
	}
	v = rules.JSON(v)
	if rules.ToolResultsAnyOrder() {
		wire.SortToolResults(v)
	}
	if rules.EmptyContentAnyForm() {
		wire.DropEmptyCallContent(v)
	}
	out, err := wire.MarshalPlain(v)
	if err != nil {
		return body
	}
	if bytes.Contains(out, []byte(Redacted+"-")) {
		out = placeholderPattern.ReplaceAll(out, []byte(Redacted))
	}
	return out
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	// Anything after the value makes it not JSON. Decoder.More does not
	// report a stray "]" or "}", which would make `{}]` and `{}] x` the same.
	if off := dec.InputOffset(); len(bytes.TrimSpace(b[off:])) > 0 {
		return nil, &json.SyntaxError{Offset: off}
	}
	return v, nil
}

// isSecretHeader reports whether a header name says it carries credentials.
func isSecretHeader(name string) bool {
	n := strings.ToLower(name)
	if strings.Contains(n, "ratelimit") { // X-Ratelimit-Remaining-Tokens counts tokens
		return false
	}
	for _, w := range credentialWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// secretFieldNames are JSON field names, lower case without "_" and "-",
// that always carry credentials, alone or at the end of a longer name
// (openai_api_key, dbPassword); authorization_token is the token
// Anthropic's mcp_servers call an MCP server with.
var secretFieldNames = []string{"apikey", "apitoken", "accesstoken", "refreshtoken", "idtoken", "authtoken",
	"sessiontoken", "bearertoken", "clientsecret", "secretkey", "privatekey", "accesskey", "password", "passwd",
	"secret", "authorization", "authorizationtoken", "credentials"}

// fieldSeparators are dropped from field names before they are compared.
var fieldSeparators = strings.NewReplacer("_", "", "-", "")

// fieldKind says how a JSON field name relates to credentials: 2 for a name
// that always holds one (api_key, password), 1 for a generic name that holds
// one only when its value looks like one (key, token), 0 otherwise.
func fieldKind(name string) int {
	n := strings.ToLower(fieldSeparators.Replace(name))
	for _, s := range secretFieldNames {
		if strings.HasSuffix(n, s) {
			return 2
		}
	}
	if n == "key" || n == "token" {
		return 1
	}
	return 0
}

// secretValue reports whether value, found in the JSON field name, is a
// credential: any value of a field that always holds one, and a value that
// looks like a key (16 or more characters, letters and digits, no space) in
// a generic one. REDACTED and PlaceholderKey are never secrets.
func secretValue(name, value string) bool {
	if value == "" || notSecret(value) {
		return false
	}
	switch fieldKind(name) {
	case 2:
		return true
	case 1:
		return looksLikeKey(value)
	}
	return false
}

// looksLikeKey reports whether s could be a generated credential.
func looksLikeKey(s string) bool {
	if len(s) < 16 || strings.ContainsAny(s, " \t\n") {
		return false
	}
	return strings.ContainsAny(s, "0123456789") && strings.IndexFunc(s, func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}) >= 0
}

// redactJSON replaces, at any depth, the secret string values of secret
// fields with REDACTED, and reports whether it changed anything.
func redactJSON(v any) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && secretValue(k, s) {
				v[k] = Redacted
				changed = true
			} else if redactJSON(x) {
				changed = true
			}
		}
	case []any:
		for _, x := range v {
			if redactJSON(x) {
				changed = true
			}
		}
	}
	return changed
}

// secretParam matches key=value pairs of secret parameters in a query string
// or a form body.
var secretParam = regexp.MustCompile(`(?i)(^|[?&])(` + strings.Join(quoteAll(secretParams), "|") + `)=([^&#\s]*)`)

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = regexp.QuoteMeta(s)
	}
	return out
}

// redactParams replaces the values of secret key=value parameters in s.
func redactParams(s string) string {
	return replaceParams(s, func(string) string { return Redacted })
}

// replaceParams replaces the value of each secret key=value parameter in s
// by with(value).
func replaceParams(s string, with func(secret string) string) string {
	if !strings.Contains(s, "=") {
		return s
	}
	return secretParam.ReplaceAllStringFunc(s, func(m string) string {
		sub := secretParam.FindStringSubmatch(m)
		if sub[3] == "" || notSecret(sub[3]) {
			return m
		}
		return sub[1] + sub[2] + "=" + with(sub[3])
	})
}

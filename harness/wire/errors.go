package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/big"
	"net/http"
)

// Error bodies, each in its provider's shape with the type, code or status
// name its reference gives an HTTP status, so that a client's own SDK
// reads them and its error says why.

// ErrorBody is dialect d's error body for status, carrying msg: OpenAI's
// {"error": {"message", "type", "param", "code"}} for Chat Completions,
// the Responses API and embeddings; Gemini's {"error": {"code",
// "message", "status"}}; Anthropic's {"type": "error", "error": {"type",
// "message"}, "request_id"}; Ollama's {"error": msg}.
func ErrorBody(d Dialect, status int, msg string) any {
	switch d {
	case Ollama:
		return map[string]any{"error": msg}
	case Gemini, Interactions:
		return geminiError(status, msg)
	case Anthropic:
		return anthropicError(status, msg)
	}
	return openAIStatusError(status, msg)
}

// Refusal is the answer refusing a request of dialect d, whose body and
// sample are given, that Read refused with err: its status (400, or
// Anthropic's 404 for a thread it does not keep), and the headers and body
// the dialect's answers carry. For Chat Completions and the Responses API
// it has the param and code the API gives, when validation found them;
// Anthropic's thread refusals carry their error_code in details. As the
// API's refusals do, it carries the request id the request's answer would
// have had (RequestHeader), which Anthropic's body repeats.
func Refusal(d Dialect, body []byte, sample int, err error) (int, http.Header, any) {
	header := RequestHeader(d, body, sample)
	var e *invalid
	switch {
	case (d == Chat || d == Responses) && errors.As(err, &e):
		return http.StatusBadRequest, header, OpenAIError(e.msg, "invalid_request_error", e.param, e.code)
	case d == Anthropic:
		status := http.StatusBadRequest
		refused := anthropicError(status, err.Error())
		var te *threadError
		if errors.As(err, &te) {
			status = te.status
			refused = anthropicError(status, err.Error())
			refused["error"].(map[string]any)["details"] = map[string]any{"error_code": te.code}
		}
		refused["request_id"] = header.Get("Request-Id")
		return status, header, refused
	case d == Interactions || d == Gemini:
		var te *threadError
		if errors.As(err, &te) {
			return te.status, header, geminiError(te.status, err.Error())
		}
	}
	return http.StatusBadRequest, header, ErrorBody(d, http.StatusBadRequest, err.Error())
}

// RequestHeader is the request id header of the answer to a request of
// dialect d whose body and sample are given: OpenAI's x-request-id,
// Anthropic's request-id; nil for Gemini and Ollama, whose answers carry
// none.
func RequestHeader(d Dialect, body []byte, sample int) http.Header {
	sum := requestHash(body, sample)
	switch d {
	case Chat, Responses:
		return openAIRequestHeader(sum)
	case Anthropic:
		return http.Header{"Request-Id": {anthropicRequestID(sum)}}
	}
	return nil
}

// openAIRequestHeader is the x-request-id header of the answer to a
// request of hash sum (req_ and 32 hexadecimal digits).
func openAIRequestHeader(sum [sha256.Size]byte) http.Header {
	return http.Header{"X-Request-Id": {"req_" + hex.EncodeToString(sum[16:32])}}
}

// anthropicRequestID is the request id of the answer to a request of hash
// sum, req_011 and base 62 digits as Anthropic's are.
func anthropicRequestID(sum [sha256.Size]byte) string {
	return "req_011" + new(big.Int).SetBytes(sum[15:30]).Text(62)
}

// OpenAIError is an error body in OpenAI's shape; an empty param or code is
// null.
func OpenAIError(msg, kind, param, code string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": kind, "param": orNull(param), "code": orNull(code)}}
}

// openAIErrors are the error types and codes OpenAI's reference gives
// HTTP statuses; others are server_error.
var openAIErrors = map[int][2]string{
	http.StatusBadRequest:         {"invalid_request_error", ""},
	http.StatusNotFound:           {"invalid_request_error", ""},
	http.StatusTooManyRequests:    {"requests", "rate_limit_exceeded"},
	http.StatusServiceUnavailable: {"server_error", "service_unavailable"},
	http.StatusGatewayTimeout:     {"server_error", "timeout"},
}

// openAIStatusError is OpenAI's error body for status, the same for Chat
// Completions, the Responses API and embeddings, with the type and code
// OpenAI's reference gives the status.
func openAIStatusError(status int, msg string) any {
	kind, ok := openAIErrors[status]
	if !ok {
		kind = [2]string{"server_error", ""}
	}
	return OpenAIError(msg, kind[0], "", kind[1])
}

// geminiStatuses name HTTP statuses as Google's APIs do; others are INTERNAL.
var geminiStatuses = map[int]string{
	http.StatusBadRequest: "INVALID_ARGUMENT", http.StatusForbidden: "PERMISSION_DENIED", http.StatusNotFound: "NOT_FOUND",
	http.StatusRequestEntityTooLarge: "INVALID_ARGUMENT", http.StatusTooManyRequests: "RESOURCE_EXHAUSTED",
	http.StatusNotImplemented: "UNIMPLEMENTED", http.StatusBadGateway: "UNAVAILABLE", http.StatusServiceUnavailable: "UNAVAILABLE",
	http.StatusGatewayTimeout: "DEADLINE_EXCEEDED",
}

func geminiError(status int, msg string) any {
	return map[string]any{"error": map[string]any{"code": status, "message": msg, "status": statusName(status, geminiStatuses, "INTERNAL")}}
}

// anthropicErrorTypes are the error types Anthropic's reference gives
// HTTP statuses (503 as its 529 overloaded); others are api_error.
var anthropicErrorTypes = map[int]string{
	http.StatusBadRequest: "invalid_request_error", http.StatusForbidden: "permission_error", http.StatusNotFound: "not_found_error",
	http.StatusRequestEntityTooLarge: "request_too_large", http.StatusTooManyRequests: "rate_limit_error",
	http.StatusServiceUnavailable: "overloaded_error", 529: "overloaded_error", http.StatusGatewayTimeout: "timeout_error",
}

// anthropicError is Anthropic's error body for status, carrying msg. Its
// request_id is null: an answer to a request sets it (anthropicEncoder).
func anthropicError(status int, msg string) map[string]any {
	return map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": statusName(status, anthropicErrorTypes, "api_error"), "message": msg},
		"request_id": nil,
	}
}

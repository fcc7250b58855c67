package wire

import (
	"errors"
	"net/http"
)

// Error bodies, each in its provider's shape with the type, code or status
// name its reference gives an HTTP status, so that a client's own SDK
// reads them and its error says why.

// ErrorBody is dialect d's error body for status, carrying msg: OpenAI's
// {"error": {"message", "type", "param", "code"}} for Chat Completions,
// the Responses API and embeddings; Gemini's {"error": {"code",
// "message", "status"}}; Anthropic's {"type": "error", "error": {"type",
// "message"}, "request_id"}.
func ErrorBody(d Dialect, status int, msg string) any {
	switch d {
	case Gemini:
		return geminiError(status, msg)
	case Anthropic:
		return anthropicError(status, msg)
	}
	return openAIStatusError(status, msg)
}

// RefusalBody is the 400 body refusing a request of dialect d that Read
// refused with err: for Chat Completions with the param and code the API
// gives, when validation found them.
func RefusalBody(d Dialect, err error) any {
	var e *invalid
	if d != Chat || !errors.As(err, &e) {
		return ErrorBody(d, http.StatusBadRequest, err.Error())
	}
	return OpenAIError(e.msg, "invalid_request_error", e.param, e.code)
}

// OpenAIError is an error body in OpenAI's shape; an empty param or code is
// null.
func OpenAIError(msg, kind, param, code string) map[string]any {
	orNull := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
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

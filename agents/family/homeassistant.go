//lint:file-ignore ST1005 the tool's answers to the model name Home Assistant first, as the real tool's do

package family

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents"
)

// secretHAToken names the Home Assistant long-lived access token.
const secretHAToken = "HA_TOKEN"

// haTime is how Home Assistant writes times: RFC 3339 with a numeric
// offset, "+00:00" rather than "Z" for UTC.
const haTime = "2006-01-02T15:04:05-07:00"

// homeAssistant calls the Home Assistant REST API.
type homeAssistant struct {
	base    string
	http    *http.Client
	token   string
	timeout time.Duration // per request
}

// RequestTimeout is how long the assistant waits for one Home Assistant
// request. The real client sets none of its own; 30 s is our choice, the
// timeout most HTTP clients default to, so that a hung Home Assistant ends
// as a tool error rather than a stuck conversation.
const RequestTimeout = 30 * time.Second

// state is one Home Assistant state object.
type state = map[string]any

// history calls GET /api/history/period/{start}?end_time=…&filter_entity_id=…&significant_changes_only=0|1
// and returns the body of a 200 answer (a list of lists, one list of states
// per entity, which savedHistory decodes). Home Assistant keeps only
// significant changes unless told "0", so the choice is always sent.
func (h *homeAssistant) history(ctx context.Context, ids []string, start, end time.Time, significant bool) ([]byte, error) {
	only := "0"
	if significant {
		only = "1"
	}
	q := url.Values{"end_time": {end.Format(haTime)}, "filter_entity_id": {strings.Join(ids, ",")}, "significant_changes_only": {only}}
	u := strings.TrimRight(h.base, "/") + "/api/history/period/" + url.PathEscape(start.Format(haTime)) + "?" + q.Encode()
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	token := h.token
	if token == "" {
		token = "ha-token"
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := h.http.Do(req)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("Home Assistant did not answer within %s", h.timeout)
	}
	if err != nil {
		return nil, fmt.Errorf("Home Assistant did not answer: %w", err)
	}
	defer resp.Body.Close()
	body, err := agents.ReadBody(resp)
	if err != nil {
		return nil, fmt.Errorf("Home Assistant's answer %s: %w", agents.Unreadable(err), err)
	}
	if resp.StatusCode != http.StatusOK {
		return body, fmt.Errorf("Home Assistant returned HTTP %d: %s", resp.StatusCode, clip(string(body), 200))
	}
	return body, nil
}

// savedHistory is what download_state_history makes of one answer for one
// window: the file, its encoding and its value (historyFile.value). It
// depends on nothing else, and a run's scenarios are often given the same
// answer for the same window, so a run makes it once (agents.BuildOnce);
// it is shared, so nothing changes it.
type savedHistory struct {
	file  historyFile
	total int    // states in all
	data  []byte // the file encoded; nil when total is 0
	value map[string]any
}

// saveHistory decodes body, Home Assistant's list of lists, into the file
// for the window, leaving out the lists it leaves empty.
func saveHistory(body []byte, start, end string, significant bool) (*savedHistory, error) {
	var lists [][]state
	if err := json.Unmarshal(body, &lists); err != nil {
		return nil, fmt.Errorf("Home Assistant's history is not a list of lists: %w", err)
	}
	h := &savedHistory{file: historyFile{StartTime: start, EndTime: end, SignificantChangesOnly: significant}}
	for _, list := range lists {
		if len(list) == 0 {
			continue
		}
		id, _ := list[0]["entity_id"].(string)
		h.file.Entities = append(h.file.Entities, entityHistory{EntityID: id, States: list})
		h.total += len(list)
	}
	if h.total == 0 {
		return h, nil
	}
	data, err := json.Marshal(h.file)
	if err != nil {
		return nil, fmt.Errorf("could not encode the history: %v", err)
	}
	h.data, h.value = data, h.file.value()
	return h, nil
}

// historyFile is the attachment download_state_history saves, as the real
// tool writes it.
type historyFile struct {
	StartTime              string          `json:"start_time"`
	EndTime                string          `json:"end_time"`
	SignificantChangesOnly bool            `json:"significant_changes_only"`
	Entities               []entityHistory `json:"entities"`
}

type entityHistory struct {
	EntityID string  `json:"entity_id"`
	States   []state `json:"states"`
}

// value is the file as json.Unmarshal into an any reads its encoding back,
// built from the states as Home Assistant's answer decoded: the attachment
// is shown and queried from it, without decoding what was just encoded.
// Decoded values encode and decode to themselves (numbers are float64 and
// strings valid UTF-8 both ways); a nil slice or map encodes as null,
// which reads back as nil.
func (f historyFile) value() map[string]any {
	return map[string]any{"start_time": f.StartTime, "end_time": f.EndTime,
		"significant_changes_only": f.SignificantChangesOnly,
		"entities": listValue(f.Entities, func(e entityHistory) any {
			return map[string]any{"entity_id": e.EntityID, "states": listValue(e.States, func(s state) any {
				if s == nil {
					return nil
				}
				return s
			})}
		})}
}

// listValue is list as json.Unmarshal into an any reads its encoding
// back, each element through value.
func listValue[T any](list []T, value func(T) any) any {
	if list == nil {
		return nil
	}
	out := make([]any, len(list))
	for i, e := range list {
		out[i] = value(e)
	}
	return out
}

// history is download_state_history: it saves the states as a JSON
// attachment and injects it after the tool message.
func (a *Agent) history(ctx context.Context, argJSON json.RawMessage) (toolResult, []byte) {
	var args struct {
		EntityIDs              []string `json:"entity_ids"`
		Start                  string   `json:"start"`
		End                    string   `json:"end"`
		SignificantChangesOnly bool     `json:"significant_changes_only"`
	}
	if err := json.Unmarshal(argJSON, &args); err != nil || len(args.EntityIDs) == 0 {
		return fail("entity_ids is required (for example [\"sensor.pool_temperature\"])"), nil
	}
	end := a.cfg.Clock().UTC()
	var err error
	if args.End != "" {
		if end, err = time.Parse(time.RFC3339, args.End); err != nil {
			return fail("end %q is not an RFC 3339 time", args.End), nil
		}
	}
	start := end.Add(-24 * time.Hour) // the default period is the 24 hours before end
	if args.Start != "" {
		if start, err = time.Parse(time.RFC3339, args.Start); err != nil {
			return fail("start %q is not an RFC 3339 time", args.Start), nil
		}
	}
	raw, err := a.ha.history(ctx, args.EntityIDs, start.UTC(), end.UTC(), args.SignificantChangesOnly)
	if err != nil {
		return fail("%v", err), raw
	}
	from, to := start.UTC().Format(haTime), end.UTC().Format(haTime)
	only := strconv.FormatBool(args.SignificantChangesOnly)
	h, err := agents.BuildOnce(a.cfg.Cache, "home assistant history", func() (*savedHistory, error) {
		return saveHistory(raw, from, to, args.SignificantChangesOnly)
	}, raw, []byte(from), []byte(to), []byte(only))
	if err != nil {
		return fail("%v", err), raw
	}
	if h.total == 0 {
		return toolResult{ok: true, text: fmt.Sprintf("No states were recorded for %s between %s and %s.",
			strings.Join(args.EntityIDs, ", "), from, to)}, raw
	}
	att := a.store.PutValue("state-history.json", "application/json",
		fmt.Sprintf("Home Assistant history of %s", strings.Join(args.EntityIDs, ", ")), h.data, h.value)
	text := fmt.Sprintf("State history for %d entities (%d states) from %s to %s, saved as attachment %s.\n[File content in following message]",
		len(h.file.Entities), h.total, from, to, att.ID)
	return toolResult{ok: true, text: text, inject: a.inject(att)}, raw
}

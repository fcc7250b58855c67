package report

import (
	"fmt"
	"html/template"
	"math"
	"time"

	"github.com/agentreplay/testbed/harness/trace"
)

// timeline draws one scenario run on its replayed clock, in three lanes:
// model calls as bars (a streamed call's wait for its first token lighter
// than its decoding), upstream and model HTTP exchanges as bars, and tool
// calls as marks; each with its figures as a hover tip. It returns "" for
// a run with no events.
func timeline(events []trace.Event) template.HTML {
	end := time.Duration(0)
	for _, e := range events {
		switch {
		case e.LLM != nil:
			end = max(end, e.At+e.LLM.Duration)
		case e.HTTP != nil:
			end = max(end, e.At+e.HTTP.Duration)
		default:
			end = max(end, e.At)
		}
	}
	if len(events) == 0 || end <= 0 {
		return ""
	}
	const lanes = 3
	s := newSVG(chartTop+rowHeight*lanes+18, "timeline on the replayed clock")
	x := scale(float64(end))
	for i, l := range []string{"model calls", "HTTP", "tools"} {
		s.text(labelWidth-6, chartTop+rowHeight*float64(i)+12, "end", l)
	}
	for _, e := range events {
		switch {
		case e.LLM != nil:
			c := e.LLM
			y := chartTop
			tip := fmt.Sprintf("%s %s at %s for %s: %d in (system %d, tools %d, history %d, tool results %d, user %d, overhead %d), %d out",
				c.Role, c.Model, ms(e.At), ms(c.Duration), c.Input.Total(), c.Input.System, c.Input.Tools, c.Input.History, c.Input.ToolResults, c.Input.User, c.Input.Overhead, c.Output)
			if st := c.Stream; st != nil && st.FirstToken >= 0 {
				first := e.At + st.FirstToken
				s.rect(x(float64(e.At)), y, x(float64(first))-x(float64(e.At)), barHeight, "#9ecae1", tip+fmt.Sprintf("; first token after %s", ms(st.FirstToken)))
				s.rect(x(float64(first)), y, x(float64(e.At+c.Duration))-x(float64(first)), barHeight, Palette[0], tip+"; decoding")
				continue
			}
			s.rect(x(float64(e.At)), y, math.Max(x(float64(e.At+c.Duration))-x(float64(e.At)), 1), barHeight, Palette[0], tip)
		case e.HTTP != nil:
			h := e.HTTP
			fill := Palette[1]
			if h.Error != "" || h.Status >= 400 {
				fill = "#d62728"
			}
			s.rect(x(float64(e.At)), chartTop+rowHeight, math.Max(x(float64(e.At+h.Duration))-x(float64(e.At)), 1), barHeight, fill,
				fmt.Sprintf("%s %s → %d at %s for %s %s", h.Method, clip(h.URL, 120), h.Status, ms(e.At), ms(h.Duration), h.Error))
		case e.Tool != nil:
			t := e.Tool
			s.circle(x(float64(e.At)), chartTop+rowHeight*2+barHeight/2, 5, Palette[2],
				fmt.Sprintf("%s at %s: raw %d tokens → context %d tokens %s", t.Name, ms(e.At), t.RawTokens, t.ContextTokens, clip(string(t.Args), 120)))
		}
	}
	s.text(x(0), chartTop+rowHeight*lanes+12, "start", "0 s")
	s.text(x(float64(end)), chartTop+rowHeight*lanes+12, "end", fmt.Sprintf("%.1f s", end.Seconds()))
	return s.html()
}

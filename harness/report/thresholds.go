package report

import (
	"math"
	"strconv"
	"strings"
)

func thresholdSection(order []*Variant) (section, bool) {
	sec := section{title: "thresholds", table: table{
		header: []string{"variant", "threshold", "observed", "target", "result"},
		right:  []bool{false, false, true, true, false},
	}}
	detail := false
	for _, v := range order {
		for _, t := range v.Thresholds {
			detail = detail || t.Detail != ""
		}
	}
	if detail {
		sec.table.header = append(sec.table.header, "detail")
		sec.table.right = append(sec.table.right, false)
		sec.table.wrap = []bool{false, false, false, false, false, true}
	}
	for _, v := range order {
		for _, t := range v.Thresholds {
			metric := metricName(t.Source)
			result := "✓"
			if !t.Pass {
				result = "✗"
			}
			row := []string{v.Name, t.Source, metricValue(metric, t.Observed), metricValue(metric, t.Target), result}
			if t.NotEvaluated {
				row[2], row[3] = "—", "—"
			}
			if detail {
				row = append(row, t.Detail)
			}
			sec.table.rows = append(sec.table.rows, row)
		}
	}
	return sec, len(sec.table.rows) > 0
}

// metricName is the metric a threshold source starts with, as in
// "routing_accuracy >= 0.95".
func metricName(source string) string {
	source = strings.TrimSpace(source)
	end := strings.IndexFunc(source, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	if end < 0 {
		return source
	}
	return source[:end]
}

// metricValue formats a threshold's value by what its metric measures:
// fractions as percentages, latencies (stored in milliseconds) as ms, and
// anything else as a number with at most two decimals.
func metricValue(metric string, v float64) string {
	switch m := strings.ToLower(metric); {
	case strings.Contains(m, "accuracy"), strings.Contains(m, "rate"), strings.Contains(m, "reduction"):
		return percent(v)
	case strings.Contains(m, "latency"):
		return strconv.FormatFloat(v, 'f', 0, 64) + " ms"
	case strings.HasPrefix(m, "cost_"):
		return USD(v)
	default:
		return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	}
}

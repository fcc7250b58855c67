package scenario

import "slices"

// goodputKeys are the keys of a suite's goodput block.
var goodputKeys = []string{"ttft", "tpot"}

// Keys returns the keys the loader accepts in each block of a suite file,
// by the block's path: "" is the top level; a name in <> stands for any
// name (a variant, an upstream); [] for any item of a list. The reference
// page docs/suite-format.md is checked against it.
func Keys() map[string][]string {
	keys := map[string][]string{
		"":                            suiteKeys,
		"variants.<variant>":          variantKeys,
		"variants.<variant>.endpoint": endpointKeys,
		"gate":                        GateMetrics(),
		"goodput":                     goodputKeys,
		"faults":                      faultRateKeys,
		"match":                       matchKeys,
		"match.ignore[]":              matchTargets,
		"match.normalise[]":           normaliseKeys,
		"redact[]":                    redactKeys,
		"prices":                      pricesKeys,
		"scenarios_from":              fromKeys,
		"scenarios[]":                 scenarioKeys,
		"scenarios[].attachments[]":   attachKeys,
		"scenarios[].faults[]":        faultRuleKeys,
		"scenarios[].turns[]":         turnKeys,
		"expect":                      expectKeys,
		"expect.route":                routeKeys,
		"expect.tools":                toolsKeys,
		"expect.answer":               answerKeys,
		"expect.budget":               budgetKeys,
		"expect.chart":                chartKeys,
		"expect.rubric[]":             rubricKeys,
		"judge":                       judgeKeys,
		"agent":                       externalKeys,
		"agent.model":                 endpointKeys,
		"agent.upstreams.<name>":      upstreamKeys,
		"agent.http":                  httpKeys,
		"agent.mcp":                   mcpKeys,
	}
	for block, ks := range keys {
		keys[block] = slices.Clone(ks) // the loader's stay as they are
	}
	return keys
}

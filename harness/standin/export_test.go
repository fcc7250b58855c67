package standin

// RuleNames returns the names of the rules of the policy named, in table
// order (for the CBA policy, its turn rules then its intent rules), so that
// specs can see that every rule has one.
func RuleNames(policy string) []string {
	var out []string
	switch policy {
	case "cba/assistant":
		for _, r := range cbaRules() {
			out = append(out, r.name)
		}
		for _, r := range cbaIntents() {
			out = append(out, r.name)
		}
	case "odbchat/router":
		for _, r := range routerRules() {
			out = append(out, r.name)
		}
	case "odbchat/classifier":
		for _, r := range classifierRules() {
			out = append(out, r.name)
		}
	case "odbchat/onepass":
		for _, r := range onePassRules() {
			out = append(out, r.name)
		}
	case "kura/planner":
		for _, r := range kuraPlannerRules() {
			out = append(out, r.name)
		}
	case "kura/executor":
		for _, r := range kuraExecutorRules() {
			out = append(out, r.name)
		}
	case "kura/synthesizer":
		for _, r := range kuraSynthesizerRules() {
			out = append(out, r.name)
		}
	case "family/default":
		for _, r := range familyRules() {
			out = append(out, r.name)
		}
	case "family/data_visualization":
		for _, r := range vizRules() {
			out = append(out, r.name)
		}
	case "climate/advisor":
		for _, r := range climateRules() {
			out = append(out, r.name)
		}
	}
	return out
}

// Package scenarios holds the committed suites (one YAML file each, the
// prompt files they name under prompts/) and the specs that replay them
// all as the gate does: every suite passes, the reports are fresh, and the
// baseline gate finds no regression.
package scenarios

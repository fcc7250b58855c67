package lint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/upstream"
)

// Routes loads the upstream stubs of every suite's agent that has them
// (fixtures/<agent>/routes.yaml under root, and each response file they
// name) as a recording would, and returns every problem at once, each as
// path:line; the error matches upstream.ErrInvalid. It serves nothing.
func Routes(root string, suites []*scenario.Suite) error {
	seen := map[string]bool{}
	var errs []error
	for _, s := range suites {
		if seen[s.Agent] {
			continue
		}
		seen[s.Agent] = true
		path := filepath.Join(root, "fixtures", s.Agent, "routes.yaml")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		if _, err := files.Inside(root, path); err != nil {
			errs = append(errs, fmt.Errorf("%w: %w", upstream.ErrInvalid, err))
			continue
		}
		if _, err := upstream.Load(path); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

package odbchat

import (
	"io/fs"

	"github.com/agentreplay/testbed/agents"
)

// Normalize exports the server-side argument normalization to the fuzz
// targets of package odbchat_test.
var Normalize = normalize

// KnowledgeBase builds or reuses, through cache, the index of the documents
// under dir in fsys and returns it with the ids of its passages, for the
// specs of its cache.
func KnowledgeBase(cache *agents.Cache, fsys fs.FS, dir string) (any, []string, error) {
	kb, err := loadKnowledgeBase(cache, fsys, dir)
	if err != nil {
		return nil, nil, err
	}
	var ids []string
	for _, p := range kb.passages {
		ids = append(ids, p.id)
	}
	return kb, ids, nil
}

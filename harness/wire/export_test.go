package wire

// MaxKept is how many answers Threads keeps, for specs.
const MaxKept = maxKept

// MaxConversations and MaxConversationItemsKept bound the conversations
// Threads keeps, for specs.
const (
	MaxConversations         = maxConversations
	MaxConversationItemsKept = maxConversationItemsKept
)

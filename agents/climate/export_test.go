package climate

// Envelope is the JSON a tool result is wrapped in.
type Envelope = envelope

// Marshal is how a tool result is encoded.
var Marshal = marshal

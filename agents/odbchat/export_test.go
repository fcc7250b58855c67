package odbchat

// Normalize exports the server-side argument normalization to the fuzz
// targets of package odbchat_test.
var Normalize = normalize

package runner

// SnapshotOf is snapshotOf, for its specs.
var SnapshotOf = snapshotOf

package wire

// MaxKept is how many answers Threads keeps, for specs.
const MaxKept = maxKept

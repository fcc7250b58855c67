package tokens

// BuildEncoding builds an encoding afresh, as New does once per process, for
// the benchmark of that cost.
func BuildEncoding(name string) error {
	_, err := newBPE(name)
	return err
}

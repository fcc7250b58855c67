package external

// SetFakeTimeLibraries replaces where libfaketime is looked for, until
// restore is called.
func SetFakeTimeLibraries(paths []string) (restore func()) {
	old := fakeTimeLibraries
	fakeTimeLibraries = paths
	return func() { fakeTimeLibraries = old }
}

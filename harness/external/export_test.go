package external

// SetFakeTimeLibraries replaces where libfaketime is looked for, until
// restore is called.
func SetFakeTimeLibraries(paths []string) (restore func()) {
	old := fakeTimeLibraries
	fakeTimeLibraries = paths
	return func() { fakeTimeLibraries = old }
}

// SetAfterDial calls f each time testbed has connected to a service's port,
// before it asks who listens there, until restore is called.
func SetAfterDial(f func(port int)) (restore func()) {
	old := afterDial
	afterDial = f
	return func() { afterDial = old }
}

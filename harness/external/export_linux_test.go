package external

// WithoutNamespaces makes programs start as where the system gives no
// user namespace (under a keeper, or in a process group), until restore
// is called.
func WithoutNamespaces() (restore func()) {
	old := namespaces
	namespaces = func() bool { return false }
	return func() { namespaces = old }
}

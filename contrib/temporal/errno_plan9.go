package reflectiontemporal

// Plan 9's system errors are strings: ErrorData records no errno there, and
// rebuilds none.

func errnoName(error) string { return "" }

func errnoNamed(string) error { return nil }

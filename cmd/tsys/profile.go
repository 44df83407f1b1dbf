package main

func startProfile(kind, dir string) (stop func(), err error) {
	if kind == "" {
		return func() {}, nil
	}
	return nil, usagef("--profile %q: profiling is not built yet", kind)
}

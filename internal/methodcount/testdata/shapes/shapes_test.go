package shapes

// A test file's method does not count.
func (plain) fromTest() {}

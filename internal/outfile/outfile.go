package outfile

import "os"

// Check reports whether path can be written. It opens an existing file
// for writing without truncating it, and creates a missing one only to
// remove it again.
func Check(path string) error {
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	f.Close()
	if os.IsNotExist(statErr) {
		os.Remove(path)
	}
	return nil
}

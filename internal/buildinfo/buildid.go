package buildinfo

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// The Go linker writes a binary's build ID twice: as the ELF note
// "Go"/4 in section .note.go.buildid, and, on every format, as the quoted
// string after buildIDMarker at the start of the text, which lies in the
// file's first pages (cmd/go finds it the same way on Mach-O and PE).
var (
	buildIDMarker = []byte("\xff Go build ID: \"")
	buildIDEnd    = []byte("\"\n \xff")
)

// buildIDScan is how much of the file's start is searched for the
// marker: the text begins within it on every format Go links.
const buildIDScan = 64 << 10

// elfNoteGoBuildID is the type of the ELF note that holds the build ID.
const elfNoteGoBuildID = 4

// ReadBuildID reads the Go build ID of the executable at path.
func ReadBuildID(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading the build ID: %w", err)
	}
	defer f.Close()
	if id, err := elfBuildID(f); err == nil {
		return id, nil
	}
	head := make([]byte, buildIDScan)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", fmt.Errorf("reading the build ID of %s: %w", path, err)
	}
	if id, ok := markedBuildID(head[:n]); ok {
		return id, nil
	}
	return "", fmt.Errorf("%s has no Go build ID in its first %d bytes", path, buildIDScan)
}

// elfBuildID reads the build ID from an ELF file's Go note.
func elfBuildID(r io.ReaderAt) (string, error) {
	ef, err := elf.NewFile(r)
	if err != nil {
		return "", err
	}
	s := ef.Section(".note.go.buildid")
	if s == nil {
		return "", errors.New("no .note.go.buildid section")
	}
	note, err := s.Data()
	if err != nil {
		return "", err
	}
	return parseNote(note, ef.ByteOrder)
}

// parseNote reads one ELF note: name size, description size and type,
// then the name and the description, each padded to 4 bytes.
func parseNote(b []byte, order interface{ Uint32([]byte) uint32 }) (string, error) {
	if len(b) < 12 {
		return "", errors.New("short note")
	}
	nameSize, descSize, typ := order.Uint32(b), order.Uint32(b[4:]), order.Uint32(b[8:])
	nameEnd := 12 + uint64(nameSize+3)&^3
	if typ != elfNoteGoBuildID || nameSize != 4 || uint64(len(b)) < nameEnd+uint64(descSize) || string(b[12:15]) != "Go\x00" {
		return "", errors.New("not a Go build ID note")
	}
	return string(b[nameEnd : nameEnd+uint64(descSize)]), nil
}

// markedBuildID finds the quoted build ID after the linker's marker.
func markedBuildID(b []byte) (string, bool) {
	i := bytes.Index(b, buildIDMarker)
	if i < 0 {
		return "", false
	}
	rest := b[i+len(buildIDMarker)-1:] // from the opening quote
	j := bytes.Index(rest, buildIDEnd)
	if j < 0 {
		return "", false
	}
	id, err := strconv.Unquote(string(rest[:j+1]))
	return id, err == nil
}

package buildinfo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// The Go linker writes a binary's build ID twice: as the ELF note
// "Go"/4 in section .note.go.buildid, in an ELF file's first page, and on
// other formats as the quoted string after buildIDMarker at the start of
// the text, which lies in the file's first pages (cmd/go finds it the same
// way on Mach-O and PE). Both are found by scanning the file's start: a
// reader of ELF's section table (debug/elf) would add megabytes to every
// program that imports tsys.
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
	head := make([]byte, buildIDScan)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", fmt.Errorf("reading the build ID of %s: %w", path, err)
	}
	if id, ok := noteBuildID(head[:n]); ok {
		return id, nil
	}
	if id, ok := markedBuildID(head[:n]); ok {
		return id, nil
	}
	return "", fmt.Errorf("%s has no Go build ID in its first %d bytes", path, buildIDScan)
}

// noteBuildID finds the Go build ID note in b, the start of an ELF file,
// in either byte order: a note header whose name is "Go" and whose type
// is elfNoteGoBuildID.
func noteBuildID(b []byte) (string, bool) {
	for _, order := range []interface {
		binary.ByteOrder
		binary.AppendByteOrder
	}{binary.LittleEndian, binary.BigEndian} {
		// The header's type and name: the name's size and the
		// description's stand before them.
		tail := order.AppendUint32(nil, elfNoteGoBuildID)
		tail = append(tail, "Go\x00\x00"...)
		for from := 0; ; {
			i := bytes.Index(b[from:], tail)
			if i < 0 {
				break
			}
			at := from + i - 8
			if at >= 0 {
				if id, err := parseNote(b[at:], order); err == nil {
					return id, true
				}
			}
			from += i + 1
		}
	}
	return "", false
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

package rt

import (
	"fmt"
	"image"
	"image/png"
	"os"

	"github.com/tsys-go/tsys/internal/outfile"
)

// Rect is the half-open pixel rectangle [X0,X1) x [Y0,Y1), the unit of work
// of one leaf task.
type Rect struct{ X0, Y0, X1, Y1 int32 }

// Dx returns the width of r (0 if empty).
func (r Rect) Dx() int { return max(int(r.X1)-int(r.X0), 0) }

// Dy returns the height of r (0 if empty).
func (r Rect) Dy() int { return max(int(r.Y1)-int(r.Y0), 0) }

// Area returns the number of pixels of r (0 if empty).
func (r Rect) Area() int { return r.Dx() * r.Dy() }

// Empty reports whether r has no pixels.
func (r Rect) Empty() bool { return r.Area() == 0 }

// In reports whether r lies inside o (an empty r lies anywhere).
func (r Rect) In(o Rect) bool {
	return r.Empty() || r.X0 >= o.X0 && r.Y0 >= o.Y0 && r.X1 <= o.X1 && r.Y1 <= o.Y1
}

func (r Rect) String() string {
	return fmt.Sprintf("[%d,%d)x[%d,%d)", r.X0, r.X1, r.Y0, r.Y1)
}

// Split halves r along its longer side (across x on a tie), the first half
// taking the odd pixel: the two halves partition r. Both are non-empty when
// r has at least 2 pixels; a 1x1 r splits into r and an empty rectangle.
func (r Rect) Split() (Rect, Rect) {
	a, b := r, r
	if r.Dx() >= r.Dy() {
		m := r.X0 + int32((r.Dx()+1)/2)
		a.X1, b.X0 = m, m
	} else {
		m := r.Y0 + int32((r.Dy()+1)/2)
		a.Y1, b.Y0 = m, m
	}
	return a, b
}

// Serial renders the whole image of j with a plain serial loop over its
// rows, through the same Render as the tasks: the T_S baseline. It panics
// if j is invalid.
func Serial(j Job) *image.NRGBA {
	s := SceneFor(j)
	img := image.NewNRGBA(image.Rect(0, 0, int(j.Width), int(j.Height)))
	row := make([]byte, 3*int(j.Width))
	for y := int32(0); y < j.Height; y++ {
		r := Rect{0, y, j.Width, y + 1}
		s.Render(r, row)
		Assemble(j, r, row, img)
	}
	return img
}

// NewImage returns a blank (transparent) image of the size of j, to
// Assemble rendered rectangles into.
func NewImage(j Job) *image.NRGBA {
	return image.NewNRGBA(image.Rect(0, 0, int(j.Width), int(j.Height)))
}

// Assemble copies pix, rectangle r of the image of j as produced by Render,
// into img (opaque). It panics if r is not inside the image of j or img, or
// len(pix) != 3*r.Area().
func Assemble(j Job, r Rect, pix []byte, img *image.NRGBA) {
	b := img.Bounds()
	ib := Rect{int32(b.Min.X), int32(b.Min.Y), int32(b.Max.X), int32(b.Max.Y)}
	if !r.In(j.Bounds()) || !r.In(ib) {
		panic(fmt.Sprintf("rt: Assemble of %v outside image %v or target %v", r, j.Bounds(), ib))
	}
	if len(pix) != 3*r.Area() {
		panic(fmt.Sprintf("rt: Assemble of %v (%d pixels) from %d bytes, want %d", r, r.Area(), len(pix), 3*r.Area()))
	}
	w := r.Dx()
	for y := r.Y0; y < r.Y1; y++ {
		src := pix[3*w*int(y-r.Y0):][:3*w]
		dst := img.Pix[img.PixOffset(int(r.X0), int(y)):][:4*w]
		for x := 0; x < w; x++ {
			dst[4*x], dst[4*x+1], dst[4*x+2], dst[4*x+3] = src[3*x], src[3*x+1], src[3*x+2], 255
		}
	}
}

// WritePNG writes img to the file path as a PNG; errors name the path.
func WritePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("rt: writing PNG %s: %w", path, err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("rt: writing PNG %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("rt: writing PNG %s: %w", path, err)
	}
	return nil
}

// CheckWritable reports, before any rendering, whether a PNG can be written
// at path, leaving what is there as it is (outfile.Check).
func CheckWritable(path string) error {
	if err := outfile.Check(path); err != nil {
		return fmt.Errorf("rt: cannot write the image to %s: %w: give -o a file in a folder that exists and that you may write", path, err)
	}
	return nil
}

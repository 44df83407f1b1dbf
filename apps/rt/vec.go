package rt

import "math"

// vec is a 3-vector of float64, used for points, directions and RGB colours.
//
// Every product that is later added to or subtracted from something is
// wrapped in an explicit float64 conversion. The Go specification lets a
// compiler fuse x*y+z into one fused multiply-add (and gc does so on arm64,
// ppc64le, s390x and riscv64), which rounds differently; an explicit
// conversion forbids the fusion, even after inlining, so every product
// the helpers below return is rounded on its own. With it the renderer computes the same bits
// on every architecture, so tasks of one image may run on a mix of machines.
// Keep the rule when editing: write float64(a*b) + c, never a*b + c.
type vec struct{ x, y, z float64 }

func (a vec) add(b vec) vec { return vec{a.x + b.x, a.y + b.y, a.z + b.z} }
func (a vec) sub(b vec) vec { return vec{a.x - b.x, a.y - b.y, a.z - b.z} }
func (a vec) scale(s float64) vec {
	return vec{float64(a.x * s), float64(a.y * s), float64(a.z * s)}
}

// mul multiplies component-wise (colour filtering).
func (a vec) mul(b vec) vec {
	return vec{float64(a.x * b.x), float64(a.y * b.y), float64(a.z * b.z)}
}

// addScaled returns a + b*s.
func (a vec) addScaled(b vec, s float64) vec {
	return vec{a.x + float64(b.x*s), a.y + float64(b.y*s), a.z + float64(b.z*s)}
}

func (a vec) dot(b vec) float64 {
	return float64(a.x*b.x) + float64(a.y*b.y) + float64(a.z*b.z)
}

func (a vec) cross(b vec) vec {
	return vec{
		float64(a.y*b.z) - float64(a.z*b.y),
		float64(a.z*b.x) - float64(a.x*b.z),
		float64(a.x*b.y) - float64(a.y*b.x),
	}
}

func (a vec) length() float64 { return math.Sqrt(a.dot(a)) }

// norm returns a scaled to unit length (a must not be zero).
func (a vec) norm() vec { return a.scale(1 / a.length()) }

// reflect mirrors the direction d about the unit normal n.
func reflect(d, n vec) vec { return d.addScaled(n, -2*d.dot(n)) }

// powi returns x**n for n >= 0 by repeated squaring: exact and portable,
// unlike math.Pow whose result may differ between architectures.
func powi(x float64, n int) float64 {
	r := 1.0
	for n > 0 {
		if n&1 != 0 {
			r = float64(r * x)
		}
		x = float64(x * x)
		n >>= 1
	}
	return r
}

package tsys

import (
	"sync/atomic"
	"testing"
	"unsafe"
)

func declaredDouble(_ *Ctx, n int) int { return 2 * n }

// TestDeclaredSlotTakenByAnother: a declared function whose slot another
// took is found again in declaredAll, without reading its name, and gets
// its slot back; a closure never enters either.
func TestDeclaredSlotTakenByAnother(t *testing.T) {
	f := declaredDouble
	fv := funcValue(unsafe.Pointer(&f))
	checkDeclared(fv, "f")
	slot := declaredSlot(uintptr(fv))
	if atomic.LoadUintptr(slot) != uintptr(fv) {
		t.Fatal("a declared function is not in its slot after its check")
	}
	atomic.StoreUintptr(slot, 1) // another function's, say
	checkDeclared(fv, "f")
	if atomic.LoadUintptr(slot) != uintptr(fv) {
		t.Error("a declared function whose slot another took did not get it back")
	}
	n := 3
	g := func(_ *Ctx, m int) int { return m + n }
	gv := funcValue(unsafe.Pointer(&g))
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a closure passed the check")
			}
		}()
		checkDeclared(gv, "g")
	}()
	if _, ok := declaredAll.Load(uintptr(gv)); ok || atomic.LoadUintptr(declaredSlot(uintptr(gv))) == uintptr(gv) {
		t.Error("a closure was cached as declared")
	}
}

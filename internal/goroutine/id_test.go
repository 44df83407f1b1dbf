package goroutine

import (
	"sync"
	"testing"
)

func TestCurrentTellsGoroutinesApart(t *testing.T) {
	if !Supported {
		t.Skip("no goroutine identity on this architecture; the Ctx checks that use it are off")
	}
	here := Current()
	if here == 0 {
		t.Fatal("Current() = 0 on a supported architecture")
	}
	if again := Current(); again != here {
		t.Fatalf("Current() changed within one goroutine: %#x then %#x", here, again)
	}
	const n = 64
	ids := make([]uintptr, n)
	var recorded, exited sync.WaitGroup
	release := make(chan struct{})
	for i := range n {
		recorded.Add(1)
		exited.Add(1)
		go func() {
			defer exited.Done()
			ids[i] = Current()
			recorded.Done()
			<-release // alive until all have recorded: no descriptor is reused
		}()
	}
	recorded.Wait()
	close(release)
	exited.Wait()
	seen := map[uintptr]bool{here: true}
	for i, id := range ids {
		if seen[id] {
			t.Fatalf("goroutine %d has identity %#x, which another live goroutine has", i, id)
		}
		seen[id] = true
	}
}

func TestCurrentSurvivesStackGrowth(t *testing.T) {
	here := Current()
	var deep func(int) uintptr
	deep = func(n int) uintptr {
		var pad [256]byte
		if n == 0 {
			return Current() + uintptr(pad[0])
		}
		return deep(n - 1)
	}
	if got := deep(2000); got != here {
		t.Fatalf("Current() after the stack grew = %#x, want %#x", got, here)
	}
}

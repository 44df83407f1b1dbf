package transport

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkSeal: sealing and opening one frame, on one core, without the
// network.
func BenchmarkSeal(b *testing.B) {
	for _, size := range []int{256, 64 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("frame-%d", size), func(b *testing.B) {
			send, recv := testSealers()
			frame := make([]byte, headerLen+size, headerLen+size+sealTagLen)
			b.SetBytes(int64(size))
			for b.Loop() {
				putHeader(frame, flagSealed, size+sealTagLen)
				sealed, err := send.seal(frame[:headerLen+size])
				if err != nil {
					b.Fatal(err)
				}
				if _, err := recv.open(sealed[:headerLen], sealed[headerLen:]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTransportThroughput: messages of 64 KiB and 1 MiB,
// incompressible, from one transport to another over loopback until the
// receiver has them all, plain (keyless) and sealed (keyed). MaxFrame
// puts each message in a frame of its own, and compression is off.
// Bytes/s is the messages'.
func BenchmarkTransportThroughput(b *testing.B) {
	for _, size := range []int{64 << 10, 1 << 20} {
		for _, mode := range []struct {
			name string
			key  []byte
		}{{"plain", nil}, {"sealed", key1}} {
			b.Run(fmt.Sprintf("%s-%d", mode.name, size), func(b *testing.B) {
				var got atomicCounter
				quiet := slog.New(slog.DiscardHandler)
				cfg := Config{Key: mode.key, CompressThreshold: -1, MaxFrame: size + 16, Logger: quiet}
				rxCfg, txCfg := cfg, cfg
				rxCfg.Name, txCfg.Name = "rx", "tx"
				rx, err := Listen(rxCfg, func(string, *Message) { got.add() })
				if err != nil {
					b.Fatal(err)
				}
				defer rx.Close()
				tx, err := Listen(txCfg, func(string, *Message) {})
				if err != nil {
					b.Fatal(err)
				}
				defer tx.Close()
				m := &Message{Type: tData, Body: randBytes(rand.New(rand.NewPCG(1, 2)), size)}
				if err := tx.SendSync(rx.Addr(), m); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(size))
				n := int64(1)
				for b.Loop() {
					for tx.Send(rx.Addr(), m) != nil { // queue full: let it drain
						time.Sleep(100 * time.Microsecond)
					}
					n++
				}
				for got.load() < n {
					time.Sleep(100 * time.Microsecond)
				}
			})
		}
	}
}

package transport

import (
	"testing"
	"time"
)

// TestResumeWithinDerivation checks the derivation in keepalive.go: with
// TCP's own back-off a cut costs more than maxRTO after it ends (a 5 s cut
// 1.2 s more, a 7 s one 5.6 s), and with retransmissions capped at maxRTO
// no cut from half a second to a minute costs more than maxRTO.
func TestResumeWithinDerivation(t *testing.T) {
	for _, tc := range []struct{ cut, want time.Duration }{
		{5 * time.Second, 1200 * time.Millisecond},
		{7 * time.Second, 5600 * time.Millisecond},
		{15 * time.Second, 10400 * time.Millisecond},
	} {
		if got := resumeWithin(tc.cut, minRTO, maxBackoffRTO); got != tc.want {
			t.Errorf("uncapped: a %v cut resumes %v after it, want %v", tc.cut, got, tc.want)
		}
	}
	for cut := 500 * time.Millisecond; cut <= time.Minute; cut += 50 * time.Millisecond {
		if got := resumeWithin(cut, minRTO, maxRTO); got > maxRTO {
			t.Fatalf("capped at %v: a %v cut resumes %v after it", maxRTO, cut, got)
		}
	}
	if maxRTO > time.Second {
		t.Errorf("maxRTO %v: a 5 s cut may cost more than the cut plus 1 s", maxRTO)
	}
}

// TestUserTimeoutOutlastsLoss checks that a connection under heavy loss is
// not given up on: with maxRTO, going userTimeout without an
// acknowledgement takes a dozen losses of one segment in a row (1 in 10^12
// at 10 % loss); the test asks for at least 10.
func TestUserTimeoutOutlastsLoss(t *testing.T) {
	losses, at, rto := 0, time.Duration(0), minRTO
	for at < userTimeout {
		at += rto
		rto = min(2*rto, maxRTO)
		losses++
	}
	if losses < 10 {
		t.Fatalf("%d lost retransmissions in a row close a connection (userTimeout %v, maxRTO %v)", losses, userTimeout, maxRTO)
	}
	if keepIdle+userTimeout > 30*time.Second {
		t.Errorf("an idle connection to a vanished peer lives %v", keepIdle+userTimeout)
	}
}

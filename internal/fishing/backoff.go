package fishing

import "time"

// backoffs keeps a node from flooding peers that have nothing (doc.go,
// "The algorithm"): a peer that refused, or left a request unanswered,
// is not asked for RetryBackoff, doubled on every further refusal up to
// MaxBackoff, and an answer with tasks resets it. With IdleBackoff, while
// the node is idle (every worker waits, nothing is ready) the backoff
// doubles on past MaxBackoff; that growth is undone once a worker has
// work or the peer reports ready tasks (idle.go).
type backoffs struct {
	retry   time.Duration // Params.RetryBackoff; negative: none
	most    time.Duration // Params.MaxBackoff
	idleMax time.Duration // Params.IdleBackoff
	// idle: the last Tick found every worker waiting and nothing ready,
	// and no task came since.
	idle bool
}

// refused starts or doubles pr's backoff, up to MaxBackoff, or while the
// node is idle up to IdleBackoff.
func (b *backoffs) refused(pr *peer, now time.Time) {
	if b.retry < 0 {
		return
	}
	if pr.backoff == 0 {
		pr.backoff = b.retry
	} else {
		pr.backoff = min(2*pr.backoff, b.limit())
	}
	pr.refusedAt, pr.until = now, now.Add(pr.backoff)
}

// reset ends pr's backoff: it answered with tasks.
func (b *backoffs) reset(pr *peer) {
	pr.backoff, pr.until = 0, time.Time{}
}

// setIdle records whether the node's last load showed every worker
// waiting and nothing ready. When that ends, a worker here has work: the
// backoffs towards peers grown past MaxBackoff meanwhile are cut back, so
// that the node, hungry again, asks as soon as it would have without
// them.
func (b *backoffs) setIdle(idle bool, peers []*peer) {
	was := b.idle
	b.idle = idle
	if was && !idle {
		for _, pr := range peers {
			b.shorten(pr)
		}
	}
}

// limit is what a refusal may double a backoff to now: IdleBackoff
// while the node is idle (when set), else MaxBackoff.
func (b *backoffs) limit() time.Duration {
	if b.idle && b.idleMax > b.most {
		return b.idleMax
	}
	return b.most
}

// shorten undoes pr's backoff growth past MaxBackoff: it ends at most
// MaxBackoff after pr's last refusal.
func (b *backoffs) shorten(pr *peer) {
	if pr.backoff <= b.most {
		return
	}
	pr.backoff = b.most
	if end := pr.refusedAt.Add(b.most); end.Before(pr.until) {
		pr.until = end
	}
}

package advise

import "github.com/tsys-go/tsys/internal/balance"

// The fractions in Siegell and Steenkiste's rules.
const (
	// interactionShare is the largest share of a period that balancing's
	// own messages may take; the balancing policy chooses its period by it.
	interactionShare = balance.InteractionShare
	// quantaPerPeriod is how many scheduling quanta a period spans at
	// least: a loaded node's measured rate only settles over 5 to 10.
	quantaPerPeriod = 10
	// hookShare is the largest share of the work between two hooks
	// (spawns, polls) that a hook may cost.
	hookShare = 0.01
)

// BalancePeriod is Siegell and Steenkiste's balancing period, in seconds:
// long enough that one round of balancing's messages (interaction) costs
// at most 5% of it, that moving work (moveCost, in seconds per unit of
// work moved) pays at the rate work is done (workRate, units a second),
// and that it spans 10 scheduling quanta.
func BalancePeriod(interaction, moveCost, workRate, quantum float64) float64 {
	p := max(interaction/interactionShare, quantaPerPeriod*quantum)
	if workRate > 0 {
		p = max(p, moveCost/workRate)
	}
	return p
}

// MinGrain is the least work between two hooks, in seconds, for hooks of
// the given cost to stay under 1% of it.
func MinGrain(hookCost float64) float64 { return hookCost / hookShare }

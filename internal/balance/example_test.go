package balance_test

import (
	"fmt"

	"github.com/tsys-go/tsys/internal/balance"
)

// A period left to the policy is the default until a round of reports,
// one sent to each peer and one received from each, would take more than
// 5% of it; a period given is the period.
func ExampleParams_PeriodFor() {
	chosen := balance.Params{}
	fmt.Println(chosen.PeriodFor(3), chosen.PeriodFor(63), chosen.PeriodFor(1023))
	fmt.Println(balance.Params{Period: balance.DefaultPeriod}.PeriodFor(1023))
	// Output:
	// 5ms 25.2ms 409.2ms
	// 5ms
}

package monitor

import (
	_ "embed"
	"net/http"
)

// dashboardPage is the whole dashboard: one small page, no build step and
// no library, that polls /api/cluster about once a second.
//
//go:embed dashboard.html
var dashboardPage []byte

func dashboard(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(dashboardPage)
}

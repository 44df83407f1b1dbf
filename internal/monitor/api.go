package monitor

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// clusterTimeout is how long /api/cluster waits for the other nodes'
// answers: a node that does not answer in time is left out of that
// answer, so a dead or slow peer cannot stall the page.
const clusterTimeout = 300 * time.Millisecond

func (s *Server) apiNode(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, s.node.Snapshot())
}

func (s *Server) apiCluster(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, s.node.ClusterSnapshot(r.Context(), clusterTimeout))
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(v)
}

// Token is what a node with cluster key key asks of every request to a
// routable --http address (but /healthz): hex of HMAC-SHA256(key,
// "tsys http"), the same on every node of the cluster (tsys token prints
// it). Prometheus sends it as a bearer token (authorization: credentials
// in a scrape config); a browser passes it once as ?token=, which the
// dashboard keeps for its requests.
func Token(key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("tsys http"))
	return hex.EncodeToString(m.Sum(nil))
}

// requireToken lets through the requests that carry token, as
// "Authorization: Bearer TOKEN" or ?token=TOKEN.
func requireToken(token string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got := r.URL.Query().Get("token")
			if auth := r.Header.Get("Authorization"); strings.HasPrefix(auth, "Bearer ") {
				got = strings.TrimPrefix(auth, "Bearer ")
			}
			if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				http.Error(w, "this endpoint needs the cluster's token: tsys token --key-file FILE prints it; send it as \"Authorization: Bearer TOKEN\" or ?token=TOKEN", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

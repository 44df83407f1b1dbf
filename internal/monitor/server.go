package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tsys-go/tsys/internal/cluster"
)

// Node is what the server reads of the node it watches (cluster.Node).
// Every method must be safe to call from any goroutine at any time.
type Node interface {
	Name() string
	Members() []string
	Draining() bool
	Snapshot() cluster.Snapshot
	ClusterSnapshot(ctx context.Context, timeout time.Duration) []cluster.Snapshot
	// ClusterStream is ClusterSnapshot with each node's task stream of
	// the last window, drawn to res (cluster.Node.ClusterStream).
	ClusterStream(ctx context.Context, timeout, window, res time.Duration) []cluster.Snapshot
}

// Config configures a Server.
type Config struct {
	// Addr is HOST:PORT to listen on; a routable host needs Key.
	Addr string
	// Key is the node's cluster key, nil without one. On a routable Addr
	// every endpoint but /healthz asks for the token derived from it
	// (Token).
	Key    []byte
	Logger *slog.Logger
}

// Server is a node's HTTP endpoint.
type Server struct {
	node Node
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
}

// ErrRoutableWithoutKey refuses --http on a routable address for a node
// without a cluster key: the endpoints reveal the cluster.
var ErrRoutableWithoutKey = errors.New("a routable --http address needs a cluster key (--key-file); without one, use a loopback address such as 127.0.0.1:8080")

// CheckAddr is what Start refuses of an address, for a node with a
// cluster key (keyed) or without: a command checks its --http with it
// before it starts anything.
func CheckAddr(addr string, keyed bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want HOST:PORT: %w", addr, err)
	}
	if !keyed && !loopback(host) {
		return fmt.Errorf("--http %s: %w", addr, ErrRoutableWithoutKey)
	}
	return nil
}

// Start listens on cfg.Addr and serves node's endpoints until Close.
func Start(cfg Config, node Node) (*Server, error) {
	if err := CheckAddr(cfg.Addr, cfg.Key != nil); err != nil {
		return nil, err
	}
	host, _, _ := net.SplitHostPort(cfg.Addr)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("--http: %w", err)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	reg, err := registry(node)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("--http: the metrics registry: %w", err)
	}
	s := &Server{node: node, ln: ln, done: make(chan struct{})}
	guard := func(h http.Handler) http.Handler { return h }
	if !loopback(host) {
		guard = requireToken(Token(cfg.Key))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.Handle("GET /metrics", guard(promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)})))
	mux.Handle("GET /api/node", guard(http.HandlerFunc(s.apiNode)))
	mux.Handle("GET /api/cluster", guard(http.HandlerFunc(s.apiCluster)))
	mux.Handle("GET /api/stream", guard(http.HandlerFunc(s.apiStream)))
	mux.Handle("/debug/pprof/", guard(http.HandlerFunc(pprof.Index)))
	mux.Handle("/debug/pprof/cmdline", guard(http.HandlerFunc(pprof.Cmdline)))
	mux.Handle("/debug/pprof/profile", guard(http.HandlerFunc(pprof.Profile)))
	mux.Handle("/debug/pprof/symbol", guard(http.HandlerFunc(pprof.Symbol)))
	mux.Handle("/debug/pprof/trace", guard(http.HandlerFunc(pprof.Trace)))
	mux.Handle("GET /{$}", guard(http.HandlerFunc(dashboard)))
	s.srv = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelDebug),
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("the --http server stopped", "err", err)
		}
	}()
	return s, nil
}

// Addr is where the server listens.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server: open connections get a second to finish.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = s.srv.Close()
	}
	<-s.done
	return err
}

// health is /healthz's answer.
type health struct {
	Status  string `json:"status"` // "ready" or "draining"
	Node    string `json:"node"`
	Members int    `json:"members"`
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	h := health{Status: "ready", Node: s.node.Name(), Members: len(s.node.Members())}
	code := http.StatusOK
	if s.node.Draining() {
		h.Status, code = "draining", http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(h)
}

// loopback says whether host names this machine only.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

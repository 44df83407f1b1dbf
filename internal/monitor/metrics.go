package monitor

import (
	"strconv"
	"sync"

	"github.com/hashicorp/go-metrics"
	gmprom "github.com/hashicorp/go-metrics/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/tsys-go/tsys/internal/cluster"
	"github.com/tsys-go/tsys/internal/sched"
)

// collector turns the node's Snapshot into Prometheus metrics at each
// scrape. The node's job counters start from zero at every job; the
// collector keeps them monotonic (accumulator), as Prometheus counters
// should be.
type collector struct {
	node Node
	acc  accumulator
}

// metric is one family: its description and how to read it.
type metric struct {
	desc *prometheus.Desc
	kind prometheus.ValueType
}

func newMetric(name, help string, kind prometheus.ValueType, labels ...string) metric {
	return metric{prometheus.NewDesc("tsys_"+name, help, labels, nil), kind}
}

// workerCounters are the per-worker counters, from sched.Stats.
var workerCounters = []struct {
	m   metric
	get func(s *sched.Stats) float64
}{
	{newMetric("spawns_total", "Spawns made by the worker, inlined or not.", prometheus.CounterValue, "node", "worker"), func(s *sched.Stats) float64 { return float64(s.Spawns) }},
	{newMetric("inlined_total", "Spawns that ran as a direct call (load-based inlining).", prometheus.CounterValue, "node", "worker"), func(s *sched.Stats) float64 { return float64(s.Inlined) }},
	{newMetric("tasks_run_total", "Task frames the worker ran to completion.", prometheus.CounterValue, "node", "worker"), func(s *sched.Stats) float64 { return float64(s.TasksRun) }},
	{newMetric("steal_attempts_total", "Attempts to steal from another worker of the node.", prometheus.CounterValue, "node", "worker"), func(s *sched.Stats) float64 { return float64(s.StealAttempts) }},
	{newMetric("steals_total", "Tasks the worker stole from another worker of the node.", prometheus.CounterValue, "node", "worker"), func(s *sched.Stats) float64 { return float64(s.LocalSteals) }},
	{newMetric("stolen_from_total", "Tasks other workers or nodes took from the worker's deque (steals suffered).", prometheus.CounterValue, "node", "worker"), func(s *sched.Stats) float64 { return float64(s.StolenFrom) }},
	{newMetric("busy_seconds_total", "Time the worker held work during jobs.", prometheus.CounterValue, "node", "worker"), func(s *sched.Stats) float64 { return float64(s.BusyNanos) / 1e9 }},
	{newMetric("idle_seconds_total", "Time the worker looked for work or was parked during jobs.", prometheus.CounterValue, "node", "worker"), func(s *sched.Stats) float64 { return float64(s.IdleNanos) / 1e9 }},
}

// nodeCounters are the node's network counters of a job, from
// cluster.NetStats.
var nodeCounters = []struct {
	m   metric
	get func(s *cluster.NetStats) float64
}{
	{newMetric("tasks_lent_total", "Tasks lent to other nodes.", prometheus.CounterValue, "node"), func(s *cluster.NetStats) float64 { return float64(s.TasksSent) }},
	{newMetric("tasks_borrowed_total", "Tasks borrowed from other nodes.", prometheus.CounterValue, "node"), func(s *cluster.NetStats) float64 { return float64(s.TasksReceived) }},
	{newMetric("steal_requests_total", "Requests for work sent to other nodes.", prometheus.CounterValue, "node"), func(s *cluster.NetStats) float64 { return float64(s.StealRequests) }},
	{newMetric("steal_answers_total", "Answers to those requests, with tasks or without.", prometheus.CounterValue, "node"), func(s *cluster.NetStats) float64 { return float64(s.StealAnswers) }},
	{newMetric("tasks_rerun_total", "Lent tasks run again here because their borrower died, was silent too long, or no longer held them.", prometheus.CounterValue, "node"), func(s *cluster.NetStats) float64 { return float64(s.TasksRerun) }},
	{newMetric("late_results_total", "Results of lent tasks that had already run again here (their borrower was only slow); dropped.", prometheus.CounterValue, "node"), func(s *cluster.NetStats) float64 { return float64(s.LateResults) }},
	{newMetric("backups_total", "Lent tasks started again here because their borrower had said nothing for a while (cut off, stopped); the first result wins.", prometheus.CounterValue, "node"), func(s *cluster.NetStats) float64 { return float64(s.Backups) }},
	{newMetric("tasks_returned_total", "Lent tasks handed back unstarted.", prometheus.CounterValue, "node"), func(s *cluster.NetStats) float64 { return float64(s.TasksReturned) }},
	{newMetric("status_messages_total", "Load reports sent to other nodes (balancing schedulers).", prometheus.CounterValue, "node"), func(s *cluster.NetStats) float64 { return float64(s.StatusSent) }},
	{newMetric("useful_seconds_total", "Busy time the CPU really ran, measured each tick.", prometheus.CounterValue, "node"), func(s *cluster.NetStats) float64 { return float64(s.UsefulNs) / 1e9 }},
}

var (
	mMessages      = newMetric("messages_sent_total", "Messages sent to other nodes, by type.", prometheus.CounterValue, "node", "type")
	mMessageBytes  = newMetric("message_bytes_sent_total", "Body bytes of the messages sent to other nodes, by type.", prometheus.CounterValue, "node", "type")
	mFrameBytes    = newMetric("transport_bytes_total", "Frame bytes on the task transport, headers included.", prometheus.CounterValue, "node", "direction")
	mTransportErrs = newMetric("transport_errors_total", "Task transport failures: dial (outbound connections that failed), rejected (inbound refused by the handshake), over_budget (inbound refused before it: their source address, or the node, had too many in the handshake), protocol (connections closed for a bad frame), dropped (messages lost with a failed connection).", prometheus.CounterValue, "node", "kind")
	mJobs          = newMetric("jobs_total", "Jobs this node served or was the root of.", prometheus.CounterValue, "node")
	mJobsRunning   = newMetric("jobs_running", "Jobs this node serves now.", prometheus.GaugeValue, "node")
	mReady         = newMetric("ready_tasks", "Ready tasks in the node's deques and injected queue.", prometheus.GaugeValue, "node")
	mIdle          = newMetric("idle_workers", "Workers parked for want of work.", prometheus.GaugeValue, "node")
	mWorkers       = newMetric("workers", "Workers of the node.", prometheus.GaugeValue, "node")
	mMembers       = newMetric("members", "Live members of the cluster as this node sees them, itself included.", prometheus.GaugeValue, "node")
	mDraining      = newMetric("draining", "1 while the node drains (tsys drain, SIGTERM).", prometheus.GaugeValue, "node")
	mRate          = newMetric("useful_rate", "Useful worker-seconds per second, filtered over about 200 ms.", prometheus.GaugeValue, "node")
	mJobWorkers    = newMetric("job_workers", "Workers the node's sharing policy (--share) lets run each job's tasks now.", prometheus.GaugeValue, "node", "job_id", "root")
	mJobActive     = newMetric("job_active", "1 while the node takes part in the job (0: its sharing policy gave the node to another job).", prometheus.GaugeValue, "node", "job_id", "root")
)

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, w := range workerCounters {
		ch <- w.m.desc
	}
	for _, n := range nodeCounters {
		ch <- n.m.desc
	}
	for _, m := range []metric{mMessages, mMessageBytes, mFrameBytes, mTransportErrs, mJobs, mJobsRunning, mReady, mIdle, mWorkers, mMembers, mDraining, mRate, mJobWorkers, mJobActive} {
		ch <- m.desc
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s := c.node.Snapshot()
	node := s.Node
	emit := func(m metric, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(m.desc, m.kind, v, labels...)
	}
	// counter emits a counter that starts from zero at every run.
	counter := func(m metric, v float64, labels ...string) {
		emit(m, c.acc.total(s.Run, m.desc.String(), labels, v), labels...)
	}
	for i := range s.Workers {
		w := strconv.Itoa(i)
		for _, wc := range workerCounters {
			counter(wc.m, wc.get(&s.Workers[i]), node, w)
		}
	}
	for _, nc := range nodeCounters {
		counter(nc.m, nc.get(&s.Net), node)
	}
	for name, sent := range s.Sent {
		emit(mMessages, float64(sent.Messages), node, name)
		emit(mMessageBytes, float64(sent.Bytes), node, name)
	}
	t := s.Transport
	emit(mFrameBytes, float64(t.BytesSent), node, "sent")
	emit(mFrameBytes, float64(t.BytesReceived), node, "received")
	emit(mTransportErrs, float64(t.DialFailures), node, "dial")
	emit(mTransportErrs, float64(t.RejectedConns), node, "rejected")
	emit(mTransportErrs, float64(t.OverBudgetConns), node, "over_budget")
	emit(mTransportErrs, float64(t.ProtocolErrors), node, "protocol")
	emit(mTransportErrs, float64(t.DroppedMessages), node, "dropped")
	running := float64(len(s.Jobs))
	for _, j := range s.Jobs {
		active := 0.0
		if j.Active {
			active = 1
		}
		emit(mJobWorkers, float64(j.Workers), node, j.Job, j.Root)
		emit(mJobActive, active, node, j.Job, j.Root)
	}
	draining := 0.0
	if s.Draining {
		draining = 1
	}
	emit(mJobs, float64(s.JobsTotal), node)
	emit(mJobsRunning, running, node)
	emit(mReady, float64(s.Ready), node)
	emit(mIdle, float64(s.Idle), node)
	emit(mWorkers, float64(len(s.Workers)), node)
	emit(mMembers, float64(s.Members), node)
	emit(mDraining, draining, node)
	emit(mRate, s.Rate, node)
}

// accumulator keeps counters that restart at every run of the pool
// monotonic: the total of a series is what the runs before the current one
// counted, plus the current run's count. Within a run a count never goes
// down: a reading lower than the last (two atomics read a moment apart,
// or the counters of a run about to start) keeps the last. What a run
// counted after the last scrape before the next run began is not seen.
type accumulator struct {
	mu     sync.Mutex
	series map[string]*series
}

type series struct {
	run        uint64
	last, past float64
}

// total records v as the value of the series named by metric and labels
// in run, and returns its total over every run seen.
func (a *accumulator) total(run uint64, metric string, labels []string, v float64) float64 {
	key := metric
	for _, l := range labels {
		key += "\x00" + l
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.series == nil {
		a.series = map[string]*series{}
	}
	s := a.series[key]
	if s == nil {
		s = &series{run: run}
		a.series[key] = s
	}
	if run != s.run {
		// A new run: its counters started from zero.
		s.past += s.last
		s.last = 0
		s.run = run
	}
	s.last = max(s.last, v)
	return s.past + s.last
}

// memberlistSink carries memberlist's own metrics (it reports through
// hashicorp/go-metrics) into Prometheus; one per process, since
// go-metrics' sink is global.
var memberlistSink = sync.OnceValues(func() (*gmprom.PrometheusSink, error) {
	sink, err := gmprom.NewPrometheusSinkFrom(gmprom.PrometheusOpts{Registerer: prometheus.NewRegistry(), Name: "tsys_memberlist"})
	if err != nil {
		return nil, err
	}
	conf := metrics.DefaultConfig("")
	conf.EnableHostname, conf.EnableRuntimeMetrics, conf.EnableServiceLabel = false, false, false
	if _, err := metrics.NewGlobal(conf, sink); err != nil {
		return nil, err
	}
	return sink, nil
})

// registry makes the registry a server serves: the node's metrics, the Go
// runtime's and the process's, and memberlist's.
func registry(node Node) (*prometheus.Registry, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(&collector{node: node}, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	sink, err := memberlistSink()
	if err != nil {
		return nil, err
	}
	if err := reg.Register(sink); err != nil {
		return nil, err
	}
	return reg, nil
}

// Prometheus metrics at /metrics, one registry per app. Farm counters are
// read from PostgreSQL and Redis at scrape time (the database is the source
// of truth, so any number of coordinators report the same values); job
// latency is a histogram fed with the jobs that finished since the previous
// scrape; HTTP request durations are observed by an onResponse hook.
import fp from "fastify-plugin";
import type { FastifyInstance } from "fastify";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { farmTotals, jobsFinishedSince } from "@fuzzfarm/db";
import { queueDepths } from "@fuzzfarm/queue";

const LATENCY_BUCKETS = [0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800];

async function metricsRoutes(app: FastifyInstance) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "fuzzfarm_web_" });

  const execs = new Counter({ name: "fuzzfarm_execs_total", help: "Target executions, per campaign", labelNames: ["campaign"], registers: [registry] });
  const campaigns = new Gauge({ name: "fuzzfarm_campaigns", help: "Campaigns by status", labelNames: ["status"], registers: [registry] });
  const jobsDone = new Counter({ name: "fuzzfarm_campaign_jobs_total", help: "Jobs applied, per campaign", labelNames: ["campaign"], registers: [registry] });
  const covered = new Gauge({ name: "fuzzfarm_campaign_covered", help: "Coverage features found, per campaign", labelNames: ["campaign"], registers: [registry] });
  const corpus = new Gauge({ name: "fuzzfarm_campaign_corpus_size", help: "Corpus entries, per campaign", labelNames: ["campaign"], registers: [registry] });
  const crashes = new Counter({ name: "fuzzfarm_crashes_total", help: "Crash hits recorded, by bucket kind and status", labelNames: ["kind", "status"], registers: [registry] });
  const buckets = new Gauge({ name: "fuzzfarm_buckets", help: "Crash buckets (not merged away), by kind and status", labelNames: ["kind", "status"], registers: [registry] });
  const jobs = new Gauge({ name: "fuzzfarm_jobs", help: "Job rows by status", labelNames: ["status"], registers: [registry] });
  const depth = new Gauge({ name: "fuzzfarm_queue_depth", help: "BullMQ jobs by queue and state", labelNames: ["queue", "state"], registers: [registry] });
  const latency = new Histogram({ name: "fuzzfarm_job_latency_seconds", help: "Queued-to-finished time of jobs", buckets: LATENCY_BUCKETS, registers: [registry] });
  const busy = new Histogram({ name: "fuzzfarm_job_busy_seconds", help: "Engine time of finished jobs", buckets: LATENCY_BUCKETS, registers: [registry] });
  const http = new Histogram({
    name: "fuzzfarm_http_request_duration_seconds",
    help: "Dashboard / API request durations",
    labelNames: ["method", "route", "status"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  // Counters mirror database totals: reset and set to the current value (they only grow in the database).
  const setCounter = (c: Counter<string>, labels: Record<string, string>, v: number) => c.inc(labels, Math.max(0, v));
  let watermark = new Date(Date.now() - 3600_000);

  let scraping: Promise<unknown> = Promise.resolve();
  async function refresh() {
    const [t, d, finished] = await Promise.all([farmTotals(app.ff.db), queueDepths(app.ff.queues), jobsFinishedSince(app.ff.db, watermark)]);
    for (const m of [execs, jobsDone, crashes]) m.reset();
    for (const m of [covered, corpus, buckets, jobs, depth, campaigns]) m.reset();
    for (const c of t.campaigns) {
      setCounter(execs, { campaign: c.id }, c.execs);
      campaigns.inc({ status: c.status });
      setCounter(jobsDone, { campaign: c.id }, c.jobsDone);
      covered.set({ campaign: c.id }, c.covered);
      corpus.set({ campaign: c.id }, c.corpusSize);
    }
    for (const b of t.buckets) {
      setCounter(crashes, { kind: b.kind, status: b.status }, b.crashes);
      buckets.set({ kind: b.kind, status: b.status }, b.buckets);
    }
    for (const j of t.jobs) jobs.set({ status: j.status }, j.count);
    for (const [queue, counts] of Object.entries(d)) for (const [state, n] of Object.entries(counts)) depth.set({ queue, state }, n);
    for (const f of finished) {
      if (f.status === "done") {
        latency.observe(f.latencyMs / 1000);
        busy.observe(f.busyMs / 1000);
      }
      if (f.finishedAt > watermark) watermark = f.finishedAt;
    }
  }

  app.addHook("onResponse", async (req, reply) => {
    const route = req.routeOptions.url ?? "unmatched";
    if (route === "/metrics") return;
    http.observe({ method: req.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });

  app.get("/metrics", {
    schema: { tags: ["metrics"], summary: "Prometheus metrics (text exposition format)", produces: ["text/plain"] },
    handler: async (_req, reply) => {
      // Scrapes run one at a time, so the latency histogram sees each finished job once.
      const run = scraping.then(async () => {
        await refresh();
        return registry.metrics();
      });
      scraping = run.catch(() => "");
      return reply.type(registry.contentType).send(await run);
    },
  });
}

// Registered with fastify-plugin so the onResponse hook sees every route of the app.
export default fp(metricsRoutes, { name: "ff-metrics", dependencies: ["ff-services"] });

/** The server's Prometheus metrics (`/metrics`): requests, the queue, build cache hits, durations. */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { BuildSlots } from './slots';

export interface ServeMetrics {
  registry: Registry;
  requests: Counter<'endpoint' | 'code'>;
  results: Counter<'endpoint' | 'status'>;
  cacheHits: Counter;
  cacheMisses: Counter;
  duration: Histogram<'endpoint'>;
  cancelled: Counter;
}

export function serveMetrics(slots: BuildSlots): ServeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'chorus_serve_process_' });
  const requests = new Counter({
    name: 'chorus_serve_requests_total',
    help: 'HTTP requests answered, by endpoint and status code (429: queue full, 413: body too large).',
    labelNames: ['endpoint', 'code'] as const,
    registers: [registry],
  });
  const results = new Counter({
    name: 'chorus_serve_results_total',
    help: 'Measured testbenches by run status (ok, compile_error, sim_error, timeout, rejected, resource_limit, no_code).',
    labelNames: ['endpoint', 'status'] as const,
    registers: [registry],
  });
  const cacheHits = new Counter({
    name: 'chorus_serve_build_cache_hits_total',
    help: 'Builds whose simulator came from the shared build cache.',
    registers: [registry],
  });
  const cacheMisses = new Counter({
    name: 'chorus_serve_build_cache_misses_total',
    help: 'Builds that compiled a simulator.',
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'chorus_serve_request_duration_seconds',
    help: 'Wall-clock time of a measured request, queue wait included.',
    labelNames: ['endpoint'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
    registers: [registry],
  });
  const cancelled = new Counter({
    name: 'chorus_serve_cancelled_total',
    help: 'Requests whose client went away before the answer: their build or run was stopped.',
    registers: [registry],
  });
  // Read when scraped: the queue length is what an autoscaler (KEDA, the Prometheus adapter) scales on.
  new Gauge({
    name: 'chorus_serve_queue_length',
    help: 'Requests waiting for a build slot.',
    registers: [registry],
    collect() {
      this.set(slots.queued);
    },
  });
  new Gauge({
    name: 'chorus_serve_slots_in_use',
    help: 'Build slots held by a request now.',
    registers: [registry],
    collect() {
      this.set(slots.inUse);
    },
  });
  new Gauge({
    name: 'chorus_serve_slots',
    help: 'Build slots configured.',
    registers: [registry],
    collect() {
      this.set(slots.slots);
    },
  });
  return { registry, requests, results, cacheHits, cacheMisses, duration, cancelled };
}

import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

interface RouteSeries {
  count: { inc(): void };
  latency: { observe(value: number): void };
}

/** One registry per app instance, so tests that build several apps do not share counters. */
export class Metrics {
  readonly registry = new Registry();
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly latency: Histogram<'method' | 'route'>;
  readonly credits: Counter<'operation_id'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.credits = new Counter({
      name: 'credits_charged_total',
      help: 'Credits charged (after refunds) by operation',
      labelNames: ['operation_id'],
      registers: [this.registry],
    });
  }

  // Label sets are few (routes × statuses); their series are looked up once, not hashed per request.
  readonly #series = new Map<string, RouteSeries>();

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const id = `${method} ${route} ${status}`;
    let series = this.#series.get(id);
    if (!series) {
      series = { count: this.requests.labels(method, route, String(status)), latency: this.latency.labels(method, route) };
      this.#series.set(id, series);
    }
    series.count.inc();
    series.latency.observe(seconds);
  }
}

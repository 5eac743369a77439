import { Registry, collectDefaultMetrics, type Metric } from 'prom-client';

/** Upper bounds, in seconds, of the request latency histogram's buckets. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

interface RouteSeries {
  method: string;
  route: string;
  /** Responses by status code. */
  statuses: Map<number, number>;
  /** Observations per bucket, not cumulative (index LATENCY_BUCKETS.length is +Inf). */
  buckets: Float64Array;
  sum: number;
  count: number;
}

interface MetricValue {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/**
 * The request and credit series are kept here, in plain counters, and handed to prom-client only
 * when /metrics is scraped. prom-client validates and hashes the label set on every observe(),
 * a few microseconds per request on the hot path; here an observation is two map lookups and
 * three additions. The text format is still prom-client's (with its default process metrics),
 * through custom metrics it renders like its own.
 */
export class Metrics {
  /** One registry per app instance, so tests that build several apps do not share counters. */
  readonly registry = new Registry();
  readonly #routes = new Map<string, Map<string, RouteSeries>>();
  readonly #credits = new Map<string, number>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.#register('http_requests_total', 'HTTP requests by route and status', 'counter', () => this.#requestValues());
    this.#register('http_request_duration_seconds', 'HTTP request latency by route', 'histogram', () => this.#latencyValues());
    this.#register('credits_charged_total', 'Credits charged (after refunds) by operation', 'counter', () =>
      [...this.#credits].map(([operationId, value]) => ({ labels: { operation_id: operationId }, value })),
    );
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    let byRoute = this.#routes.get(method);
    if (!byRoute) this.#routes.set(method, (byRoute = new Map()));
    let series = byRoute.get(route);
    if (!series) byRoute.set(route, (series = { method, route, statuses: new Map(), buckets: new Float64Array(LATENCY_BUCKETS.length + 1), sum: 0, count: 0 }));
    series.statuses.set(status, (series.statuses.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket++;
    series.buckets[bucket]! += 1;
    series.sum += seconds;
    series.count += 1;
  }

  chargeCredits(operationId: string, credits: number): void {
    this.#credits.set(operationId, (this.#credits.get(operationId) ?? 0) + credits);
  }

  *#allSeries(): Iterable<RouteSeries> {
    for (const byRoute of this.#routes.values()) yield* byRoute.values();
  }

  #requestValues(): MetricValue[] {
    const values: MetricValue[] = [];
    for (const s of this.#allSeries()) {
      for (const [status, value] of s.statuses) values.push({ labels: { method: s.method, route: s.route, status: String(status) }, value });
    }
    return values;
  }

  #latencyValues(): MetricValue[] {
    const name = 'http_request_duration_seconds';
    const values: MetricValue[] = [];
    for (const s of this.#allSeries()) {
      let cumulative = 0;
      for (let i = 0; i <= LATENCY_BUCKETS.length; i++) {
        cumulative += s.buckets[i]!;
        const le = i < LATENCY_BUCKETS.length ? LATENCY_BUCKETS[i]! : '+Inf';
        values.push({ metricName: `${name}_bucket`, labels: { le, method: s.method, route: s.route }, value: cumulative });
      }
      values.push({ metricName: `${name}_sum`, labels: { method: s.method, route: s.route }, value: s.sum });
      values.push({ metricName: `${name}_count`, labels: { method: s.method, route: s.route }, value: s.count });
    }
    return values;
  }

  #register(name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue[]): void {
    // prom-client renders any registered object whose get() answers in its own shape.
    const metric = { name, help, type, get: () => ({ name, help, type, values: values(), aggregator: 'sum' }) };
    this.registry.registerMetric(metric as unknown as Metric);
  }
}

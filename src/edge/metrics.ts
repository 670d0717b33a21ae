/** @module Prometheus metrics of one service: requests, latency, group commits, queue depth, rate limiting, webhooks, process (prom-client). */

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { Runtime } from '../actor/runtime.js'
import type { LabeledRoute } from '../api/route.js'

export interface MetricsOptions {
  /** The largest group commit, so the batch-size buckets reach it. */
  readonly groupCommitRecordsMax: number
  readonly eventLoopLagResolutionMs: number
}

/** The status recorded for a client that went away before its answer (nginx's "client closed request"). */
export const abortedStatus = 499

const unmatchedRoute: LabeledRoute = { method: '*', pattern: 'unmatched' }

/** Seconds; from a fast read (sub-millisecond) to a request stuck behind a slow disk. */
const requestDurationBucketsSeconds = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** Seconds; an fsync takes from tens of microseconds (cache-backed) to a second (a struggling disk). */
const commitDurationBucketsSeconds = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

function powersOfTwoUpTo(max: number): number[] {
  const buckets: number[] = []
  for (let bound = 1; bound < max; bound *= 2) buckets.push(bound)
  buckets.push(max)
  return buckets
}

/**
 * The label children of one route, resolved once. Observing a request then costs prom-client's label
 * lookup (the hash of the label values) and nothing else; its series exist, at 0, from start-up on.
 */
class RouteInstruments {
  readonly #requests: Counter<'method' | 'route' | 'status'>
  readonly #route: LabeledRoute
  readonly #byStatus = new Map<number, Counter.Internal>()
  readonly duration: Histogram.Internal<'method' | 'route'>

  constructor(requests: Counter<'method' | 'route' | 'status'>, duration: Histogram<'method' | 'route'>, route: LabeledRoute) {
    this.#requests = requests
    this.#route = route
    this.duration = duration.labels(route.method, route.pattern)
    duration.zero({ method: route.method, route: route.pattern })
  }

  /**
   * The child of one status, resolved the first time the route answers with it. Statuses are few (those
   * of the error catalogue), so the map stays small and every later request is a lookup by number.
   */
  counter(status: number): Counter.Internal {
    let child = this.#byStatus.get(status)
    if (child === undefined) {
      child = this.#requests.labels(this.#route.method, this.#route.pattern, String(status))
      this.#byStatus.set(status, child)
    }
    return child
  }
}

/** One registry per service (never prom-client's global one), so services in one process do not mix. */
export class Metrics {
  readonly registry = new Registry()
  readonly #requests: Counter<'method' | 'route' | 'status'>
  readonly #duration: Histogram<'method' | 'route'>
  readonly #routes = new Map<LabeledRoute, RouteInstruments>()
  readonly #unmatched: RouteInstruments
  readonly #commitRecords: Histogram
  readonly #commitDuration: Histogram
  readonly #rateLimited: Counter<'workspace' | 'bucket'>
  readonly #loggerLinesDropped: Counter
  readonly #webhookAttempts: Counter<'result'>
  readonly #webhookFailures: Counter

  constructor(options: MetricsOptions) {
    const registers = [this.registry]
    // RSS, heap, event-loop lag, GC, handles: prom-client's process and Node.js collectors, unprefixed
    // so that the usual dashboards find them.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: options.eventLoopLagResolutionMs })
    this.#requests = new Counter({ name: 'trueup_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status (499: the client went away first)', labelNames: ['method', 'route', 'status'], registers })
    this.#duration = new Histogram({ name: 'trueup_http_request_duration_seconds', help: 'Time from the request to its answer (including the wait for the log flush), by method and route pattern', labelNames: ['method', 'route'], buckets: requestDurationBucketsSeconds, registers })
    this.#commitRecords = new Histogram({ name: 'trueup_log_commit_records', help: 'Log records per group commit (one transaction and one fsync)', buckets: powersOfTwoUpTo(options.groupCommitRecordsMax), registers })
    this.#commitDuration = new Histogram({ name: 'trueup_log_commit_duration_seconds', help: 'Time of one group commit, from the start of its transaction to the end of its fsync', buckets: commitDurationBucketsSeconds, registers })
    this.#rateLimited = new Counter({ name: 'trueup_rate_limited_total', help: 'Requests refused with 429, by workspace and bucket (reads or writes)', labelNames: ['workspace', 'bucket'], registers })
    this.#loggerLinesDropped = new Counter({ name: 'trueup_logger_lines_dropped_total', help: 'JSON log lines dropped because stdout was slower than the log buffer allowed', registers })
    this.#webhookAttempts = new Counter({ name: 'trueup_webhook_attempts_total', help: 'Webhook delivery attempts by result: succeeded (2xx), http_error (any other status), network_error (no answer, timeout)', labelNames: ['result'], registers })
    for (const result of ['succeeded', 'http_error', 'network_error']) this.#webhookAttempts.labels(result)
    this.#webhookFailures = new Counter({ name: 'trueup_webhook_deliveries_failed_total', help: 'Webhook events given up on after the retry window (status failed)', registers })
    this.#unmatched = new RouteInstruments(this.#requests, this.#duration, unmatchedRoute)
  }

  get contentType(): string {
    return this.registry.contentType
  }

  /** Resolves the label children of these routes now, so the first request of each allocates nothing either. */
  addRoutes(routes: Iterable<LabeledRoute>): void {
    for (const route of routes) {
      if (!this.#routes.has(route)) this.#routes.set(route, new RouteInstruments(this.#requests, this.#duration, route))
    }
  }

  observeRequest(route: LabeledRoute | null, status: number, durationMs: number): void {
    let instruments = route === null ? this.#unmatched : this.#routes.get(route)
    if (instruments === undefined) {
      // A route added to a table after start-up: resolve once, then it is as cheap as the others.
      this.addRoutes([route!])
      instruments = this.#routes.get(route!)!
    }
    instruments.counter(status).inc()
    instruments.duration.observe(durationMs / 1000)
  }

  /** CommandLogOptions.onCommit: after each group commit is on disk. */
  observeCommit(records: number, durationMs: number): void {
    this.#commitRecords.observe(records)
    this.#commitDuration.observe(durationMs / 1000)
  }

  observeRateLimited(workspace: string, bucket: 'reads' | 'writes'): void {
    this.#rateLimited.labels(workspace, bucket).inc()
  }

  observeLoggerLineDropped(): void {
    this.#loggerLinesDropped.inc()
  }

  observeWebhookAttempt(result: 'succeeded' | 'http_error' | 'network_error'): void {
    this.#webhookAttempts.labels(result).inc()
  }

  observeWebhookGiveUp(): void {
    this.#webhookFailures.inc()
  }

  /** Gauges read from the runtime when scraped, so the request path pays nothing for them. */
  trackRuntime(runtime: Runtime): void {
    const registers = [this.registry]
    new Gauge({
      name: 'trueup_log_pending_records', help: 'Log records appended but not yet durable (the group commit queue)', registers,
      collect() { this.set(runtime.pendingRecords) },
    })
    new Gauge({
      name: 'trueup_actor_queue_depth_records',
      help: 'Per workspace: log records that must still become durable before its latest answer can be sent (last applied seq − durable seq)',
      labelNames: ['workspace'], registers,
      collect() {
        this.reset()
        const durableSeq = runtime.durableSeq
        for (const actor of runtime.actors.values()) this.set({ workspace: actor.id }, Math.max(0, actor.lastAppliedSeq - durableSeq))
      },
    })
    new Gauge({
      name: 'trueup_webhook_outbox_items', help: 'Webhook deliveries not yet done (one per event and subscription): the outbox depth', registers,
      collect() { this.set(runtime.outboxItems()) },
    })
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics()
  }
}

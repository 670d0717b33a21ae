/** @module Prometheus metrics of one service: requests, latency, group commits, queue depth, rate limiting, webhooks, process (prom-client). */

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { DurationHistogram, type DurationSeries } from './request-durations.js'
import type { Shard } from '../shard/operation.js'
import type { LabeledRoute } from '../api/route.js'

export interface MetricsOptions {
  /** The largest group commit, so the batch-size buckets reach it. */
  readonly groupCommitRecordsMax: number
  readonly eventLoopLagResolutionMs: number
  /** prom-client's process and Node.js collectors (default true); off for an edge on a shard's thread, whose scrape takes the main thread's. */
  readonly processMetrics?: boolean
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
 * The instruments of one route, resolved once: a request adds to plain numbers (its status's count, a
 * duration bucket), and the scrape folds them into prom-client (docs/PERFORMANCE.md: prom-client's
 * label hashing per request was about a microsecond of a 20 µs read). Its series exist, at 0, from
 * start-up on.
 */
class RouteInstruments {
  readonly #requests: Counter<'method' | 'route' | 'status'>
  readonly #route: LabeledRoute
  /** Requests answered per status since the last scrape. Statuses are few (those of the error catalogue). */
  readonly #pending = new Map<number, { count: number }>()
  readonly duration: DurationSeries

  constructor(requests: Counter<'method' | 'route' | 'status'>, duration: DurationHistogram, route: LabeledRoute) {
    this.#requests = requests
    this.#route = route
    this.duration = duration.series({ method: route.method, route: route.pattern })
  }

  count(status: number): void {
    const pending = this.#pending.get(status)
    if (pending === undefined) this.#pending.set(status, { count: 1 })
    else pending.count += 1
  }

  /** On scrape: the counts since the last one, into the counter (its series appear with their first request). */
  fold(): void {
    for (const [status, pending] of this.#pending) {
      if (pending.count === 0) continue
      this.#requests.inc({ method: this.#route.method, route: this.#route.pattern, status: String(status) }, pending.count)
      pending.count = 0
    }
  }
}

/** One registry per service (never prom-client's global one), so services in one process do not mix. */
export class Metrics {
  readonly registry = new Registry()
  readonly #requests: Counter<'method' | 'route' | 'status'>
  readonly #duration: DurationHistogram
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
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: options.eventLoopLagResolutionMs })
    const routes = this.#routes
    const unmatched = (): RouteInstruments => this.#unmatched
    this.#requests = new Counter({
      name: 'trueup_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status (499: the client went away first)', labelNames: ['method', 'route', 'status'], registers,
      collect() {
        unmatched().fold()
        for (const instruments of routes.values()) instruments.fold()
      },
    })
    this.#duration = new DurationHistogram({ name: 'trueup_http_request_duration_seconds', help: 'Time from the request to its answer (including the wait for the log flush), by method and route pattern', buckets: requestDurationBucketsSeconds, registers })
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
    instruments.count(status)
    DurationHistogram.observe(instruments.duration, requestDurationBucketsSeconds, durationMs / 1000)
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

  /** Gauges read from the shard when scraped, so the request path pays nothing for them. */
  trackShard(shard: Pick<Shard, 'stats'>): void {
    const registers = [this.registry]
    new Gauge({
      name: 'trueup_log_pending_records', help: 'Log records appended but not yet durable (the group commit queue)', registers,
      async collect() { this.set((await shard.stats()).pendingRecords) },
    })
    new Gauge({
      name: 'trueup_actor_queue_depth_records',
      help: 'Per workspace: log records that must still become durable before its latest answer can be sent (last applied seq − durable seq)',
      labelNames: ['workspace'], registers,
      async collect() {
        const { queueDepths } = await shard.stats()
        this.reset()
        for (const [workspace, depth] of queueDepths) this.set({ workspace }, depth)
      },
    })
    // Totals kept by the shards' handles, read when scraped: each counter is set to them (reset, then one inc).
    const crossThread = (name: string, help: string, count: (way: { readonly posts: number; readonly messages: number }) => number) => new Counter({
      name, help, labelNames: ['direction'], registers,
      async collect() {
        const hops = (await shard.stats()).crossThread
        this.reset()
        if (hops === undefined) return
        this.inc({ direction: 'to_shards' }, count(hops.toShards))
        this.inc({ direction: 'from_shards' }, count(hops.fromShards))
      },
    })
    crossThread('trueup_shard_messages_total', 'SHARDS > 1: messages between the main thread and the shards\' threads, by direction (to_shards, from_shards)', (way) => way.messages)
    crossThread('trueup_shard_posts_total', 'SHARDS > 1: postMessage calls that carried them (one per direction and turn of the event loop), by direction', (way) => way.posts)
    new Gauge({
      name: 'trueup_webhook_outbox_items', help: 'Webhook deliveries not yet done (one per event and subscription): the outbox depth', registers,
      async collect() { this.set((await shard.stats()).outboxItems) },
    })
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics()
  }
}

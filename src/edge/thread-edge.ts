/**
 * @module The edge on a shard's worker thread (EDGE_THREADS=1, SHARDS > 1): the same app as the main thread's
 * (server.ts buildEdge: route tables, lifecycle, stream, drain) around the thread's ThreadShard, not listening: the
 * main thread's listening app is given its descriptor (child-apps.ts) and hands it connections in turn. Its rate
 * budgets are the ones every thread shares (shared-rate-buckets.ts), so a workspace's limit holds whichever thread
 * a request lands on, and so are its WebSockets' send-buffer counts (shared-send-buffers.ts), so those bounds are
 * the process's; a scrape of /metrics answers every thread's metrics added up by the main thread (its own are the
 * requests it answered: the shards' gauges and the process's are the main thread's). Its log lines are the
 * thread's own; its clock is the service's (the system's, or a test's in shared memory).
 */

import type { Config } from '../config.js'
import { createLogger } from '../logger.js'
import type { Shard } from '../shard/operation.js'
import { descriptorOf, type AppDescriptor } from './child-apps.js'
import type { DrainReport } from './drain.js'
import { Metrics } from './metrics.js'
import type { MetricJson } from './metrics-sum.js'
import { buildEdge } from './server.js'
import type { SharedRateBuckets } from './shared-rate-buckets.js'
import type { SharedSendBuffers } from './shared-send-buffers.js'
import { countsOf, type EdgeCounts } from './stream.js'
import { filesReadInWorker } from '../api/statement-worker-pool.js'

export interface ThreadEdge {
  readonly descriptor: AppDescriptor
  /** This thread's metrics (the requests it answered), in prom-client's JSON form, to be added to the others'. */
  metrics(): Promise<MetricJson[]>
  /** A test seam: this thread's WebSocket sessions and counts (stream.ts), to be added to the others'. */
  counts(): EdgeCounts
  /** The drain: the main thread has stopped accepting already; then the app closes and the logger flushes. */
  close(graceMs: number): Promise<DrainReport>
}

export interface ThreadEdgeParts {
  /** The rate budgets every thread shares. */
  readonly buckets: SharedRateBuckets
  /** The WebSockets' unread bytes, counted over every thread. */
  readonly sendBuffers: SharedSendBuffers
  /** Every thread's metrics as one Prometheus text, from the main thread; null when they could not be had. */
  readonly scrape: () => Promise<string | null>
  readonly clock: () => number
}

export function startThreadEdge(config: Config, adminToken: string, shard: Shard, parts: ThreadEdgeParts): ThreadEdge {
  // The process's metrics and the shards' gauges are the main thread's: here, the requests only.
  const metrics = new Metrics({ groupCommitRecordsMax: config.groupCommitRecordsMax, eventLoopLagResolutionMs: config.eventLoopLagResolutionMs, processMetrics: false })
  const { logger, close: closeLogger } = createLogger({
    level: config.logLevel, bufferBytesMax: config.logBufferBytesMax, flushWaitMs: config.logFlushWaitMs, onLineDropped: () => metrics.observeLoggerLineDropped(),
  })
  const edge = buildEdge({
    shard, adminToken, bodyBytesMax: config.bodyBytesMax, importBodyBytesMax: config.importBodyBytesMax, clock: parts.clock,
    metrics, logger, logSlowRequestMs: config.logSlowRequestMs, metricsToken: config.metricsToken, requestIdLengthMax: config.requestIdLengthMax,
    streamAuthTimeoutMs: config.streamAuthTimeoutMs, streamKeyBufferBytesMax: config.streamKeyBufferBytesMax, streamProcessBufferBytesMax: config.streamProcessBufferBytesMax,
    buckets: parts.buckets, sendBuffers: parts.sendBuffers,
    renderMetrics: async () => {
      const text = await parts.scrape()
      if (text === null) throw new Error('the metrics of the other threads could not be had')
      return text
    },
  })
  return {
    descriptor: descriptorOf(edge.app),
    metrics: () => metrics.registry.getMetricsAsJSON(),
    counts: () => countsOf(edge.stream, filesReadInWorker()),
    close: async (graceMs) => {
      const report = await edge.close(graceMs, () => {})
      await closeLogger()
      return report
    },
  }
}

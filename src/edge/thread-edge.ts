/**
 * @module The edge on a shard's worker thread (EDGE_THREADS=1, SHARDS > 1): the same app as the main thread's
 * (server.ts buildEdge: route tables, lifecycle, stream, drain) around the thread's ThreadShard, not listening: the
 * main thread's listening app is given its descriptor (child-apps.ts) and hands it connections in turn. Its metrics
 * and log lines are the thread's own; its clock is the system's.
 */

import type { Config } from '../config.js'
import { createLogger } from '../logger.js'
import type { Shard } from '../shard/operation.js'
import { descriptorOf, type AppDescriptor } from './child-apps.js'
import type { DrainReport } from './drain.js'
import { Metrics } from './metrics.js'
import { buildEdge } from './server.js'

export interface ThreadEdge {
  readonly descriptor: AppDescriptor
  /** The drain: the main thread has stopped accepting already; then the app closes and the logger flushes. */
  close(graceMs: number): Promise<DrainReport>
}

export function startThreadEdge(config: Config, adminToken: string, shard: Shard): ThreadEdge {
  const metrics = new Metrics({ groupCommitRecordsMax: config.groupCommitRecordsMax, eventLoopLagResolutionMs: config.eventLoopLagResolutionMs })
  const { logger, close: closeLogger } = createLogger({
    level: config.logLevel, bufferBytesMax: config.logBufferBytesMax, flushWaitMs: config.logFlushWaitMs, onLineDropped: () => metrics.observeLoggerLineDropped(),
  })
  metrics.trackShard(shard)
  const edge = buildEdge({
    shard, adminToken, bodyBytesMax: config.bodyBytesMax, importBodyBytesMax: config.importBodyBytesMax, clock: () => Date.now(),
    metrics, logger, logSlowRequestMs: config.logSlowRequestMs, metricsToken: config.metricsToken, requestIdLengthMax: config.requestIdLengthMax,
    streamAuthTimeoutMs: config.streamAuthTimeoutMs, streamKeyBufferBytesMax: config.streamKeyBufferBytesMax, streamProcessBufferBytesMax: config.streamProcessBufferBytesMax,
  })
  return {
    descriptor: descriptorOf(edge.app),
    close: async (graceMs) => {
      const report = await edge.close(graceMs, () => {})
      await closeLogger()
      return report
    },
  }
}

/** @module Assembles one trueup service: data dir, admin token, log, replay, first start, HTTP, snapshots, stop. */

import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { LogRetention } from './actor/log-retention.js'
import { Runtime, type ReplayReport } from './actor/runtime.js'
import type { Config } from './config.js'
import type { DestinationStream } from 'pino'
import { createKeyCommand, newKeySecret, randomText } from './api/admin-routes.js'
import { Metrics } from './edge/metrics.js'
import type { DrainReport } from './edge/drain.js'
import type { StreamEndpoint } from './edge/stream.js'
import { startServer, type RunningServer } from './edge/server.js'
import { limitsDefault, scopes } from './ledger/system.js'
import { CommandLog, type CommitFaults } from './log/command-log.js'
import { createLogger } from './logger.js'
import { WebhookDeliverer } from './webhooks/deliverer.js'

export interface Service {
  readonly port: number
  readonly runtime: Runtime
  readonly replay: ReplayReport
  readonly adminToken: string
  /** The all-scope key of workspace `default` when this start created it (an empty data dir), else null. */
  readonly firstApiKey: string | null
  readonly metrics: Metrics
  readonly webhooks: WebhookDeliverer
  /** Deletes log records no recovery reads (src/actor/log-retention.ts), run with the periodic snapshot check. */
  readonly retention: LogRetention
  /** The WebSocket endpoint: its sessions and live-update hub. */
  readonly stream: StreamEndpoint
  /** Stop accepting, answer in-flight requests, flush the log, snapshot, close; then print what it did. */
  stop(): Promise<void>
}

export interface ServiceHooks {
  /** Where one-time secrets, start-up lines and the shutdown line go (stdout in main). */
  readonly print: (line: string) => void
  readonly clock: () => number
  readonly onLogFailure: (error: Error) => void
  /** Where JSON log lines go instead of stdout (tests). */
  readonly logDestination?: DestinationStream
  /** Where start-up and snapshot warnings go (a damaged snapshot ignored, a snapshot write failed); default stderr. */
  readonly warn?: (line: string) => void
  /** Test seams that make the log's commit step fail (test/log/disk-faults.test.ts); absent in production. */
  readonly logFaults?: CommitFaults
}

const snapshotCheckIntervalMs = 5_000

function adminTokenOf(config: Config, print: (line: string) => void): string {
  if (config.adminToken !== null) return config.adminToken
  const file = path.join(config.dataDir, 'admin-token')
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim()
  const token = `adm_${randomBytes(32).toString('base64url')}`
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 })
  print(`Admin token (written to ${file}, shown once): ${token}`)
  return token
}

/** On an empty data dir: workspace `default` in UTC and one key with every scope, printed once; returns its secret. */
function firstStart(runtime: Runtime, clock: () => number, print: (line: string) => void): string | null {
  if (runtime.system.workspaces.size > 0) return null
  const atMs = clock()
  const created = runtime.submitSystem({ type: 'workspace.create', at_ms: atMs, id: 'default', time_zone: 'UTC', limits: limitsDefault, tag: randomText(40) })
  if (!created.outcome.ok) throw new Error(`cannot create the default workspace: ${created.outcome.message}`)
  const secret = newKeySecret()
  const key = runtime.submitSystem(createKeyCommand(atMs, 'default', scopes, null, 'default', secret))
  if (!key.outcome.ok) throw new Error(`cannot create the first API key: ${key.outcome.message}`)
  print('First start: created workspace "default" (timezone UTC) and an API key with every scope.')
  print(`API key (shown once): ${secret}`)
  return secret
}

/**
 * After replay: what the outbox holds (written by commands before a restart or a kill -9) is delivered
 * from here on, and what new commits add as soon as it is durable.
 */
function startWebhooks(config: Config, runtime: Runtime, metrics: Metrics, clock: () => number, warn: (message: string, error: unknown) => void): WebhookDeliverer {
  const deliverer = new WebhookDeliverer({
    log: runtime.log,
    lookup: (id) => {
      for (const actor of runtime.actors.values()) {
        const subscription = actor.state.webhooks.subscriptions.get(id)
        if (subscription !== undefined) return subscription
      }
      return undefined
    },
    clock, random: Math.random,
    timeoutMs: config.webhookTimeoutMs, backoffBaseMs: config.webhookBackoffBaseMs, backoffCapMs: config.webhookBackoffCapMs,
    retryWindowMs: config.webhookRetryWindowMs, concurrencyMax: config.webhookConcurrencyMax,
    onAttempt: (result) => metrics.observeWebhookAttempt(result), onGiveUp: () => metrics.observeWebhookGiveUp(), warn,
  })
  deliverer.start()
  return deliverer
}

/** The last line of a clean stop: what the drain answered and what the log flushed, so an operator sees nothing was dropped. */
function stoppedLine(drain: DrainReport, recordsFlushedCount: number, durableSeq: number, snapshotsWrittenCount: number): string {
  const abandoned = drain.abandonedCount === 0 ? '' : `, ${drain.abandonedCount} unanswered when the grace ran out`
  return `trueup stopped: ${drain.inFlightCount} requests in flight answered, ${drain.refusedCount} refused with 503${abandoned}, `
    + `${drain.connectionsClosedCount} idle connections closed; ${recordsFlushedCount} log records flushed, last durable seq ${durableSeq}, `
    + `${snapshotsWrittenCount} snapshots written.`
}

/** The periodic snapshot check and, with it, log retention (records no recovery reads are deleted). */
function startHousekeeping(config: Config, runtime: Runtime, hooks: ServiceHooks): { retention: LogRetention; snapshots: NodeJS.Timeout } {
  const retention = new LogRetention(runtime, {
    // Neither setting: the default, two snapshot intervals' worth of records (resolveConfig says the same).
    commandsKept: config.logRetentionCommands ?? (config.logRetentionBytes === null ? 2 * config.snapshotCommandsInterval : null),
    bytesKept: config.logRetentionBytes, batchRecordsMax: config.logRetentionBatchRecordsMax,
    warn: hooks.warn ?? ((line) => process.stderr.write(`${line}\n`)),
  })
  const snapshots = setInterval(() => {
    runtime.snapshotDue(false)
    void retention.step()
  }, snapshotCheckIntervalMs)
  snapshots.unref()
  return { retention, snapshots }
}

export async function startService(config: Config, hooks: ServiceHooks): Promise<Service> {
  fs.mkdirSync(config.dataDir, { recursive: true })
  const adminToken = adminTokenOf(config, hooks.print)
  const metrics = new Metrics({ groupCommitRecordsMax: config.groupCommitRecordsMax, eventLoopLagResolutionMs: config.eventLoopLagResolutionMs })
  const log = new CommandLog({
    path: path.join(config.dataDir, 'log'), groupCommitRecordsMax: config.groupCommitRecordsMax, pendingRecordsMax: config.pendingRecordsMax,
    onCommit: (records, durationMs) => metrics.observeCommit(records, durationMs), faults: hooks.logFaults,
  })
  const runtime = new Runtime(log, config.snapshotCommandsInterval, hooks.warn)
  metrics.trackRuntime(runtime)
  let replay: ReplayReport
  try {
    replay = runtime.replay(hooks.clock)
  } catch (error) {
    // A damaged log (StoreDamaged) refuses the start; close the LMDB env so the data dir is left as found.
    await log.close()
    throw error
  }
  const firstApiKey = firstStart(runtime, hooks.clock, hooks.print)
  await new Promise<void>((resolve, reject) => log.afterDurable(log.lastSeq, (error) => (error === null ? resolve() : reject(error))))
  const { logger, close: closeLogger } = createLogger({
    level: config.logLevel, bufferBytesMax: config.logBufferBytesMax, flushWaitMs: config.logFlushWaitMs,
    onLineDropped: () => metrics.observeLoggerLineDropped(), destination: hooks.logDestination,
  })
  let server: RunningServer
  try {
    server = await startServer({
      runtime, host: config.host, port: config.port, adminToken, bodyBytesMax: config.bodyBytesMax, importBodyBytesMax: config.importBodyBytesMax, clock: hooks.clock, onLogFailure: hooks.onLogFailure,
      metrics, logger, logSlowRequestMs: config.logSlowRequestMs, metricsToken: config.metricsToken, requestIdLengthMax: config.requestIdLengthMax,
      streamAuthTimeoutMs: config.streamAuthTimeoutMs, streamKeyBufferBytesMax: config.streamKeyBufferBytesMax, streamProcessBufferBytesMax: config.streamProcessBufferBytesMax,
    })
  } catch (error) {
    await log.close()
    await closeLogger()
    throw error
  }
  const webhooks = startWebhooks(config, runtime, metrics, hooks.clock, (message, error) => logger.warn({ err: error }, message))
  const { retention, snapshots } = startHousekeeping(config, runtime, hooks)
  return {
    port: server.port,
    runtime,
    replay,
    adminToken,
    firstApiKey,
    metrics,
    webhooks,
    retention,
    stream: server.stream,
    stop: async () => {
      clearInterval(snapshots)
      await retention.stop()
      const durableAtStopSeq = log.durableSeq
      const drain = await server.close(config.shutdownGraceMs)
      // Attempts in flight are aborted and not counted; their events are still in the outbox for the next start.
      await webhooks.stop()
      await log.idle()
      const snapshotsWrittenCount = runtime.snapshotDue(true)
      const durableSeq = log.durableSeq
      await log.close()
      await closeLogger()
      hooks.print(stoppedLine(drain, durableSeq - durableAtStopSeq, durableSeq, snapshotsWrittenCount))
    },
  }
}

/** @module Assembles one trueup service: data dir, admin token, log, replay, first start, HTTP, snapshots, stop. */

import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { LogRetention } from './actor/log-retention.js'
import { Runtime, type ReplayReport } from './actor/runtime.js'
import type { Config } from './config.js'
import type { DestinationStream } from 'pino'
import { createKeyCommand, newKeySecret, randomText } from './api/admin-routes.js'
import { newSealKeyFields } from './exports/seal-signature.js'
import { Metrics } from './edge/metrics.js'
import type { DrainReport } from './edge/drain.js'
import type { StreamEndpoint } from './edge/stream.js'
import { startServer, type RunningServer } from './edge/server.js'
import { limitsDefault, scopes } from './ledger/system.js'
import { CommandLog, type CommitFaults } from './log/command-log.js'
import { checkDataDirContents, lockDataDir, type DataDirLock } from './data-dir.js'
import { holdPort, type PortHold } from './edge/port-hold.js'
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

/** The admin token: ADMIN_TOKEN, else the one kept in DATA_DIR/admin-token, else a new one, which keepAdminToken writes. */
function adminTokenOf(config: Config): { readonly token: string; readonly isNew: boolean } {
  if (config.adminToken !== null) return { token: config.adminToken, isNew: false }
  const file = path.join(config.dataDir, 'admin-token')
  if (fs.existsSync(file)) return { token: fs.readFileSync(file, 'utf8').trim(), isNew: false }
  return { token: `adm_${randomBytes(32).toString('base64url')}`, isNew: true }
}

/** A new admin token is written (mode 0600) and printed once the start can no longer be refused. */
function keepAdminToken(config: Config, admin: { readonly token: string; readonly isNew: boolean }, print: (line: string) => void): void {
  if (!admin.isNew) return
  const file = path.join(config.dataDir, 'admin-token')
  fs.writeFileSync(file, `${admin.token}\n`, { mode: 0o600 })
  print(`Admin token (written to ${file}, shown once): ${admin.token}`)
}

/** On an empty data dir: workspace `default` in UTC and one key with every scope, printed once; returns its secret. */
function firstStart(runtime: Runtime, clock: () => number, print: (line: string) => void): string | null {
  if (runtime.system.workspaces.size > 0) return null
  const atMs = clock()
  const created = runtime.submitSystem({ type: 'workspace.create', at_ms: atMs, id: 'default', time_zone: 'UTC', limits: limitsDefault, tag: randomText(40), ...newSealKeyFields() })
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

interface Claim {
  readonly lock: DataDirLock
  /** The listen address held through replay (null for port 0), released just before the server binds it. */
  readonly port: PortHold | null
}

/**
 * The data dir's lock and the listen address, both before anything is written. A data dir that exists is
 * locked first (both taken most often means this service was started twice: the data dir in use says so);
 * a missing one is created only once the port is known to be free, so a refused start leaves no trace.
 */
async function claim(config: Config): Promise<Claim> {
  let lock = fs.existsSync(config.dataDir) ? lockDataDir(config.dataDir) : null
  let port: PortHold | null = null
  try {
    port = await holdPort(config.host, config.port)
    lock ??= lockDataDir(config.dataDir)
    checkDataDirContents(config.dataDir)
    return { lock, port }
  } catch (error) {
    port?.release()
    lock?.release()
    throw error
  }
}

/**
 * Starts the service on a data dir no other process (nor another service in this one) holds: the lock is kept
 * until stop. A refusal (StartRefused: the data dir in use or unusable, the address taken) comes before
 * anything is written; StoreDamaged when the log cannot be trusted.
 */
export async function startService(config: Config, hooks: ServiceHooks): Promise<Service> {
  const claimed = await claim(config)
  try {
    return await startClaimed(config, hooks, claimed)
  } catch (error) {
    claimed.port?.release()
    claimed.lock.release()
    throw error
  }
}

/** The log replayed, then the server listening, and only then a new admin token and the first start written. */
async function startClaimed(config: Config, hooks: ServiceHooks, claimed: Claim): Promise<Service> {
  const admin = adminTokenOf(config)
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
  const { logger, close: closeLogger } = createLogger({
    level: config.logLevel, bufferBytesMax: config.logBufferBytesMax, flushWaitMs: config.logFlushWaitMs,
    onLineDropped: () => metrics.observeLoggerLineDropped(), destination: hooks.logDestination,
  })
  let server: RunningServer
  try {
    // Released and bound in one turn of the event loop: nothing else of this process runs in between.
    claimed.port?.release()
    server = await startServer({
      runtime, host: config.host, port: config.port, adminToken: admin.token, bodyBytesMax: config.bodyBytesMax, importBodyBytesMax: config.importBodyBytesMax, clock: hooks.clock, onLogFailure: hooks.onLogFailure,
      metrics, logger, logSlowRequestMs: config.logSlowRequestMs, metricsToken: config.metricsToken, requestIdLengthMax: config.requestIdLengthMax,
      streamAuthTimeoutMs: config.streamAuthTimeoutMs, streamKeyBufferBytesMax: config.streamKeyBufferBytesMax, streamProcessBufferBytesMax: config.streamProcessBufferBytesMax,
    })
  } catch (error) {
    await log.close()
    await closeLogger()
    throw error
  }
  let firstApiKey: string | null
  try {
    keepAdminToken(config, admin, hooks.print)
    firstApiKey = firstStart(runtime, hooks.clock, hooks.print)
    // Workspaces made before seal keys existed get theirs, and their closed windows a signature (docs/API.md, "The seal").
    runtime.giveSealKeys(hooks.clock())
    await new Promise<void>((resolve, reject) => log.afterDurable(log.lastSeq, (error) => (error === null ? resolve() : reject(error))))
  } catch (error) {
    await server.close(0)
    await log.close()
    await closeLogger()
    throw error
  }
  const parts: Running = { config, hooks, claimed, runtime, log, replay, adminToken: admin.token, firstApiKey, metrics, server, closeLogger }
  return running(parts, startWebhooks(config, runtime, metrics, hooks.clock, (message, error) => logger.warn({ err: error }, message)))
}

interface Running {
  readonly config: Config
  readonly hooks: ServiceHooks
  readonly claimed: Claim
  readonly runtime: Runtime
  readonly log: CommandLog
  readonly replay: ReplayReport
  readonly adminToken: string
  readonly firstApiKey: string | null
  readonly metrics: Metrics
  readonly server: RunningServer
  readonly closeLogger: () => Promise<void>
}

/** The started service: housekeeping on, and the stop that undoes it all, the data dir's lock released last. */
function running(parts: Running, webhooks: WebhookDeliverer): Service {
  const { config, hooks, runtime, log, server } = parts
  const { retention, snapshots } = startHousekeeping(config, runtime, hooks)
  return {
    port: server.port,
    runtime,
    replay: parts.replay,
    adminToken: parts.adminToken,
    firstApiKey: parts.firstApiKey,
    metrics: parts.metrics,
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
      await parts.closeLogger()
      parts.claimed.lock.release()
      hooks.print(stoppedLine(drain, durableSeq - durableAtStopSeq, durableSeq, snapshotsWrittenCount))
    },
  }
}

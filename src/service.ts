/** @module Assembles one trueup service: data dir, admin token, log, replay, first start, HTTP, snapshots, stop. */

import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { LogRetention } from './actor/log-retention.js'
import type { Runtime, ReplayReport } from './actor/runtime.js'
import type { Config } from './config.js'
import type { DestinationStream } from 'pino'
import { createKeyCommand, newKeySecret, randomText, workspaceTagBits } from './api/admin-routes.js'
import { newSealKeyFields } from './exports/seal-signature.js'
import { Metrics } from './edge/metrics.js'
import type { DrainReport } from './edge/drain.js'
import type { EdgeCounts, StreamEndpoint } from './edge/stream.js'
import { startServer, type RunningServer } from './edge/server.js'
import { forwardingByShard, type Forwarding } from './edge/forward.js'
import { limitsDefault, scopes, type SystemCommand } from './ledger/system.js'
import type { CommitFaults } from './log/command-log.js'
import { checkDataDirContents, lockDataDir, type DataDirLock } from './data-dir.js'
import { holdPort, type PortHold } from './edge/port-hold.js'
import { createLogger, type Logger } from './logger.js'
import type { WebhookDeliverer } from './webhooks/deliverer.js'
import { LocalNode, type LocalNodeHooks } from './shard/local-node.js'
import type { Shard } from './shard/operation.js'
import type { Probe } from './shard/probe.js'
import { ShardSet } from './shard/shard-set.js'
import type { EdgeHops } from './shard/thread-shard.js'
import { startThreadedServer } from './edge/threaded-server.js'
import { convertSingleLog } from './shard/convert.js'
import { checkReplication, type ReplicationReport } from './cluster/replication-check.js'
import { claimLayout } from './shard/layout.js'
import { StartRefused } from './start-refused.js'

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
  /** The WebSocket endpoint: its sessions and live-update hub (null with EDGE_THREADS=1: each thread has its own). */
  readonly stream: StreamEndpoint | null
  /** A test seam: each shard thread's edge's operations, executed there or forwarded ([] without EDGE_THREADS=1). */
  edgeHops(): Promise<readonly EdgeHops[]>
  /**
   * A test seam, the same whichever threads serve HTTP: the WebSocket sessions of every thread, the sockets closed
   * over a send-buffer bound, the unread bytes counted, the statement files read off the event loop.
   */
  edgeCounts(): Promise<EdgeCounts>
  /**
   * A test seam (src/shard/probe.ts), the same for any SHARDS: with a workspace, run against the runtime that
   * holds it; without, against every runtime, the one holding the system state (workspaces, keys) first.
   */
  probe(probe: Probe, workspace?: string): Promise<unknown[]>
  /** Stop accepting, answer in-flight requests, flush the log, snapshot, close; then print what it did. */
  stop(): Promise<void>
}

export interface ServiceHooks {
  /** Where one-time secrets, start-up lines and the shutdown line go (stdout in main). */
  readonly print: (line: string) => void
  readonly clock: () => number
  /**
   * The same clock as one number in shared memory (ms since the epoch; a Float64Array on a SharedArrayBuffer),
   * for the edges on the shards' threads (EDGE_THREADS=1), which cannot call `clock`. Absent: they read the system
   * clock, as `clock` does in production (a test's manual clock sets both: test/support/clock.ts).
   */
  readonly clockCell?: Float64Array
  readonly onLogFailure: (error: Error) => void
  /** Where JSON log lines go instead of stdout (tests). */
  readonly logDestination?: DestinationStream
  /** Where start-up and snapshot warnings go (a damaged snapshot ignored, a snapshot write failed); default stderr. */
  readonly warn?: (line: string) => void
  /** Test seams that make the log's commit step fail (test/log/disk-faults.test.ts); absent in production. */
  readonly logFaults?: CommitFaults
}

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

/** What holds the workspaces: the in-process node (SHARDS=1) or the shard set (one worker thread per shard). */
interface ServiceNode {
  readonly shard: Shard
  readonly replay: ReplayReport
  start(): void
  probe(probe: Probe, workspace?: string): Promise<unknown[]>
  stopHousekeeping(): Promise<void>
  close(): Promise<{ readonly snapshotsWrittenCount: number; readonly durableSeq: number }>
}

function openNode(config: Config, hooks: LocalNodeHooks): Promise<ServiceNode> {
  // In cluster mode the one log of SHARDS=1 is the database's shard 0.
  return config.shards === 1 ? LocalNode.open(config, { ...hooks, clusterShard: 0 }) : ShardSet.open(config, hooks)
}

/**
 * Cluster mode: whether the database would keep an answered write through the loss of one machine (synchronous
 * standbys); when not, a warning at start: one machine's database still works. A database that cannot be reached
 * refuses the start, before anything is written.
 */
async function warnUnlessReplicated(config: Config, warn: (line: string) => void): Promise<void> {
  if (config.cluster === null) return
  let report: ReplicationReport
  try {
    report = await checkReplication(config.cluster.databaseUrl)
  } catch (error) {
    // Said without the URL, which may hold a password.
    throw new StartRefused(`CLUSTER_DATABASE_URL cannot be reached: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (report.warning !== null) warn(`trueup: cluster: ${report.warning}; an answered write may then be lost with that one machine`)
}

/**
 * Cluster mode: requests are served here while this node owns their shard, else forwarded to its owner
 * (src/edge/forward.ts). SHARDS=1: the one log's shard. More: the shard of the key's workspace, the registry's for admin.
 */
function forwardingOf(config: Config, node: ServiceNode): Forwarding | undefined {
  if (config.cluster === null) return undefined
  if (node instanceof ShardSet) return forwardingByShard(config.cluster.nodeId, node)
  const local = node as LocalNode
  return { nodeId: config.cluster.nodeId, route: (forwarded) => local.route(forwarded), routeOfWorkspace: () => local.route(false) }
}

/** Whether this node serves the system state (the one log, or the registry of several shards). */
function servedHere(node: ServiceNode): boolean {
  if (node instanceof ShardSet) return node.registryRoute(true).kind === 'local'
  return (node as LocalNode).route(true).kind === 'local'
}

/** The registry's runtime (the system state, and with SHARDS=1 every workspace): for tests and operators. */
function runtimeOf(node: ServiceNode): Runtime {
  return node instanceof ShardSet ? node.registry.runtime : (node as LocalNode).runtime
}

async function submitted(shard: Shard, command: SystemCommand): Promise<void> {
  const reply = await shard.send({ op: 'system.command', command })
  if (reply.status >= 300) throw new Error(`cannot apply ${command.type}: ${reply.body}`)
}

/** On an empty data dir: workspace `default` in UTC and one key with every scope, printed once; returns its secret (once both are durable). */
async function firstStart(shard: Shard, clock: () => number, print: (line: string) => void): Promise<string | null> {
  if (shard.system.workspaces.size > 0) return null
  await submitted(shard, { type: 'workspace.create', at_ms: clock(), id: 'default', time_zone: 'UTC', limits: limitsDefault, tag: randomText(workspaceTagBits), ...newSealKeyFields() })
  const secret = newKeySecret()
  await submitted(shard, createKeyCommand(clock(), 'default', scopes, null, 'default', secret))
  print('First start: created workspace "default" (timezone UTC) and an API key with every scope.')
  print(`API key (shown once): ${secret}`)
  return secret
}

/** The last line of a clean stop: what the drain answered and what the log flushed, so an operator sees nothing was dropped. */
function stoppedLine(drain: DrainReport, recordsFlushedCount: number, durableSeq: number, snapshotsWrittenCount: number): string {
  const abandoned = drain.abandonedCount === 0 ? '' : `, ${drain.abandonedCount} unanswered when the grace ran out`
  return `trueup stopped: ${drain.inFlightCount} requests in flight answered, ${drain.refusedCount} refused with 503${abandoned}, `
    + `${drain.connectionsClosedCount} idle connections closed; ${recordsFlushedCount} log records flushed, last durable seq ${durableSeq}, `
    + `${snapshotsWrittenCount} snapshots written.`
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
async function claim(config: Config, hooks: ServiceHooks): Promise<Claim> {
  let lock = fs.existsSync(config.dataDir) ? lockDataDir(config.dataDir) : null
  let port: PortHold | null = null
  try {
    port = await holdPort(config.host, config.port)
    lock ??= lockDataDir(config.dataDir)
    checkDataDirContents(config.dataDir)
    // The single log started with more shards is converted before anything is served (docs/API.md, Shards).
    if (claimLayout(config.dataDir, config.shards) === 'convert') hooks.print(await convertSingleLog(config, { clock: hooks.clock, onLogFailure: hooks.onLogFailure, warn: hooks.warn }))
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
  const claimed = await claim(config, hooks)
  try {
    return await startClaimed(config, hooks, claimed)
  } catch (error) {
    claimed.port?.release()
    claimed.lock.release()
    throw error
  }
}

interface Serving {
  readonly node: ServiceNode
  readonly adminToken: string
  readonly metrics: Metrics
  readonly logger: Logger
  readonly clock: () => number
  readonly clockCell: Float64Array | null
  /** The port held since the claim, released just before the bind (in the same turn of the event loop). */
  readonly releasePort: () => void
}

/** HTTP on the main thread, or (EDGE_THREADS=1 with several shards) on every shard's thread. */
async function serve(config: Config, { node, adminToken, metrics, logger, clock, clockCell, releasePort }: Serving): Promise<RunningServer> {
  if (config.edgeThreads && node instanceof ShardSet) return startThreadedServer(node.shards, { host: config.host, port: config.port, adminToken, metrics, clockCell, beforeListen: releasePort })
  // Released and bound in one turn of the event loop: nothing else of this process runs in between.
  releasePort()
  return startServer({
    shard: node.shard, forwarding: forwardingOf(config, node), host: config.host, port: config.port, adminToken, bodyBytesMax: config.bodyBytesMax, importBodyBytesMax: config.importBodyBytesMax, clock,
    metrics, logger, logSlowRequestMs: config.logSlowRequestMs, metricsToken: config.metricsToken, requestIdLengthMax: config.requestIdLengthMax,
    streamAuthTimeoutMs: config.streamAuthTimeoutMs, streamKeyBufferBytesMax: config.streamKeyBufferBytesMax, streamProcessBufferBytesMax: config.streamProcessBufferBytesMax,
  })
}

/** The log replayed, then the server listening, and only then a new admin token and the first start written. */
async function startClaimed(config: Config, hooks: ServiceHooks, claimed: Claim): Promise<Service> {
  const admin = adminTokenOf(config)
  const metrics = new Metrics({ groupCommitRecordsMax: config.groupCommitRecordsMax, eventLoopLagResolutionMs: config.eventLoopLagResolutionMs })
  const { logger, close: closeLogger } = createLogger({
    level: config.logLevel, bufferBytesMax: config.logBufferBytesMax, flushWaitMs: config.logFlushWaitMs,
    onLineDropped: () => metrics.observeLoggerLineDropped(), destination: hooks.logDestination,
  })
  let node: ServiceNode
  try {
    await warnUnlessReplicated(config, hooks.warn ?? ((line) => { process.stderr.write(`${line}\n`) }))
    node = await openNode(config, {
      clock: hooks.clock, onLogFailure: hooks.onLogFailure, warn: hooks.warn, logFaults: hooks.logFaults,
      onCommit: (records, durationMs) => metrics.observeCommit(records, durationMs),
      onWebhookAttempt: (result) => metrics.observeWebhookAttempt(result), onWebhookGiveUp: () => metrics.observeWebhookGiveUp(),
      webhookWarn: (message, error) => logger.warn({ err: error }, message),
    })
  } catch (error) {
    await closeLogger()
    throw error
  }
  metrics.trackShard(node.shard)
  let server: RunningServer
  try {
    server = await serve(config, { node, adminToken: admin.token, metrics, logger, clock: hooks.clock, clockCell: hooks.clockCell ?? null, releasePort: () => claimed.port?.release() })
  } catch (error) {
    await node.close()
    await closeLogger()
    throw error
  }
  let firstApiKey: string | null
  try {
    keepAdminToken(config, admin, hooks.print)
    // A standby's state is the owner's: the first start is the owner's to make.
    firstApiKey = servedHere(node) ? await firstStart(node.shard, hooks.clock, hooks.print) : null
  } catch (error) {
    await server.close(0)
    await node.close()
    await closeLogger()
    throw error
  }
  node.start()
  return running({ config, hooks, claimed, node, adminToken: admin.token, firstApiKey, metrics, server, closeLogger })
}

interface Running {
  readonly config: Config
  readonly hooks: ServiceHooks
  readonly claimed: Claim
  readonly node: ServiceNode
  readonly adminToken: string
  readonly firstApiKey: string | null
  readonly metrics: Metrics
  readonly server: RunningServer
  readonly closeLogger: () => Promise<void>
}

/** The started service, and the stop that undoes it all, the data dir's lock released last. */
function running(parts: Running): Service {
  const { config, hooks, node, server } = parts
  return {
    port: server.port,
    runtime: runtimeOf(node),
    replay: node.replay,
    adminToken: parts.adminToken,
    firstApiKey: parts.firstApiKey,
    metrics: parts.metrics,
    webhooks: (node instanceof ShardSet ? node.registry : node as LocalNode).webhooks,
    retention: (node instanceof ShardSet ? node.registry : node as LocalNode).retention,
    stream: server.stream,
    edgeHops: () => server.edgeHops(),
    edgeCounts: () => server.edgeCounts(),
    probe: (probe, workspace) => node.probe(probe, workspace),
    stop: async () => {
      await node.stopHousekeeping()
      const durableAtStopSeq = (await node.shard.stats()).durableSeq
      const drain = await server.close(config.shutdownGraceMs)
      const { snapshotsWrittenCount, durableSeq } = await node.close()
      await parts.closeLogger()
      parts.claimed.lock.release()
      hooks.print(stoppedLine(drain, durableSeq - durableAtStopSeq, durableSeq, snapshotsWrittenCount))
    },
  }
}

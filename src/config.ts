/** @module Configuration: environment in, a frozen Config out, every limit named with its unit and checked. */

import assert from 'node:assert/strict'
import path from 'node:path'
import { shardsDefault } from './shard/layout.js'

/** pino's level names; `silent` logs nothing. */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof logLevels)[number]

/** Shards at most: each is a thread with its own LMDB environment. */
export const shardsMax = 64

/** Cluster mode (docs/API.md, "Cluster mode"): the replicated log's database, this node's id and its URL. */
export interface ClusterConfig {
  /** postgres://… (CLUSTER_DATABASE_URL): the primary of a synchronously replicated PostgreSQL 15+. */
  readonly databaseUrl: string
  /** NODE_ID: this node's name in the placement table (unique per node, stable across its restarts). */
  readonly nodeId: string
  /** NODE_URL: where other nodes reach this one. */
  readonly nodeUrl: string
  /**
   * NODE_SHARDS: the database shards this node claims at start when no node ever held them (its workspaces' shards
   * 0..SHARDS-1, the registry SHARDS; with SHARDS=1 the one log is 0); null: every one. The others it stands by for,
   * and takes over like any standby once their owner's lease lapses.
   */
  readonly claims: readonly number[] | null
}

export interface Config {
  readonly host: string
  readonly port: number
  readonly dataDir: string
  readonly adminToken: string | null
  readonly bodyBytesMax: number
  readonly importBodyBytesMax: number
  readonly groupCommitRecordsMax: number
  readonly pendingRecordsMax: number
  /** A workspace snapshot is written after this many of its commands. */
  readonly snapshotCommandsInterval: number
  /**
   * Workspaces are placed on this many shards by a stable hash of their id; with more than one, each shard is a
   * worker thread with its own log under DATA_DIR/shards/<n> (docs/API.md, Shards). A data dir keeps the number it was written with.
   */
  readonly shards: number
  /**
   * With more than one shard: HTTP and WebSocket connections served on the shards' threads (each its own app,
   * handed connections by the listening one) instead of the main thread. Opt-in while it is incomplete (docs/API.md, Shards).
   */
  readonly edgeThreads: boolean
  /**
   * The log keeps at least its last this many records; an older one is deleted once no recovery reads it
   * (the snapshots cover it) and neither retention setting keeps it. null: no count, when logRetentionBytes
   * is set; else two snapshot intervals (2 × snapshotCommandsInterval), resolved so.
   */
  readonly logRetentionCommands: number | null
  /** The log keeps at least its newest records that add up to this many bytes; null: no bytes kept (LOG_RETENTION_BYTES). */
  readonly logRetentionBytes: number | null
  /** Log records deleted in one background write transaction at most (the group commit waits for it). */
  readonly logRetentionBatchRecordsMax: number
  readonly shutdownGraceMs: number
  /** Structured (JSON) log level; `silent` turns request logs off. */
  readonly logLevel: LogLevel
  /**
   * A request that takes at least this long is logged at `info` even when it succeeded; successful
   * requests under it are logged at `debug` (a line per request costs throughput). 0: every request at info.
   */
  readonly logSlowRequestMs: number
  /**
   * Log lines waiting for a slow stdout, in bytes, at most. Past it new lines are dropped (and
   * counted in trueup_log_lines_dropped_total) rather than blocking the event loop or growing memory.
   */
  readonly logBufferBytesMax: number
  /** At shutdown, how long to wait for buffered log lines to reach stdout. */
  readonly logFlushWaitMs: number
  /** Bearer token that GET /metrics requires; null: /metrics is open (bind HOST to a private address). */
  readonly metricsToken: string | null
  /** An incoming Request-Id / X-Request-Id longer than this is replaced by a generated one. */
  readonly requestIdLengthMax: number
  /** Sampling resolution of the event-loop lag metric (prom-client's monitorEventLoopDelay). */
  readonly eventLoopLagResolutionMs: number
  /** A WebSocket not authenticated by then (header or first message) is closed with 4401 (docs/API.md, WebSocket API and live updates). */
  readonly streamAuthTimeoutMs: number
  /** Unread bytes in the send buffers of one API key's WebSockets together, at most: past it the one holding the most is closed. */
  readonly streamKeyBufferBytesMax: number
  /** The same over every WebSocket of the process. */
  readonly streamProcessBufferBytesMax: number
  /** One webhook delivery attempt, at most. */
  readonly webhookTimeoutMs: number
  /** Webhook retries: the first waits up to this (full jitter), each further one up to twice as long, */
  readonly webhookBackoffBaseMs: number
  /** but never more than this. */
  readonly webhookBackoffCapMs: number
  /** A webhook event is retried until this long after the command that emitted it, then marked failed. */
  readonly webhookRetryWindowMs: number
  /** Webhook deliveries in flight at once, across subscriptions (one per subscription, in order). */
  readonly webhookConcurrencyMax: number
  /** Cluster mode, or null: a single node with no database (the default). */
  readonly cluster: ClusterConfig | null
}

/** What a caller may set; everything left out takes its default. Embedded use builds one directly. */
export type ConfigInput = { -readonly [K in keyof Config]?: Config[K] }

export const configDefaults = Object.freeze({
  host: '127.0.0.1',
  port: 8080,
  dataDir: './data',
  adminToken: null,
  bodyBytesMax: 1024 * 1024,
  importBodyBytesMax: 16 * 1024 * 1024,
  groupCommitRecordsMax: 8192,
  pendingRecordsMax: 65536,
  snapshotCommandsInterval: 100_000,
  shards: 1,
  edgeThreads: false,
  logRetentionCommands: null,
  logRetentionBytes: null,
  logRetentionBatchRecordsMax: 2_048,
  shutdownGraceMs: 10_000,
  logLevel: 'info',
  logSlowRequestMs: 1000,
  logBufferBytesMax: 16 * 1024 * 1024,
  logFlushWaitMs: 1000,
  metricsToken: null,
  requestIdLengthMax: 128,
  eventLoopLagResolutionMs: 10,
  streamAuthTimeoutMs: 10_000,
  streamKeyBufferBytesMax: 64 * 1024 * 1024,
  streamProcessBufferBytesMax: 512 * 1024 * 1024,
  webhookTimeoutMs: 10_000,
  webhookBackoffBaseMs: 1_000,
  webhookBackoffCapMs: 60 * 60 * 1000,
  webhookRetryWindowMs: 24 * 60 * 60 * 1000,
  webhookConcurrencyMax: 16,
  cluster: null,
} satisfies Config)

function integerFrom(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name]
  if (text === undefined || text === '') return undefined
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(text)}`)
  return value
}

function textFrom(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const text = env[name]
  return text === undefined || text === '' ? undefined : text
}

/** 1 or 0; unset: undefined (the default). */
function flagFrom(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const text = textFrom(env, name)
  if (text === undefined) return undefined
  assert.ok(text === '1' || text === '0', `${name} must be 1 or 0`)
  return text === '1'
}

function logLevelFrom(env: NodeJS.ProcessEnv): LogLevel | undefined {
  const text = textFrom(env, 'LOG_LEVEL')
  if (text === undefined) return undefined
  if (!(logLevels as readonly string[]).includes(text)) throw new Error(`LOG_LEVEL must be one of ${logLevels.join(', ')}, got ${JSON.stringify(text)}`)
  return text as LogLevel
}

const clusterVariables = ['CLUSTER_DATABASE_URL', 'NODE_ID', 'NODE_URL'] as const

/** All three cluster variables, or none (a single node); some but not all is refused, naming what is missing. */
function clusterFrom(env: NodeJS.ProcessEnv): ClusterConfig | null {
  const [databaseUrl, nodeId, nodeUrl] = clusterVariables.map((name) => textFrom(env, name))
  if (databaseUrl === undefined && nodeId === undefined && nodeUrl === undefined) return null
  if (databaseUrl === undefined || nodeId === undefined || nodeUrl === undefined) {
    const missing = clusterVariables.filter((name) => textFrom(env, name) === undefined)
    throw new Error(`CLUSTER_DATABASE_URL, NODE_ID and NODE_URL go together: set all three for cluster mode, or none for a single node (missing: ${missing.join(', ')})`)
  }
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new Error('CLUSTER_DATABASE_URL must be a postgres:// or postgresql:// URL')
  return { databaseUrl, nodeId, nodeUrl, claims: claimsFrom(env) }
}

/** NODE_SHARDS: shard numbers separated by commas ("0,2"); unset: null (every shard). */
function claimsFrom(env: NodeJS.ProcessEnv): readonly number[] | null {
  const text = textFrom(env, 'NODE_SHARDS')
  if (text === undefined) return null
  const claims = text.split(',').map((part) => part.trim())
  if (!claims.every((part) => /^\d{1,3}$/.test(part))) throw new Error(`NODE_SHARDS must be shard numbers separated by commas, got ${JSON.stringify(text)}`)
  return claims.map(Number)
}

/** Only the keys that are set, so that an `undefined` (an unset variable, an omitted option) takes the default. */
function definedOnly(input: ConfigInput): ConfigInput {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as ConfigInput
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return resolveConfig({
    host: textFrom(env, 'HOST'),
    port: integerFrom(env, 'PORT'),
    dataDir: textFrom(env, 'DATA_DIR'),
    adminToken: textFrom(env, 'ADMIN_TOKEN'),
    groupCommitRecordsMax: integerFrom(env, 'GROUP_COMMIT_RECORDS_MAX'),
    pendingRecordsMax: integerFrom(env, 'PENDING_RECORDS_MAX'),
    snapshotCommandsInterval: integerFrom(env, 'SNAPSHOT_COMMANDS_INTERVAL'),
    // The embedded Ledger and resolveConfig keep one shard; the service's environment defaults to the cores.
    shards: integerFrom(env, 'SHARDS') ?? shardsDefault(path.resolve(textFrom(env, 'DATA_DIR') ?? configDefaults.dataDir), shardsMax),
    edgeThreads: flagFrom(env, 'EDGE_THREADS'),
    logRetentionCommands: integerFrom(env, 'LOG_RETENTION_COMMANDS'),
    logRetentionBytes: integerFrom(env, 'LOG_RETENTION_BYTES'),
    logRetentionBatchRecordsMax: integerFrom(env, 'LOG_RETENTION_BATCH_RECORDS_MAX'),
    shutdownGraceMs: integerFrom(env, 'SHUTDOWN_GRACE_MS'),
    logLevel: logLevelFrom(env),
    logSlowRequestMs: integerFrom(env, 'LOG_SLOW_REQUEST_MS'),
    metricsToken: textFrom(env, 'METRICS_TOKEN'),
    streamAuthTimeoutMs: integerFrom(env, 'STREAM_AUTH_TIMEOUT_MS'),
    streamKeyBufferBytesMax: integerFrom(env, 'STREAM_KEY_BUFFER_BYTES_MAX'),
    streamProcessBufferBytesMax: integerFrom(env, 'STREAM_PROCESS_BUFFER_BYTES_MAX'),
    webhookTimeoutMs: integerFrom(env, 'WEBHOOK_TIMEOUT_MS'),
    webhookBackoffBaseMs: integerFrom(env, 'WEBHOOK_BACKOFF_BASE_MS'),
    webhookBackoffCapMs: integerFrom(env, 'WEBHOOK_BACKOFF_CAP_MS'),
    webhookRetryWindowMs: integerFrom(env, 'WEBHOOK_RETRY_WINDOW_MS'),
    webhookConcurrencyMax: integerFrom(env, 'WEBHOOK_CONCURRENCY_MAX'),
    cluster: clusterFrom(env) ?? undefined,
  })
}

/** Defaults for what the input leaves out, relations asserted, frozen. */
export function resolveConfig(input: ConfigInput): Config {
  const config: Config = { ...configDefaults, ...definedOnly(input) }
  // Either setting, or both (the log keeps what either asks); neither: two snapshot intervals' worth of records.
  const logRetentionCommands = config.logRetentionCommands ?? (config.logRetentionBytes === null ? 2 * config.snapshotCommandsInterval : null)
  const resolved: Config = { ...config, dataDir: path.resolve(config.dataDir), logRetentionCommands }
  assert.ok(Number.isSafeInteger(resolved.port) && resolved.port >= 0 && resolved.port <= 65535, 'PORT must be 0..65535')
  assert.ok(resolved.groupCommitRecordsMax >= 1, 'GROUP_COMMIT_RECORDS_MAX must be at least 1')
  assert.ok(resolved.groupCommitRecordsMax <= resolved.pendingRecordsMax, 'GROUP_COMMIT_RECORDS_MAX must not exceed PENDING_RECORDS_MAX')
  assert.ok(resolved.bodyBytesMax <= resolved.importBodyBytesMax)
  assert.ok(resolved.snapshotCommandsInterval >= 1, 'SNAPSHOT_COMMANDS_INTERVAL must be at least 1')
  assert.ok(resolved.shards >= 1 && resolved.shards <= shardsMax, `SHARDS must be from 1 to ${shardsMax}`)
  // The database's shards: 0 alone with SHARDS=1 (workspaces and registry in one log), else 0..SHARDS (the registry last).
  const databaseShardLast = resolved.shards === 1 ? 0 : resolved.shards
  assert.ok(resolved.cluster?.claims?.every((shard) => shard <= databaseShardLast) ?? true, `NODE_SHARDS must name shards from 0 to ${databaseShardLast}`)
  assert.ok(logRetentionCommands === null || logRetentionCommands >= 1, 'LOG_RETENTION_COMMANDS must be at least 1 (the last record is always kept)')
  assert.ok(resolved.logRetentionBytes === null || resolved.logRetentionBytes >= 1, 'LOG_RETENTION_BYTES must be at least 1 (the last record is always kept)')
  assert.ok(resolved.logRetentionBatchRecordsMax >= 1, 'LOG_RETENTION_BATCH_RECORDS_MAX must be at least 1')
  assert.ok((logLevels as readonly string[]).includes(resolved.logLevel), `logLevel must be one of ${logLevels.join(', ')}`)
  // A log line must fit the buffer, or every line would be dropped.
  assert.ok(resolved.logBufferBytesMax >= 64 * 1024, 'logBufferBytesMax must be at least 64 KiB')
  assert.ok(resolved.requestIdLengthMax >= 16 && resolved.requestIdLengthMax <= 1024)
  assert.ok(resolved.eventLoopLagResolutionMs >= 1)
  assert.ok(resolved.metricsToken === null || resolved.metricsToken.length >= 1)
  assert.ok(resolved.streamAuthTimeoutMs >= 1, 'STREAM_AUTH_TIMEOUT_MS must be at least 1')
  // Below 1 MiB a socket that merely falls behind (updates are coalesced from 1 MiB on) would be closed.
  assert.ok(resolved.streamKeyBufferBytesMax >= 1024 * 1024, 'STREAM_KEY_BUFFER_BYTES_MAX must be at least 1 MiB')
  assert.ok(resolved.streamProcessBufferBytesMax >= resolved.streamKeyBufferBytesMax, 'STREAM_PROCESS_BUFFER_BYTES_MAX must be at least STREAM_KEY_BUFFER_BYTES_MAX')
  assert.ok(resolved.webhookTimeoutMs >= 1, 'WEBHOOK_TIMEOUT_MS must be at least 1')
  assert.ok(resolved.webhookBackoffBaseMs >= 1, 'WEBHOOK_BACKOFF_BASE_MS must be at least 1')
  assert.ok(resolved.webhookBackoffBaseMs <= resolved.webhookBackoffCapMs, 'WEBHOOK_BACKOFF_BASE_MS must not exceed WEBHOOK_BACKOFF_CAP_MS')
  assert.ok(resolved.webhookConcurrencyMax >= 1, 'WEBHOOK_CONCURRENCY_MAX must be at least 1')
  return Object.freeze(resolved)
}

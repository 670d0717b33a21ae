/** @module Configuration: environment in, a frozen Config out, every limit named with its unit and checked. */

import assert from 'node:assert/strict'
import path from 'node:path'

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
  readonly shutdownGraceMs: number
}

function integerFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name]
  if (text === undefined || text === '') return fallback
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${text}`)
  return value
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config: Config = {
    host: env.HOST !== undefined && env.HOST !== '' ? env.HOST : '127.0.0.1',
    port: integerFrom(env, 'PORT', 8080),
    dataDir: path.resolve(env.DATA_DIR !== undefined && env.DATA_DIR !== '' ? env.DATA_DIR : './data'),
    adminToken: env.ADMIN_TOKEN !== undefined && env.ADMIN_TOKEN !== '' ? env.ADMIN_TOKEN : null,
    bodyBytesMax: 1024 * 1024,
    importBodyBytesMax: 16 * 1024 * 1024,
    groupCommitRecordsMax: integerFrom(env, 'GROUP_COMMIT_RECORDS_MAX', 8192),
    pendingRecordsMax: integerFrom(env, 'PENDING_RECORDS_MAX', 65536),
    snapshotCommandsInterval: integerFrom(env, 'SNAPSHOT_COMMANDS_INTERVAL', 100_000),
    shutdownGraceMs: integerFrom(env, 'SHUTDOWN_GRACE_MS', 10_000),
  }
  assert.ok(config.port <= 65535, 'PORT must be at most 65535')
  assert.ok(config.groupCommitRecordsMax >= 1)
  assert.ok(config.groupCommitRecordsMax <= config.pendingRecordsMax, 'GROUP_COMMIT_RECORDS_MAX must not exceed PENDING_RECORDS_MAX')
  assert.ok(config.bodyBytesMax <= config.importBodyBytesMax)
  assert.ok(config.snapshotCommandsInterval >= 1)
  return Object.freeze(config)
}

/**
 * @module Converting a data dir of the single log (SHARDS=1: DATA_DIR/log) to several shards, at start, before
 * anything is served (docs/API.md, Shards). The single log is replayed as a SHARDS=1 start would (snapshots, then
 * the records after them, seal keys given), and each new log (the registry, every shard) is written fresh: empty
 * of records, begun after the old log's last seq, holding snapshots at that seq of what it owns (the system state
 * in the registry; each workspace's state, its workspace and key records and its webhook outbox and deliveries in
 * its shard). Replaying beats re-routing records: retention has deleted the records a snapshot covers, so the old
 * log alone no longer holds every workspace's history, and a record moved to another log could not keep its seq,
 * from which entry ids are made. Continuing the seqs keeps every id the old log gave out unique in the new logs.
 *
 * Crash-safe: the new logs are built in DATA_DIR/shards.converting (removed and built again if a start finds it),
 * moved in by renames, and DATA_DIR/shards.json, written last by a rename of its own, is the switch: until it
 * exists the data dir is still the single log; once it does, the single log is moved aside to
 * DATA_DIR/log.before-shards (kept, never deleted; a start that finds both finishes the move).
 */

import fs from 'node:fs'
import path from 'node:path'
import type { Runtime } from '../actor/runtime.js'
import type { Config } from '../config.js'
import { ed25519Signer } from '../exports/seal-signature.js'
import { sha256Hex } from '../exports/seal-hash.js'
import { createWorkspaceState, type WorkspaceState } from '../ledger/state.js'
import type { KeyRecord, SystemState, WorkspaceRecord } from '../ledger/system.js'
import { CommandLog, sideDatabases, type SidePut } from '../log/command-log.js'
import { writeSnapshot, writeSystemSnapshot } from '../log/snapshot.js'
import { parseOutboxKey } from '../webhooks/outbox.js'
import { conversionDirName, fsyncDir, keepSingleLogAside, layoutFile, registryDir, shardDir, singleLogBackupName } from './layout.js'
import { LocalNode, type LocalNodeHooks } from './local-node.js'
import { shardOf } from './placement.js'

/**
 * A test seam (test/shard/convert.test.ts): the process kills itself (SIGKILL) on reaching the named step of a
 * conversion, so a test can start the data dir again from each point a crash could leave it at.
 */
export const convertKillAtEnv = 'TRUEUP_TEST_CONVERT_KILL_AT'
export type ConversionStep = 'first-log-built' | 'built' | 'registry-moved' | 'shards-moved' | 'switched'

function killPoint(step: ConversionStep): void {
  if (process.env[convertKillAtEnv] === step) process.kill(process.pid, 'SIGKILL')
}

/** What one new log holds: its system state, its workspaces' states, the webhook rows of their subscriptions. */
interface Target {
  readonly dir: string
  readonly system: SystemState
  readonly workspaces: WorkspaceState[]
  readonly side: SidePut[]
}

function systemOf(workspaces: readonly WorkspaceRecord[], keys: readonly KeyRecord[]): SystemState {
  // writeSystemSnapshot stores workspaces and keys; the indexes are rebuilt from them on load.
  return { workspaces: new Map(workspaces.map((record) => [record.id, record])), keys: new Map(keys.map((key) => [key.id, key])), keysByHash: new Map(), tags: new Set() }
}

/** The registry (the whole system state; its workspaces' states empty, as the registry keeps them) and one target per shard. */
function targetsOf(runtime: Runtime, building: string, shards: number): { registry: Target; shards: Target[] } {
  const records = [...runtime.system.workspaces.values()]
  const keys = [...runtime.system.keys.values()]
  const registry: Target = {
    dir: registryDir(building), system: systemOf(records, keys), side: [],
    workspaces: records.map((record) => createWorkspaceState(record.id, record.tag, sha256Hex, ed25519Signer, record.sealKeyAtCreation ? record.sealKey : null)),
  }
  const targets = Array.from({ length: shards }, (_, index): Target => {
    const own = records.filter((record) => shardOf(record.id, shards) === index)
    const ids = new Set(own.map((record) => record.id))
    return { dir: shardDir(building, index), system: systemOf(own, keys.filter((key) => ids.has(key.workspace))), workspaces: own.map((record) => runtime.actor(record.id).state), side: [] }
  })
  // Each outbox item and delivery row goes with its subscription's workspace; a deleted subscription's stay in the kept single log.
  const ownerOf = new Map<string, number>()
  for (const record of records) for (const id of runtime.actor(record.id).state.webhooks.subscriptions.keys()) ownerOf.set(id, shardOf(record.id, shards))
  for (const db of sideDatabases) {
    for (const { key, value } of runtime.log.sideDb(db).getRange({})) {
      const owner = ownerOf.get(parseOutboxKey(key).subscription)
      if (owner !== undefined) targets[owner].side.push({ db, key, value: Buffer.from(value) })
    }
  }
  return { registry, shards: targets }
}

/** One new log: begun after lastSeq, with the target's snapshots at lastSeq and its webhook rows, all on disk before it closes. */
async function writeTarget(config: Config, target: Target, lastSeq: number): Promise<void> {
  fs.mkdirSync(target.dir, { recursive: true })
  const log = new CommandLog({ path: path.join(target.dir, 'log'), groupCommitRecordsMax: config.groupCommitRecordsMax, pendingRecordsMax: config.pendingRecordsMax })
  try {
    log.beginAfter(lastSeq)
    let failure: Error | null = null
    const failed = (name: string, error: Error) => { failure ??= new Error(`converting to shards: the snapshot of ${name} could not be written: ${error.message}`) }
    for (const state of target.workspaces) await writeSnapshot(log.root, state, lastSeq, failed)
    writeSystemSnapshot(log.root, lastSeq, target.system, failed)
    await log.root.transaction(() => {
      for (const { db, key, value } of target.side) void log.sideDb(db).put(key, value)
    })
    await log.root.flushed
    if (failure !== null) throw failure
  } finally {
    await log.close()
  }
}

/** Writes a file whole or not at all: a temporary beside it, fsynced, renamed over it, the directory fsynced. */
function writeFileAtomic(file: string, text: string): void {
  const temporary = `${file}.tmp`
  fs.writeFileSync(temporary, text)
  const fd = fs.openSync(temporary, 'r+')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  fs.renameSync(temporary, file)
  fsyncDir(path.dirname(file))
}

/**
 * What a conversion cut short leaves is undone before it starts again: the building dir, and a registry or
 * shards dir already moved in (only a conversion makes them while DATA_DIR/shards.json is absent).
 */
function clearUnfinished(dataDir: string): void {
  fs.rmSync(path.join(dataDir, conversionDirName), { recursive: true, force: true })
  for (const dir of [registryDir(dataDir), path.join(dataDir, 'shards')]) fs.rmSync(dir, { recursive: true, force: true })
  fs.rmSync(`${layoutFile(dataDir)}.tmp`, { force: true })
}

/**
 * Converts the single log of dataDir to config.shards shards (the data dir locked by the caller, nothing served
 * yet); returns the line that says what was done. A failure leaves the single log the data dir's layout.
 */
export async function convertSingleLog(config: Config, hooks: LocalNodeHooks): Promise<string> {
  const dataDir = config.dataDir
  clearUnfinished(dataDir)
  const node = await LocalNode.open(config, { ...hooks, registry: false })
  let lastSeq: number
  let workspaces: number
  try {
    await node.durable()
    lastSeq = node.log.lastSeq
    workspaces = node.runtime.system.workspaces.size
    const building = path.join(dataDir, conversionDirName)
    const targets = targetsOf(node.runtime, building, config.shards)
    for (const target of [targets.registry, ...targets.shards]) {
      await writeTarget(config, target, lastSeq)
      killPoint('first-log-built')
    }
  } finally {
    await node.log.close()
  }
  switchLayout(dataDir, config.shards)
  return `trueup: converted DATA_DIR ${dataDir} from the single log to SHARDS=${config.shards}: ${workspaces} workspaces, seqs continue after ${lastSeq}; the single log is kept in ${path.join(dataDir, singleLogBackupName)}`
}

/** The built layout moved in, then shards.json (the switch), then the single log aside; each step survives a kill. */
function switchLayout(dataDir: string, shards: number): void {
  const building = path.join(dataDir, conversionDirName)
  fsyncDir(building)
  killPoint('built')
  fs.renameSync(registryDir(building), registryDir(dataDir))
  killPoint('registry-moved')
  fs.renameSync(path.join(building, 'shards'), path.join(dataDir, 'shards'))
  fsyncDir(dataDir)
  killPoint('shards-moved')
  writeFileAtomic(layoutFile(dataDir), `${JSON.stringify({ shards })}\n`)
  killPoint('switched')
  keepSingleLogAside(dataDir)
  fs.rmSync(building, { recursive: true, force: true })
}

/**
 * @module How a data dir is laid out for a number of shards (docs/API.md, Shards): SHARDS=1 keeps the single
 * log (DATA_DIR/log); more shards keep the registry of workspaces and keys in DATA_DIR/registry/log and each
 * shard's log in DATA_DIR/shards/<n>/log, with DATA_DIR/shards.json naming how many. A data dir of the single
 * log started with more shards is converted (convert.ts); one written for another number of shards is refused
 * with a message that says which, before anything is written.
 */

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { StartRefused } from '../start-refused.js'

/** Where the single log is kept once converted to shards, and where a conversion builds the new layout (convert.ts). */
export const singleLogBackupName = 'log.before-shards'
export const conversionDirName = 'shards.converting'

export function registryDir(dataDir: string): string {
  return path.join(dataDir, 'registry')
}

export function shardDir(dataDir: string, index: number): string {
  return path.join(dataDir, 'shards', String(index))
}

export function layoutFile(dataDir: string): string {
  return path.join(dataDir, 'shards.json')
}

/** How many shards the data dir was written with: 1 for the single log, 0 for a new data dir. */
export function shardsWritten(dataDir: string): number {
  const file = layoutFile(dataDir)
  if (fs.existsSync(file)) {
    const written = (JSON.parse(fs.readFileSync(file, 'utf8')) as { shards?: unknown }).shards
    if (typeof written !== 'number' || !Number.isSafeInteger(written) || written < 2) throw new StartRefused(`DATA_DIR ${dataDir}: ${file} does not name a number of shards`)
    return written
  }
  return fs.existsSync(path.join(dataDir, 'log')) ? 1 : 0
}

export function fsyncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/** Once DATA_DIR/shards.json exists, the single log still beside it (a stop right after the switch) is moved aside. */
export function keepSingleLogAside(dataDir: string): string | null {
  const single = path.join(dataDir, 'log')
  if (!fs.existsSync(layoutFile(dataDir)) || !fs.existsSync(single)) return null
  let backup = path.join(dataDir, singleLogBackupName)
  // A second conversion's backup (after the first was started again with SHARDS=1 by hand) does not replace the first.
  for (let suffix = 2; fs.existsSync(backup) && suffix < 1_000; suffix++) backup = path.join(dataDir, `${singleLogBackupName}.${suffix}`)
  fs.renameSync(single, backup)
  fsyncDir(dataDir)
  return backup
}

/**
 * SHARDS when the environment leaves it out: the number the data dir was written with (a single-log data dir
 * stays one log; only an explicit SHARDS converts it), else, for a new data dir, the cores this process may use,
 * at most `limit`. A shards.json that names no number falls to the cores here; the start then refuses it.
 */
export function shardsDefault(dataDir: string, limit: number): number {
  let written = 0
  try {
    written = shardsWritten(dataDir)
  } catch {
    written = 0
  }
  return written > 0 ? written : Math.max(1, Math.min(limit, os.availableParallelism()))
}

/**
 * Refuses a data dir written with another SHARDS; records the number on a new one. 'convert' when the data dir
 * is the single log and SHARDS is more (the caller converts it: convert.ts). A conversion whose switch was made
 * but whose single log was not yet moved aside is finished here.
 */
export function claimLayout(dataDir: string, shards: number): 'convert' | 'ready' {
  const written = shardsWritten(dataDir)
  if (written === 1 && shards > 1) return 'convert'
  if (written !== 0 && written !== shards) {
    throw new StartRefused(`refusing to start: DATA_DIR ${dataDir} was written with SHARDS=${written}; start it with SHARDS=${written} (moving workspaces from ${written} shards to ${shards} is not supported; only the single log, SHARDS=1, is converted to more shards)`)
  }
  if (written > 1) {
    keepSingleLogAside(dataDir)
    fs.rmSync(path.join(dataDir, conversionDirName), { recursive: true, force: true })
  }
  if (written === 0 && shards > 1) fs.writeFileSync(layoutFile(dataDir), `${JSON.stringify({ shards })}\n`)
  return 'ready'
}

/** A log of a data dir: its name as tools print it (`log`, `registry`, `shard <n>`) and its LMDB directory. */
export interface DataDirLog {
  readonly name: string
  readonly path: string
}

/** Every log of a data dir as laid out now: the single log, or the registry's and each shard's (for the log doctor). */
export function logsOf(dataDir: string): DataDirLog[] {
  const shards = shardsWritten(dataDir)
  if (shards <= 1) return [{ name: 'log', path: path.join(dataDir, 'log') }]
  return [
    { name: 'registry', path: path.join(registryDir(dataDir), 'log') },
    ...Array.from({ length: shards }, (_, index) => ({ name: `shard ${index}`, path: path.join(shardDir(dataDir, index), 'log') })),
  ]
}

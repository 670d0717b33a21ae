/**
 * @module How a data dir is laid out for a number of shards (docs/API.md, Shards): SHARDS=1 keeps the single
 * log (DATA_DIR/log); more shards keep the registry of workspaces and keys in DATA_DIR/registry/log and each
 * shard's log in DATA_DIR/shards/<n>/log, with DATA_DIR/shards.json naming how many. A data dir written for
 * another number of shards is refused with a message that says which, before anything is written.
 */

import fs from 'node:fs'
import path from 'node:path'
import { StartRefused } from '../start-refused.js'

export function registryDir(dataDir: string): string {
  return path.join(dataDir, 'registry')
}

export function shardDir(dataDir: string, index: number): string {
  return path.join(dataDir, 'shards', String(index))
}

function layoutFile(dataDir: string): string {
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

/** Refuses a data dir written with another SHARDS; records the number on a new one. */
export function claimLayout(dataDir: string, shards: number): void {
  const written = shardsWritten(dataDir)
  if (written !== 0 && written !== shards) {
    throw new StartRefused(`refusing to start: DATA_DIR ${dataDir} was written with SHARDS=${written}; start it with SHARDS=${written} (moving workspaces between shards is not supported yet)`)
  }
  if (written === 0 && shards > 1) fs.writeFileSync(layoutFile(dataDir), `${JSON.stringify({ shards })}\n`)
}

/** @module The log's record format: msgpackr-packed, versioned, checked on the way in and on the way out. */

import assert from 'node:assert/strict'
import { Packr } from 'msgpackr'
import type { WorkspaceCommand } from '../ledger/commands.js'
import type { SystemCommand } from '../ledger/system.js'

export const recordVersion = 1

/** One accepted command. `workspace` is null for system (admin) commands. */
export type LogRecord =
  | { readonly v: typeof recordVersion; readonly workspace: null; readonly command: SystemCommand }
  | { readonly v: typeof recordVersion; readonly workspace: string; readonly command: WorkspaceCommand }

// Plain maps, no shared structure table: every record decodes on its own, whatever came before it.
const packr = new Packr({ useRecords: false, mapsAsObjects: true, variableMapSize: true })

function assertRecord(record: LogRecord): void {
  assert.equal(record.v, recordVersion, 'unknown log record version')
  assert.ok(record.workspace === null || typeof record.workspace === 'string')
  assert.equal(typeof record.command, 'object')
  assert.equal(typeof record.command.type, 'string')
  assert.ok(Number.isSafeInteger(record.command.at_ms))
}

export function encodeRecord(record: LogRecord): Buffer {
  assertRecord(record)
  return packr.pack(record)
}

export function decodeRecord(bytes: Uint8Array): LogRecord {
  const record = packr.unpack(bytes) as LogRecord
  assertRecord(record)
  return record
}

export function encodeValue(value: unknown): Buffer {
  return packr.pack(value)
}

export function decodeValue(bytes: Uint8Array): unknown {
  return packr.unpack(bytes)
}

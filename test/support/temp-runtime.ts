/** @module A runtime over a real LMDB log in a temporary folder, removed when the test ends: for the shard's own tests. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type t from 'tap'
import { Runtime } from '../../src/actor/runtime.ts'
import { limitsDefault, type SystemCommand } from '../../src/ledger/system.ts'
import { CommandLog, type CommitFaults } from '../../src/log/command-log.ts'

type Tap = Parameters<Parameters<typeof t.test>[0]>[0]

export const runtimeNowMs = Date.parse('2026-12-01T12:00:00.000Z')

/** A started runtime with an empty log (faults: commits made to fail); the log is closed and the folder removed at the test's end. */
export function tempRuntime(t: Tap, faults?: CommitFaults): Runtime {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-shard-'))
  const log = new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 1_000, pendingRecordsMax: 10_000, faults })
  const runtime = new Runtime(log, 1_000_000, () => {})
  runtime.replay(() => runtimeNowMs)
  t.teardown(async () => {
    await log.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  return runtime
}

export function workspaceCreate(id: string): SystemCommand {
  return { type: 'workspace.create', at_ms: runtimeNowMs, id, time_zone: 'UTC', limits: limitsDefault, tag: `tag-${id}` }
}

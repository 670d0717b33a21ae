/** @module Honest seeding for the benchmarks: real commands through Runtime and CommandLog, in-process, then a snapshot. */
// HTTP would take hours for a million entries; these are the same commands the routes submit,
// executed by the same state machine and logged by the same group commit, only without the socket.

import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { Runtime } from '../src/actor/runtime.ts'
import type { WorkspaceActor } from '../src/actor/workspace-actor.ts'
import { createKeyCommand, newKeySecret, randomText } from '../src/api/admin-routes.ts'
import type { WorkspaceCommand } from '../src/ledger/commands.ts'
import { limitsDefault, scopes } from '../src/ledger/system.ts'
import { CommandLog } from '../src/log/command-log.ts'

/** Commands submitted between two waits for durability: below the pending bound, one or a few group commits. */
export const seedBatchCommands = 20_000
const pendingRecordsMax = 100_000
const groupCommitRecordsMax = 8_192
const dayMs = 86_400_000

export interface SeededWorkspace {
  readonly runtime: Runtime
  readonly log: CommandLog
  readonly actor: WorkspaceActor
  readonly secret: string
  readonly keyId: string
  /** A fake clock: every command gets the next millisecond, so runs are reproducible in shape. */
  readonly nextAtMs: () => number
}

export function openRuntime(dataDir: string): { runtime: Runtime; log: CommandLog } {
  fs.mkdirSync(dataDir, { recursive: true })
  const log = new CommandLog({ path: path.join(dataDir, 'log'), groupCommitRecordsMax, pendingRecordsMax })
  // The interval only matters for the periodic snapshots, which the seed never runs.
  return { runtime: new Runtime(log, 100_000_000), log }
}

export function awaitDurable(log: CommandLog): Promise<void> {
  return new Promise((resolve, reject) => log.afterDurable(log.lastSeq, (error) => (error === null ? resolve() : reject(error))))
}

/** An empty data dir with workspace `default` (UTC) and one all-scope key, as the service's first start makes. */
export function createWorkspace(dataDir: string, startAtMs: number): SeededWorkspace {
  const { runtime, log } = openRuntime(dataDir)
  runtime.replay(() => Date.now())
  assert.equal(runtime.system.workspaces.size, 0, `seed needs an empty data dir: ${dataDir}`)
  let atMs = startAtMs
  const nextAtMs = () => atMs++
  const created = runtime.submitSystem({ type: 'workspace.create', at_ms: nextAtMs(), id: 'default', time_zone: 'UTC', limits: limitsDefault, tag: randomText(40) })
  assert.ok(created.outcome.ok)
  const secret = newKeySecret()
  const key = createKeyCommand(nextAtMs(), 'default', scopes, null, 'bench', secret)
  assert.ok(runtime.submitSystem(key).outcome.ok)
  return { runtime, log, actor: runtime.actor('default'), secret, keyId: key.id, nextAtMs }
}

type CommandBody = DistributiveOmit<WorkspaceCommand, 'at_ms' | 'key_id' | 'visibility'>
type DistributiveOmit<T, K extends keyof never> = T extends unknown ? Omit<T, K> : never

/** Submits one command as the routes do (envelope stamped here); a rejection is a bug in the seed. */
export function submit(seeded: SeededWorkspace, body: CommandBody): unknown {
  const command = { ...body, at_ms: seeded.nextAtMs(), key_id: seeded.keyId, visibility: null } as WorkspaceCommand
  const { outcome } = seeded.actor.submit(command)
  if (!outcome.ok) throw new Error(`seed command ${command.type} rejected: ${outcome.code} ${outcome.message}`)
  return outcome.body
}

/** Submits count commands made by make(i), waiting for durability every batch so the pending bound holds. */
export async function submitMany(seeded: SeededWorkspace, count: number, make: (index: number) => CommandBody, onResult?: (index: number, body: unknown) => void): Promise<void> {
  for (let index = 0; index < count; index++) {
    const body = submit(seeded, make(index))
    if (onResult !== undefined) onResult(index, body)
    if ((index + 1) % seedBatchCommands === 0) await awaitDurable(seeded.log)
  }
  await awaitDurable(seeded.log)
}

/** Durable, then a forced snapshot of every workspace and the system, then closed: the server starts from it. */
export async function finish(seeded: SeededWorkspace): Promise<void> {
  await awaitDurable(seeded.log)
  seeded.runtime.snapshotDue(true)
  await seeded.log.close()
}

export function isoDate(atMs: number): string {
  return new Date(atMs).toISOString().slice(0, 10)
}

// ---------------------------------------------------------------------------------------------
// The HTTP data set

export interface HttpSeed {
  readonly secret: string
  /** acct:000 … acct:999, by id. */
  readonly accountIds: readonly string[]
  /** The window on `bank` whose period holds every one of the big entries. */
  readonly bigWindowId: string
  /** Windows with one statement line per entry, l<i+1> ↔ matchEntryIds[w][i], same date and amount. */
  readonly matchWindows: readonly { readonly id: string; readonly entryIds: readonly string[] }[]
  readonly entriesCount: number
  readonly seedMs: number
}

const bigStartMs = Date.UTC(2020, 0, 1)
const matchStartMs = Date.UTC(2023, 0, 1)
const linesPerCommand = 10_000

/**
 * accounts acct:000..999, bank, income:sales, clearing:<w>, income:matched; `entriesCount` entries
 * bank ↔ acct:(i mod 1000) one minute apart from 2020-01-01, one window on bank over all of them;
 * `matchWindowsCount` windows on clearing:<w> with `matchLinesCount` entries and lines each.
 */
export async function seedHttp(dataDir: string, entriesCount: number, matchWindowsCount: number, matchLinesCount: number): Promise<HttpSeed> {
  const startedMs = performance.now()
  const seeded = createWorkspace(dataDir, Date.UTC(2025, 0, 1))
  const names = Array.from({ length: 1000 }, (_, i) => `acct:${String(i).padStart(3, '0')}`)
  const accountIds: string[] = []
  const accountNames = [...names, 'assets:bank', 'income:sales', 'income:matched', ...Array.from({ length: matchWindowsCount }, (_, w) => `clearing:${w}`)]
  await submitMany(seeded, accountNames.length, (i) => ({ type: 'account.create', name: accountNames[i], tags: [] }), (i, body) => {
    if (i < names.length) accountIds.push((body as { id: string }).id)
  })
  const stepMs = 60_000
  await submitMany(seeded, entriesCount, (i) => ({
    type: 'entry.post', lines: [{ account: 'assets:bank', amount: 100 + (i % 997) }, { account: names[i % 1000], amount: -(100 + (i % 997)) }],
    effective_at_ms: bigStartMs + i * stepMs, description: `seed ${i}`, metadata: null,
  }))
  const bigTo = isoDate(bigStartMs + entriesCount * stepMs)
  const big = submit(seeded, { type: 'window.open', label: 'big', accounts: ['assets:bank'], from: isoDate(bigStartMs), to: bigTo, claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' }) as { id: string }
  const matchWindows: { id: string; entryIds: string[] }[] = []
  for (let w = 0; w < matchWindowsCount; w++) matchWindows.push(await seedMatchWindow(seeded, `clearing:${w}`, matchLinesCount))
  await finish(seeded)
  return { secret: seeded.secret, accountIds, bigWindowId: big.id, matchWindows, entriesCount, seedMs: performance.now() - startedMs }
}

/** One window on `account` with `count` entries and `count` statement lines that pair up one to one. */
async function seedMatchWindow(seeded: SeededWorkspace, account: string, count: number): Promise<{ id: string; entryIds: string[] }> {
  const entryIds: string[] = []
  const dayOf = (i: number) => matchStartMs + (i % 365) * dayMs
  await submitMany(seeded, count, (i) => ({
    type: 'entry.post', lines: [{ account, amount: i + 1 }, { account: 'income:matched', amount: -(i + 1) }],
    effective_at_ms: dayOf(i) + 12 * 3_600_000, description: null, metadata: null,
  }), (_, body) => entryIds.push((body as { id: string }).id))
  const window = submit(seeded, { type: 'window.open', label: `match ${account}`, accounts: [account], from: isoDate(matchStartMs), to: isoDate(matchStartMs + 364 * dayMs), claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' }) as { id: string }
  for (let first = 0; first < count; first += linesPerCommand) {
    const lines = Array.from({ length: Math.min(linesPerCommand, count - first) }, (_, k) => ({ amount: first + k + 1, date: isoDate(dayOf(first + k)), reference: null, description: null }))
    submit(seeded, { type: 'window.lines.add', window: window.id, lines })
    await awaitDurable(seeded.log)
  }
  return { id: window.id, entryIds }
}

// ---------------------------------------------------------------------------------------------
// As a child process: `node --import=tsx bench/seed.ts <dataDir> <entries> <matchWindows> <matchLines>`
// prints the HttpSeed as one JSON line, so the bench process never holds the seeded state itself.

if (process.argv[1] !== undefined && import.meta.filename === path.resolve(process.argv[1])) {
  const [dataDir, entries, windows, lines] = process.argv.slice(2)
  const seed = await seedHttp(dataDir, Number(entries), Number(windows), Number(lines))
  process.stdout.write(`${JSON.stringify(seed)}\n`)
}

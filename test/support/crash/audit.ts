/**
 * @module Crash loop: the audit after each restart. Everything acknowledged is there exactly once and unchanged; nothing
 * refused is there; the books of every workspace sum to zero; every window's figures are recomputed from scratch from
 * the entries list and the matches list; every stored Idempotency-Key answer replays byte for byte.
 */

import type { Prng } from '../../simulation/prng.ts'
import { listAll, send } from './client.ts'
import type { Ledger } from './model.ts'
import type { FreeEntry, FreeLine, OwnedWindow, Workspace } from './workload.ts'

export interface AuditReport {
  /** Acknowledged facts missing or changed after the restart: must be 0. */
  readonly lost: number
  /** Every inconsistency, lost ones included (first 50). */
  readonly problems: string[]
  readonly problemCount: number
  readonly entries: number
  readonly windows: number
  readonly matches: number
  readonly residualsChecked: number
  readonly replaysChecked: number
  /** Entries present that no client saw acknowledged (in flight at a kill): allowed, counted. */
  readonly unacknowledgedSurvivors: number
  /** Live windows per workspace and owner writer, as the server has them, for the next round's load. */
  readonly liveWindows: Map<string, Map<number, OwnedWindow[]>>
}

/** Replays checked after each restart beyond the last round's keys (which are all checked). */
const olderReplaysSample = 100

class Tally {
  lost = 0
  problemCount = 0
  readonly problems: string[] = []
  residualsChecked = 0
  replaysChecked = 0

  problem(message: string, lost = false): void {
    this.problemCount++
    if (lost) this.lost++
    if (this.problems.length < 50) this.problems.push(message)
  }
}

function lineSum(lines: readonly { account: string; amount: number }[], accounts: ReadonlySet<string>): number {
  let sum = 0
  for (const line of lines) if (accounts.has(line.account)) sum += line.amount
  return sum
}

async function auditEntries(tally: Tally, ledger: Ledger, baseUrl: string, workspace: Workspace): Promise<{ count: number; survivors: number }> {
  const entries = await listAll(baseUrl, workspace.key, '/v2/entries')
  const byId = new Map<string, any>()
  const descriptions = new Set<string>()
  let survivors = 0
  for (const entry of entries) {
    if (byId.has(entry.id)) tally.problem(`${workspace.id}: entry ${entry.id} is listed twice`)
    byId.set(entry.id, entry)
    if (descriptions.has(entry.description)) tally.problem(`${workspace.id}: the post ${entry.description} is in the ledger twice`)
    descriptions.add(entry.description)
    if (!ledger.attemptedDescriptions.has(entry.description)) tally.problem(`${workspace.id}: entry ${entry.id} (${entry.description}) was never posted`)
    if (ledger.refusedDescriptions.has(entry.description)) tally.problem(`${workspace.id}: refused post ${entry.description} is in the ledger`)
    if (lineSum(entry.lines, new Set(entry.lines.map((line: { account: string }) => line.account))) !== 0) tally.problem(`${workspace.id}: entry ${entry.id} does not sum to zero`)
    if (!ledger.entries.has(entry.id)) survivors++
  }
  for (const [id, acknowledged] of ledger.entries) {
    if (acknowledged.workspace !== workspace.id) continue
    const found = byId.get(id)
    if (found === undefined) tally.problem(`${workspace.id}: acknowledged entry ${id} (${acknowledged.description}) is missing`, true)
    else if (JSON.stringify(found) !== acknowledged.text) tally.problem(`${workspace.id}: acknowledged entry ${id} differs from its 201`, true)
  }
  for (const [id, seenIn] of ledger.readEntries) {
    if (seenIn === workspace.id && !byId.has(id)) tally.problem(`${workspace.id}: entry ${id}, shown by a 200 read before the kill, is missing (a dirty read)`, true)
  }
  await auditBooks(tally, baseUrl, workspace, entries)
  return { count: entries.length, survivors }
}

/** Each account's balance is the sum of its lines in the list, and all balances sum to zero. */
async function auditBooks(tally: Tally, baseUrl: string, workspace: Workspace, entries: readonly any[]): Promise<void> {
  const expected = new Map<string, number>()
  for (const entry of entries) for (const line of entry.lines) expected.set(line.account, (expected.get(line.account) ?? 0) + line.amount)
  const farFuture = encodeURIComponent(new Date(Date.now() + 365 * 86_400_000).toISOString())
  let total = 0
  for (const account of workspace.accounts) {
    const reply = await send(baseUrl, workspace.key, 'GET', `/v2/accounts/${encodeURIComponent(account)}/balance?at=${farFuture}`)
    if (reply.status !== 200) {
      tally.problem(`${workspace.id}: balance of ${account}: ${reply.status}`)
      continue
    }
    if (reply.body.balance !== (expected.get(account) ?? 0)) tally.problem(`${workspace.id}: ${account} balance ${reply.body.balance} ≠ Σ of its lines ${expected.get(account) ?? 0}`)
    total += reply.body.balance
  }
  if (total !== 0) tally.problem(`${workspace.id}: the books sum to ${total}, not zero`)
}

interface WindowData {
  readonly window: any
  readonly lines: any[]
  readonly matches: any[]
  readonly entries: any[]
}

async function readWindowData(baseUrl: string, workspace: Workspace, window: any): Promise<WindowData> {
  return {
    window,
    lines: await listAll(baseUrl, workspace.key, `/v2/reconciliations/${window.id}/lines`),
    matches: await listAll(baseUrl, workspace.key, `/v2/reconciliations/${window.id}/matches`),
    entries: await listAll(baseUrl, workspace.key, `/v2/entries?reconciliation=${window.id}`),
  }
}

/** residual = claimed − derived − Σ active matched_amount, derived recomputed from the window's entries list. */
function auditFigures(tally: Tally, data: WindowData, label: string): void {
  const { window } = data
  const accounts = new Set<string>(window.accounts)
  const active = data.matches.filter((match) => match.reversed_at === null)
  const matchedSum = active.reduce((sum, match) => sum + match.matched_amount, 0)
  const terminalAt: string | null = window.closed_at ?? window.abandoned_at
  let derivedOk: boolean
  if (terminalAt === null) {
    const derived = data.entries.reduce((sum, entry) => sum + lineSum(entry.lines, accounts), 0)
    derivedOk = window.derived_movement === derived
    const state = window.residual === 0 && active.length > 0 ? 'balanced' : 'open'
    if (window.state !== state) tally.problem(`${label}: state ${window.state}, but residual ${window.residual} with ${active.length} active matches means ${state}`)
  } else {
    // Frozen at the close: only entries posted up to it count. One posted in the same millisecond may fall either side.
    const before = data.entries.filter((entry) => entry.posted_at < terminalAt).reduce((sum, entry) => sum + lineSum(entry.lines, accounts), 0)
    const upTo = data.entries.filter((entry) => entry.posted_at <= terminalAt).reduce((sum, entry) => sum + lineSum(entry.lines, accounts), 0)
    derivedOk = window.derived_movement === before || window.derived_movement === upTo
  }
  if (!derivedOk) tally.problem(`${label}: derived_movement ${window.derived_movement} is not the sum of its entries`)
  if (window.residual !== window.claimed_movement - window.derived_movement - matchedSum) {
    tally.problem(`${label}: residual ${window.residual} ≠ ${window.claimed_movement} − ${window.derived_movement} − ${matchedSum}`)
  }
  if (window.matched_count !== active.length) tally.problem(`${label}: matched_count ${window.matched_count} ≠ ${active.length} active matches`)
  tally.residualsChecked++
}

/** What was acknowledged of this window (lines, matches, unmatches, the close) is there and unchanged. */
function auditAcknowledged(tally: Tally, ledger: Ledger, data: WindowData, label: string): void {
  const facts = ledger.windows.get(data.window.id)
  if (facts === undefined) return
  const lines = new Map(data.lines.map((line) => [line.id, line]))
  for (const [id, line] of facts.lines) {
    const found = lines.get(id)
    if (found === undefined || found.amount !== line.amount || found.date !== line.date) tally.problem(`${label}: acknowledged statement line ${id} is missing or changed`, true)
  }
  const matches = new Map(data.matches.map((match) => [match.id, match]))
  for (const match of ledger.matches.values()) {
    if (match.window !== data.window.id) continue
    const found = matches.get(match.id)
    if (found === undefined || found.matched_amount !== match.matchedAmount) tally.problem(`${label}: acknowledged match ${match.id} is missing or changed`, true)
    else if (match.reversed && found.reversed_at === null) tally.problem(`${label}: the acknowledged unmatch of ${match.id} is lost`, true)
  }
  if (facts.terminal !== null) {
    const { window } = data
    if (window.state !== facts.terminal.state || window.derived_movement !== facts.terminal.derived || window.residual !== facts.terminal.residual) {
      tally.problem(`${label}: acknowledged ${facts.terminal.state} (derived ${facts.terminal.derived}, residual ${facts.terminal.residual}) is now ${window.state} (${window.derived_movement}, ${window.residual})`, true)
    }
  }
}

/** The writer-facing view of a live window: free lines, free entries, active matches. */
function ownedWindow(data: WindowData): OwnedWindow {
  const accounts = new Set<string>(data.window.accounts)
  const active = data.matches.filter((match) => match.reversed_at === null)
  const entryOf = (entry: any): FreeEntry => ({ id: entry.id, amount: lineSum(entry.lines, accounts), date: entry.effective_at.slice(0, 10) })
  const lineOf = (line: any): FreeLine => ({ id: line.id, amount: line.amount, date: line.date })
  const matchedEntries = new Set<string>(active.flatMap((match) => match.entries))
  const linesById = new Map(data.lines.map((line) => [line.id, line]))
  const entriesById = new Map(data.entries.map((entry) => [entry.id, entry]))
  return {
    id: data.window.id,
    from: data.window.window.from,
    to: data.window.window.to,
    lines: data.lines.filter((line) => line.match === null).map(lineOf),
    entries: data.entries.filter((entry) => !matchedEntries.has(entry.id)).map(entryOf),
    matches: active.map((match) => ({
      id: match.id,
      lines: match.statement_lines.map((id: string) => lineOf(linesById.get(id))),
      entries: match.entries.filter((id: string) => entriesById.has(id)).map((id: string) => entryOf(entriesById.get(id))),
    })),
  }
}

async function auditWindows(tally: Tally, ledger: Ledger, baseUrl: string, workspace: Workspace, live: Map<number, OwnedWindow[]>): Promise<{ windows: number; matches: number }> {
  const windows = await listAll(baseUrl, workspace.key, '/v2/reconciliations')
  const ids = new Set(windows.map((window) => window.id))
  for (const facts of ledger.windows.values()) {
    if (facts.workspace === workspace.id && !ids.has(facts.id)) tally.problem(`${workspace.id}: acknowledged window ${facts.id} (${facts.label}) is missing`, true)
  }
  let matches = 0
  for (const window of windows) {
    const label = `${workspace.id} window ${window.id} (${window.label})`
    if (!ledger.attemptedLabels.has(window.label)) tally.problem(`${label} was never opened`)
    if (ledger.refusedLabels.has(window.label)) tally.problem(`${label} was refused and is there`)
    const data = await readWindowData(baseUrl, workspace, window)
    matches += data.matches.length
    auditFigures(tally, data, label)
    auditAcknowledged(tally, ledger, data, label)
    if (window.state === 'open' || window.state === 'balanced') {
      const owner = Number(/bank-(\d+)$/.exec(window.accounts[0])?.[1] ?? -1)
      live.set(owner, [...(live.get(owner) ?? []), ownedWindow(data)])
    }
  }
  return { windows: windows.length, matches }
}

/** The last round's keyed answers, all of them, and a sample of older ones, replay byte for byte. */
async function auditReplays(tally: Tally, ledger: Ledger, baseUrl: string, workspaces: readonly Workspace[], round: number, random: Prng): Promise<void> {
  const keys = new Map(workspaces.map((workspace) => [workspace.id, workspace.key]))
  const recent = ledger.keyed.filter((stored) => stored.round === round)
  const older = ledger.keyed.filter((stored) => stored.round !== round)
  const sample = Array.from({ length: Math.min(olderReplaysSample, older.length) }, () => random.pick(older))
  for (const stored of [...recent, ...sample]) {
    const reply = await send(baseUrl, keys.get(stored.workspace)!, stored.method, stored.path, stored.body, stored.idempotencyKey)
    tally.replaysChecked++
    if (reply.status !== stored.status || !reply.replayed || reply.text !== stored.text) {
      tally.problem(`${stored.workspace}: Idempotency-Key ${stored.idempotencyKey} answered ${reply.status} replayed=${reply.replayed}, ${reply.text === stored.text ? 'same' : 'another'} body`, true)
    }
  }
}

export async function audit(ledger: Ledger, baseUrl: string, workspaces: readonly Workspace[], round: number, random: Prng): Promise<AuditReport> {
  const tally = new Tally()
  let entries = 0
  let survivors = 0
  let windows = 0
  let matches = 0
  const liveWindows = new Map<string, Map<number, OwnedWindow[]>>()
  for (const workspace of workspaces) {
    const entryReport = await auditEntries(tally, ledger, baseUrl, workspace)
    entries += entryReport.count
    survivors += entryReport.survivors
    const live = new Map<number, OwnedWindow[]>()
    const windowReport = await auditWindows(tally, ledger, baseUrl, workspace, live)
    liveWindows.set(workspace.id, live)
    windows += windowReport.windows
    matches += windowReport.matches
  }
  await auditReplays(tally, ledger, baseUrl, workspaces, round, random)
  return {
    lost: tally.lost, problems: tally.problems, problemCount: tally.problemCount, entries, windows, matches,
    residualsChecked: tally.residualsChecked, replaysChecked: tally.replaysChecked, unacknowledgedSurvivors: survivors, liveWindows,
  }
}

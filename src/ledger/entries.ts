/** @module Postings: validate and post a balanced entry, find and present entries (balances.ts answers balances). */

import { reject, type ErrorDetail } from '../errors.js'
import { findAccount } from './accounts.js'
import { amountsPerAccount, insertEntryPoints } from './balances.js'
import { formatTimestamp } from './calendar.js'
import type { EntryPost } from './commands.js'
import { makeId, parseId } from './ids.js'
import { addSafe } from './money.js'
import { accept, type Accepted, type Outcome } from './outcome.js'
import type { Account, Entry, EntryLine, WorkspaceState } from './state.js'
import { isVisible, type Visibility } from './visibility.js'
import { applyEntryToWindows, checkEntryAgainstWindows } from './window-effects.js'

export function postEntry(state: WorkspaceState, command: EntryPost): Outcome {
  // Plain loops, no closures: this runs for every posting, live and replayed (a million at start-up).
  const resolved: Account[] = []
  let unknown: ErrorDetail[] | null = null
  let firstUnknown = ''
  for (let index = 0; index < command.lines.length; index++) {
    const line = command.lines[index]
    const account = findAccount(state, line.account, command.visibility)
    if (account !== undefined) {
      resolved.push(account)
      continue
    }
    if (unknown === null) {
      unknown = []
      firstUnknown = line.account
    }
    unknown.push({ path: `/lines/${index}/account`, message: `unknown account ${line.account}` })
  }
  if (unknown !== null) return reject('account_unknown', `Unknown account: ${firstUnknown}.`, unknown)
  if ((command.rules ?? 1) >= 2 && allOnOneAccount(resolved)) {
    return reject('request_invalid', `An entry moves money between accounts; every line of this one is on ${resolved[0].name}.`, [{ path: '/lines', message: 'all lines are on one account' }])
  }
  // Balance is decided exactly first (entry_unbalanced precedes amount_out_of_range), then each side's
  // total must be safe, whatever the order of the lines.
  const exactTotal = exactSumOf(command.lines)
  if (exactTotal !== 0 && exactTotal !== 0n) return reject('entry_unbalanced', `The entry lines sum to ${exactTotal}, not 0.`)
  let debits: number | null = 0
  for (const line of command.lines) {
    if (line.amount <= 0) continue
    debits = addSafe(debits, line.amount)
    if (debits === null) return reject('amount_out_of_range', 'The debits of this entry sum beyond the safe integer range.')
  }
  const effectiveAtMs = command.effective_at_ms ?? command.at_ms
  const lines: EntryLine[] = command.lines.map((line, index) => ({ accountSeq: resolved[index].seq, amount: line.amount }))
  const perAccount = amountsPerAccount(lines)
  for (const [accountSeq, amount] of perAccount) {
    if (!state.accounts[accountSeq - 1].index.canInsert(effectiveAtMs, amount)) {
      return reject('amount_out_of_range', `The balance of ${state.accounts[accountSeq - 1].name} would leave the safe integer range.`)
    }
  }
  const seq = state.entries.length + 1
  const entry: Entry = {
    id: makeId('ent_', state.tag, seq),
    seq,
    lines,
    effectiveAtMs,
    postedAtMs: command.at_ms,
    description: command.description,
    metadata: command.metadata,
  }
  const windowRejection = checkEntryAgainstWindows(state, entry, perAccount)
  if (windowRejection !== null) return windowRejection
  insertEntryPoints(state, entry, perAccount)
  state.entries.push(entry)
  applyEntryToWindows(state, entry, perAccount, command)
  return postedAnswer(state, entry)
}

/**
 * The answer to a posting: its JSON written directly (what the reply sends and an idempotency record
 * keeps), without the view object and JSON.stringify's walk over it; the view only if something reads
 * `body` (the webhook events, in the same synchronous step).
 */
function postedAnswer(state: WorkspaceState, entry: Entry): Accepted {
  let view: object | undefined
  return { ok: true, status: 201, json: entryJson(state, entry), get body() { return (view ??= entryView(state, entry)) } }
}

/** Exactly JSON.stringify(entryView(state, entry)), without building the view (test/ledger/entry-json.test.ts). */
export function entryJson(state: WorkspaceState, entry: Entry): string {
  let lines = ''
  for (let index = 0; index < entry.lines.length; index++) {
    const line = entry.lines[index]
    const account = state.accounts[line.accountSeq - 1]
    lines += `${index === 0 ? '' : ','}{"account":${JSON.stringify(account.name)},"account_id":${JSON.stringify(account.id)},"amount":${JSON.stringify(line.amount)}}`
  }
  // A field that is undefined (a record from before it existed) is left out, as JSON.stringify leaves it out.
  const description = entry.description === undefined ? '' : `,"description":${JSON.stringify(entry.description)}`
  const metadata = entry.metadata === undefined ? '' : `,"metadata":${JSON.stringify(entry.metadata)}`
  return `{"id":${JSON.stringify(entry.id)},"lines":[${lines}],"effective_at":"${formatTimestamp(entry.effectiveAtMs)}","posted_at":"${formatTimestamp(entry.postedAtMs)}"${description}${metadata}}`
}

/** Lines all on one account move nothing (a +5 and a −5 on assets:bank), yet could be matched as if they did. */
function allOnOneAccount(accounts: readonly Account[]): boolean {
  for (let index = 1; index < accounts.length; index++) if (accounts[index] !== accounts[0]) return false
  return true
}

/**
 * The exact sum of the amounts: a number when every amount and every partial sum is a safe integer
 * (then the float sum is exact, and it prints as the BigInt would), else the BigInt sum.
 */
function exactSumOf(lines: EntryPost['lines']): number | bigint {
  let total: number | null = 0
  for (const line of lines) {
    total = Number.isSafeInteger(line.amount) ? addSafe(total, line.amount) : null
    if (total === null) return lines.reduce((sum, each) => sum + BigInt(each.amount), 0n)
  }
  return total
}

export function entryView(state: WorkspaceState, entry: Entry): object {
  return {
    id: entry.id,
    lines: entry.lines.map((line) => {
      const account = state.accounts[line.accountSeq - 1]
      return { account: account.name, account_id: account.id, amount: line.amount }
    }),
    effective_at: formatTimestamp(entry.effectiveAtMs),
    posted_at: formatTimestamp(entry.postedAtMs),
    description: entry.description,
    metadata: entry.metadata,
  }
}

export function isEntryVisible(state: WorkspaceState, entry: Entry, visibility: Visibility): boolean {
  if (visibility === null) return true
  return entry.lines.every((line) => isVisible(visibility, state.accounts[line.accountSeq - 1].name))
}

export function findEntry(state: WorkspaceState, id: string, visibility: Visibility): Entry | undefined {
  const seq = parseId('ent_', state.tag, id)
  const entry = seq > 0 ? state.entries[seq - 1] : undefined
  if (entry === undefined || !isEntryVisible(state, entry, visibility)) return undefined
  return entry
}

export function getEntry(state: WorkspaceState, id: string, visibility: Visibility): Outcome {
  const entry = findEntry(state, id, visibility)
  if (entry === undefined) return reject('not_found', 'No such entry.')
  return accept(200, entryView(state, entry))
}

/** @module Postings: validate and post a balanced entry, find and present entries (balances.ts answers balances). */

import { reject, type ErrorDetail, type Rejection } from '../errors.js'
import { findAccount } from './accounts.js'
import { amountsPerAccount, insertEntryPoints, type PostingLines } from './balances.js'
import { formatTimestamp } from './calendar.js'
import type { CommandEnvelope, EntryPost } from './commands.js'
import { parseId } from './ids.js'
import { addSafe } from './money.js'
import { accept, type Accepted, type Outcome } from './outcome.js'
import { Entry, type Account, type EntryLine, type WorkspaceState } from './state.js'
import { isVisible, type Visibility } from './visibility.js'
import { applyEntryToClosedWindows } from './closed-windows.js'
import { periodLockRejection, postCloseWarning } from './period-locks.js'
import { EntryJsonWriter } from './entry-json.js'
import { applyEntryToWindows, checkEntryAgainstWindows } from './window-effects.js'

/** What postEntry reads of a command: the entry's own fields, the batch's envelope for a batch item. */
export type EntryFields = Pick<EntryPost, 'lines' | 'effective_at_ms' | 'description' | 'metadata'>
export type EntryEnvelope = CommandEnvelope & { readonly rules?: number; readonly lock_closed?: boolean }

/**
 * An entry that passed every rule against the state as it is, not yet applied: its fields as the command
 * gave them (accounts resolved). applyEntry makes the Entry, in the workspace's store.
 */
export class CheckedEntry implements PostingLines {
  readonly seq: number
  readonly effectiveAtMs: number
  readonly postedAtMs: number
  readonly lines: readonly EntryLine[]
  readonly description: string | null
  readonly metadata: Readonly<Record<string, string>> | null
  readonly perAccount: ReadonlyMap<number, number>

  constructor(seq: number, effectiveAtMs: number, postedAtMs: number, lines: readonly EntryLine[], description: string | null, metadata: Readonly<Record<string, string>> | null) {
    this.seq = seq
    this.effectiveAtMs = effectiveAtMs
    this.postedAtMs = postedAtMs
    this.lines = lines
    this.description = description
    this.metadata = metadata
    this.perAccount = amountsPerAccount(this)
  }

  get lineCount(): number {
    return this.lines.length
  }

  lineAccountSeq(index: number): number {
    return this.lines[index].accountSeq
  }

  lineAmount(index: number): number {
    return this.lines[index].amount
  }
}

export function postEntry(state: WorkspaceState, command: EntryPost): Outcome {
  const checked = checkEntry(state, command, command)
  if ('ok' in checked) return checked
  const warning = postCloseWarning(state, checked.perAccount.keys(), checked.effectiveAtMs, command.visibility)
  return postedAnswer(state, applyEntry(state, checked, command), warning)
}

/**
 * Every rule of a posting against the current state, nothing changed (a batch checks all items first).
 * seq: the entry's place, the next one unless a batch checks several before posting them.
 */
export function checkEntry(state: WorkspaceState, item: EntryFields, envelope: EntryEnvelope, seq = state.entries.length + 1): CheckedEntry | Rejection {
  // Plain loops, no closures: this runs for every posting, live and replayed (a million at start-up).
  const resolved: Account[] = []
  let unknown: ErrorDetail[] | null = null
  let firstUnknown = ''
  for (let index = 0; index < item.lines.length; index++) {
    const line = item.lines[index]
    const account = findAccount(state, line.account, envelope.visibility)
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
  if ((envelope.rules ?? 1) >= 2 && allOnOneAccount(resolved)) {
    return reject('request_invalid', `An entry moves money between accounts; every line of this one is on ${resolved[0].name}.`, [{ path: '/lines', message: 'all lines are on one account' }])
  }
  // Balance is decided exactly first (entry_unbalanced precedes amount_out_of_range), then each side's
  // total must be safe, whatever the order of the lines.
  const unbalanced = unbalancedRejection(item.lines, resolved)
  if (unbalanced !== null) return unbalanced
  let debits: number | null = 0
  for (const line of item.lines) {
    if (line.amount <= 0) continue
    debits = addSafe(debits, line.amount)
    if (debits === null) return reject('amount_out_of_range', 'The debits of this entry sum beyond the safe integer range.')
  }
  const effectiveAtMs = item.effective_at_ms ?? envelope.at_ms
  const lines: EntryLine[] = item.lines.map((line, index) => ({ accountSeq: resolved[index].seq, amount: line.amount }))
  const checked = new CheckedEntry(seq, effectiveAtMs, envelope.at_ms, lines, item.description, item.metadata)
  const perAccount = checked.perAccount
  for (const [accountSeq, amount] of perAccount) {
    if (!state.accounts[accountSeq - 1].index.canInsert(effectiveAtMs, amount)) {
      return reject('amount_out_of_range', `The balance of ${state.accounts[accountSeq - 1].name} would leave the safe integer range.`)
    }
  }
  const windowRejection = checkEntryAgainstWindows(state, checked, perAccount)
  if (windowRejection !== null) return windowRejection
  return periodLockRejection(state, perAccount.keys(), effectiveAtMs, envelope.lock_closed === true, envelope.visibility) ?? checked
}

/** Posts a checked entry, which must be the next one; answers the Entry it made. */
export function applyEntry(state: WorkspaceState, checked: CheckedEntry, envelope: CommandEnvelope): Entry {
  const { seq, perAccount } = checked
  if (seq !== state.entries.length + 1) throw new Error(`entry ${seq} is not the next one (${state.entries.length + 1})`)
  const entry = Entry.create(seq, checked.effectiveAtMs, checked.postedAtMs, checked.lines, checked.description, checked.metadata, state.entryStore)
  insertEntryPoints(state, entry, perAccount)
  state.entries.push(entry)
  applyEntryToWindows(state, entry, perAccount, envelope)
  applyEntryToClosedWindows(state.windows, entry, perAccount)
  return entry
}

/**
 * The answer to a posting: its JSON written directly (what the reply sends and an idempotency record
 * keeps), without the view object and JSON.stringify's walk over it; the view only if something reads
 * `body` (the webhook events, in the same synchronous step).
 */
export function postedAnswer(state: WorkspaceState, entry: Entry, warning?: string): Accepted {
  return new PostedAnswer(state, entry, warning)
}

/**
 * A posting's answer: its JSON text written at once, its view (for webhook events) built only when read.
 * A class, not an object literal with a getter: that made a closure and an accessor pair for every posting.
 * Its body is on the prototype, so a spread copy must name it (workspace.ts adds events that way).
 */
class PostedAnswer implements Accepted {
  readonly ok = true
  readonly status = 201
  readonly json: string
  readonly warning: string | undefined
  readonly #state: WorkspaceState
  readonly #entry: Entry
  #view: object | undefined = undefined

  constructor(state: WorkspaceState, entry: Entry, warning: string | undefined) {
    this.#state = state
    this.#entry = entry
    this.json = entryJson(state, entry)
    this.warning = warning
  }

  get body(): object {
    return (this.#view ??= entryView(this.#state, this.#entry))
  }
}

/** Exactly JSON.stringify(entryView(state, entry)), without building the view (test/ledger/entry-json.test.ts). */
export function entryJson(state: WorkspaceState, entry: Entry): string {
  return new EntryJsonWriter(state, false).write(entry)
}

/** Lines all on one account move nothing (a +5 and a −5 on assets:bank), yet could be matched as if they did. */
function allOnOneAccount(accounts: readonly Account[]): boolean {
  for (let index = 1; index < accounts.length; index++) if (accounts[index] !== accounts[0]) return false
  return true
}

/** entry_unbalanced unless the lines sum to zero in each currency (docs/API.md, Accounts (currencies)), with a detail per currency that does not. */
function unbalancedRejection(lines: EntryPost['lines'], accounts: readonly Account[]): Rejection | null {
  if (allInOneCurrency(accounts)) {
    const exactTotal = exactSumOf(lines)
    if (exactTotal === 0 || exactTotal === 0n) return null
    return reject('entry_unbalanced', `The entry lines sum to ${exactTotal}, not 0.`, [{ path: '/lines', message: `${accounts[0].currency} lines sum to ${exactTotal}` }])
  }
  const byCurrency = new Map<string, EntryPost['lines'][number][]>()
  lines.forEach((line, index) => {
    const currency = accounts[index].currency
    const group = byCurrency.get(currency)
    if (group === undefined) byCurrency.set(currency, [line])
    else group.push(line)
  })
  const details: ErrorDetail[] = []
  for (const [currency, group] of byCurrency) {
    const total = exactSumOf(group)
    if (total !== 0 && total !== 0n) details.push({ path: '/lines', message: `${currency} lines sum to ${total}` })
  }
  if (details.length === 0) return null
  return reject('entry_unbalanced', `An entry balances in each currency: ${details.map((detail) => detail.message).join('; ')}, not 0.`, details)
}

function allInOneCurrency(accounts: readonly Account[]): boolean {
  for (let index = 1; index < accounts.length; index++) if (accounts[index].currency !== accounts[0].currency) return false
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
      return { account: account.name, account_id: account.id, currency: account.currency, amount: line.amount }
    }),
    effective_at: formatTimestamp(entry.effectiveAtMs),
    posted_at: formatTimestamp(entry.postedAtMs),
    description: entry.description,
    metadata: entry.metadata,
    ...reversalLinks(state, entry),
  }
}

/** `reverses` and `reversed_by` (docs/API.md, Reversals), each only when there is one: entries without keep their shape. */
function reversalLinks(state: WorkspaceState, entry: Entry): { reverses?: string; reversed_by?: string } {
  if (state.reverses.size === 0) return {}
  const reverses = state.reverses.get(entry.seq)
  const reversedBy = state.reversedBy.get(entry.seq)
  return {
    ...(reverses === undefined ? {} : { reverses: state.entries[reverses - 1].id }),
    ...(reversedBy === undefined ? {} : { reversed_by: state.entries[reversedBy - 1].id }),
  }
}

export function isEntryVisible(state: WorkspaceState, entry: Entry, visibility: Visibility): boolean {
  if (visibility === null) return true
  for (let index = 0; index < entry.lineCount; index++) {
    if (!isVisible(visibility, state.accounts[entry.lineAccountSeq(index) - 1].name)) return false
  }
  return true
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

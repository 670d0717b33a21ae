/**
 * @module Reversals (docs/API.md, Reversals): an entry undone by a new one with every line negated, through the
 * one posting path (entries.ts: its rules, the period locks, windows and drift), linked both ways; at most once.
 */

import { reject } from '../errors.js'
import type { EntryReverse } from './commands.js'
import { applyEntry, checkEntry, findEntry, postedAnswer } from './entries.js'
import type { Outcome } from './outcome.js'
import { postCloseWarning } from './period-locks.js'
import type { WorkspaceState } from './state.js'

export function reverseEntry(state: WorkspaceState, command: EntryReverse): Outcome {
  const original = findEntry(state, command.entry, command.visibility)
  if (original === undefined) return reject('not_found', 'No such entry.')
  const reversedBy = state.reversedBy.get(original.seq)
  if (reversedBy !== undefined) return reject('entry_already_reversed', `Entry ${original.id} was already reversed by ${state.entries[reversedBy - 1].id}.`)
  const lines: { account: string; amount: number }[] = []
  for (let index = 0; index < original.lineCount; index++) {
    lines.push({ account: state.accounts[original.lineAccountSeq(index) - 1].id, amount: -original.lineAmount(index) })
  }
  const item = { lines, effective_at_ms: command.effective_at_ms, description: command.description ?? `Reversal of ${original.id}`, metadata: null }
  // The negation of an accepted entry: balanced, on accounts the key sees; the rules left to check are the state's (range, windows, locks).
  const checked = checkEntry(state, item, command)
  if ('ok' in checked) return checked
  const warning = postCloseWarning(state, checked.perAccount.keys(), checked.effectiveAtMs, command.visibility)
  const reversal = applyEntry(state, checked, command)
  linkReversal(state, original.seq, reversal.seq)
  return postedAnswer(state, reversal, warning)
}

/** Records that `reversal` reversed `original` (by seq), live and on restore. */
export function linkReversal(state: WorkspaceState, original: number, reversal: number): void {
  state.reversedBy.set(original, reversal)
  state.reverses.set(reversal, original)
}

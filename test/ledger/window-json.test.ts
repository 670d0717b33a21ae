/** A window's answer written out (src/ledger/window-json.ts): byte for byte JSON.stringify of its view. */
import fc from 'fast-check'
import t from 'tap'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import { answerText, type Outcome } from '../../src/ledger/outcome.ts'
import { createWorkspaceState } from '../../src/ledger/state.ts'
import { windowJson, type WindowView } from '../../src/ledger/window-json.ts'
import { getWindow } from '../../src/ledger/windows.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'

const text = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\u0000\n', '\ud800', '\u2028', 'November statement'))
const textOrNull = fc.option(text, { nil: null })
const amount = fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constantFrom(-0, 0, -Number.MAX_SAFE_INTEGER))
const amountOrNull = fc.option(amount, { nil: null })

const sealOrNull = fc.option(fc.record({ sha256: text, signature: textOrNull, public_key: textOrNull }), { nil: null })

const views: fc.Arbitrary<WindowView> = fc.record({
  id: text, label: text, accounts: fc.array(text, { maxLength: 4 }), currency: text, window: fc.record({ from: text, to: text }),
  claimed_movement: amount, derived_movement: amount, residual: amount,
  opening_balance: amountOrNull, closing_balance: amountOrNull, book_opening_balance: amountOrNull, book_closing_balance: amountOrNull, opening_difference: amountOrNull, closing_difference: amountOrNull,
  previous: textOrNull, gap_days: amountOrNull, opening_matches_previous: fc.option(fc.boolean(), { nil: null }),
  matched_count: amount, tolerance: amount, statement_ref: textOrNull,
  state: text, opened_at: text, lines_count: amount, unmatched_lines_count: amount, closed_at: textOrNull, closed_by: textOrNull,
  close_reason: textOrNull, abandoned_at: textOrNull, abandon_reason: textOrNull, seal: sealOrNull, post_close_drift: amountOrNull, post_close_entries: amountOrNull,
})

t.test('windowJson is JSON.stringify of the view, whatever its strings and numbers', async (t) => {
  fc.assert(fc.property(views, (view) => windowJson(view) === JSON.stringify(view)), { numRuns: 3_000 })
})

t.test('the read of open, closed (drifted) and abandoned windows answers the view\'s JSON', async (t) => {
  const state = createWorkspaceState('ws', 'abcdef')
  let atMs = Date.parse('2026-12-01T12:00:00.000Z')
  const run = (command: Record<string, unknown>): any => {
    const outcome = executeWorkspace(state, { at_ms: atMs++, key_id: 'key_1', visibility: null, ...command } as WorkspaceCommand)
    if (!outcome.ok) throw new Error(`${outcome.code}: ${outcome.message}`)
    return outcome.body
  }
  for (const name of ['assets:bank', 'assets:cash', 'income:sales']) run({ type: 'account.create', name, tags: [] })
  const post = (day: string, amount: number) => run({ type: 'entry.post', lines: [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }], effective_at_ms: Date.parse(`${day}T10:00:00Z`), description: null, metadata: null })
  const open = (label: string, accounts: string[]) => run({ type: 'window.open', label, accounts, from: '2026-11-01', to: '2026-11-30', claimed_movement: 150, statement_ref: 'stmt "11"', tolerance: 5, time_zone: 'Europe/Berlin' }).id
  post('2026-11-03', 100)
  post('2026-11-20', 47)
  const closed = open('closed', ['assets:bank'])
  run({ type: 'window.transition', window: closed, state: 'closed', reason: 'write-off of "3"' })
  post('2026-11-21', 9)
  const live = open('live \u20ac', ['assets:bank'])
  const abandoned = open('abandoned', ['assets:cash'])
  run({ type: 'window.transition', window: abandoned, state: 'abandoned', reason: 'wrong\naccount' })
  for (const id of [live, closed, abandoned]) {
    const outcome: Outcome = getWindow(state, id, null)
    t.ok(outcome.ok && outcome.json !== undefined, `${id}: written out`)
    t.equal(outcome.ok && answerText(outcome), JSON.stringify(outcome.ok && outcome.body), `${id}: the view's JSON`)
  }
  const sealed = getWindow(state, closed, null)
  t.match(sealed.ok && sealed.body, { state: 'closed', post_close_drift: 9, post_close_entries: 1 }, 'the closed one carries its drift (no seal hasher here: seal null)')
})

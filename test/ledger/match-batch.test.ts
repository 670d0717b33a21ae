/**
 * Dry runs, batches and a window's entries in the pure state machine (docs/API.md, Matching help: proposals, dry runs, batches): a dry run answers
 * exactly what the real call answers and changes nothing; a batch is the same as its matches one by one
 * (answers, events, state), and one bad item stores nothing and names that item.
 */
import fc from 'fast-check'
import t from 'tap'
import type { MatchBatch, MatchCreate, MatchItem, WorkspaceCommand } from '../../src/ledger/commands.js'
import { whatIfBatch, whatIfMatch } from '../../src/ledger/match-batch.js'
import type { Outcome } from '../../src/ledger/outcome.js'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.js'
import { listWindowEntries } from '../../src/ledger/window-entries.js'
import { executeWorkspace } from '../../src/ledger/workspace.js'
import { stableSerialize } from '../support/state-fingerprint.js'

const nowMs = Date.parse('2026-12-05T12:00:00.000Z')
const envelope = { at_ms: nowMs, key_id: 'key_test', visibility: null }

type Body = Record<string, any>

function run(state: WorkspaceState, command: Record<string, unknown>): Outcome {
  return executeWorkspace(state, { ...envelope, ...command } as WorkspaceCommand)
}

function ok(outcome: Outcome): Body {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.code}: ${outcome.message}`)
  return outcome.body as Body
}

interface World {
  readonly state: WorkspaceState
  readonly window: string
  readonly entries: string[]
}

/** A November window on assets:bank with `lines` statement lines and `entries` deposits, amounts from `amounts`. */
function world(amounts: readonly number[], lineAmounts: readonly number[], claimed = 0): World {
  const state = createWorkspaceState('ws', 'abcdef')
  for (const name of ['assets:bank', 'income:sales']) ok(run(state, { type: 'account.create', name, tags: [] }))
  const window = ok(run(state, { type: 'window.open', label: 'Nov', accounts: ['assets:bank'], from: '2026-11-01', to: '2026-11-30', claimed_movement: claimed, statement_ref: null, tolerance: 0, time_zone: 'UTC' })).id
  const entries = amounts.map((amount, index) => ok(run(state, {
    type: 'entry.post', lines: [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }],
    effective_at_ms: Date.parse(`2026-11-${String(10 + (index % 5)).padStart(2, '0')}T12:00:00.000Z`), description: null, metadata: null,
  })).id)
  if (lineAmounts.length > 0) {
    ok(run(state, { type: 'window.lines.add', window, lines: lineAmounts.map((amount, index) => ({ amount, date: `2026-11-${String(10 + (index % 5)).padStart(2, '0')}`, reference: null, description: null })) }))
  }
  return { state, window, entries }
}

/** What a caller sees of an answer: status and code, or the figures. */
function figures(outcome: Outcome): unknown {
  if (!outcome.ok) return { code: outcome.code, message: outcome.message, details: outcome.details }
  const body = outcome.body as Body
  return { status: outcome.status, matched_amount: body.matched_amount, residual: body.residual, state: body.state }
}

/** Random match bodies over a world: ids that exist, are taken, or do not exist; every strategy; tolerances. */
function itemArb(linesCount: number, entriesCount: number): fc.Arbitrary<MatchItem & { pick: number[] }> {
  const lineId = fc.integer({ min: 1, max: linesCount + 1 }).map((number) => `l${number}`)
  return fc.record({
    statement_lines: fc.uniqueArray(lineId, { minLength: 1, maxLength: 3 }),
    pick: fc.uniqueArray(fc.integer({ min: 0, max: entriesCount }), { maxLength: 3 }),
    entries: fc.constant([] as string[]),
    strategy: fc.constantFrom<MatchItem['strategy']>('amount_and_date', 'amount_and_date', 'manual', 'write_off'),
    reason: fc.constantFrom(null, 'bank fee'),
    date_tolerance_days: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
  })
}

function resolve(world: World, item: MatchItem & { pick: number[] }): MatchItem {
  const entries = item.pick.map((index) => world.entries[index] ?? 'ent_nonexistent')
  const { pick: _, ...rest } = item
  return { ...rest, entries: item.strategy === 'write_off' && item.reason !== null ? [] : entries }
}

const amountsArb = fc.array(fc.integer({ min: -5, max: 5 }).filter((amount) => amount !== 0), { minLength: 1, maxLength: 6 })

t.test('what-if parity: a dry run answers what the real call answers, and changes nothing', async (t) => {
  fc.assert(fc.property(amountsArb, amountsArb, fc.array(itemArb(6, 6), { minLength: 1, maxLength: 8 }), (amounts, lineAmounts, items) => {
    const w = world(amounts, lineAmounts, 3)
    for (const raw of items) {
      const command: MatchCreate = { ...envelope, type: 'match.create', window: w.window, ...resolve(w, raw) }
      const before = stableSerialize(w.state)
      const dry = whatIfMatch(w.state, command)
      if (stableSerialize(w.state) !== before) throw new Error('a dry run changed the state')
      const real = executeWorkspace(w.state, command)
      const expected = real.ok ? { ...(figures(real) as object) } : figures(real)
      const seen = dry.ok ? { ...(figures(dry) as object) } : figures(dry)
      if (JSON.stringify(seen) !== JSON.stringify(expected)) throw new Error(`dry run ${JSON.stringify(seen)}, real ${JSON.stringify(expected)}`)
      if (dry.ok && (dry.body as Body).dry_run !== true) throw new Error('no dry_run flag')
    }
  }), { numRuns: 200 })
  t.pass('held')
})

t.test('what-if parity for batches, and a batch is its matches one by one: same answers, events and state', async (t) => {
  fc.assert(fc.property(amountsArb, amountsArb, fc.array(itemArb(6, 6), { minLength: 1, maxLength: 5 }), fc.boolean(), (amounts, lineAmounts, items, subscribed) => {
    const batchWorld = world(amounts, lineAmounts, 3)
    const singleWorld = world(amounts, lineAmounts, 3)
    if (subscribed) {
      for (const w of [batchWorld, singleWorld]) ok(run(w.state, { type: 'webhook.create', url: 'https://example.com/hook', events: ['match.created', 'reconciliation.balanced'], secret: 'whsec_' + 'A'.repeat(32) }))
    }
    const matches = items.map((item) => resolve(batchWorld, item))
    const command: MatchBatch = { ...envelope, type: 'match.batch', window: batchWorld.window, matches }
    const before = stableSerialize(batchWorld.state)
    const dry = whatIfBatch(batchWorld.state, command)
    if (stableSerialize(batchWorld.state) !== before) throw new Error('a dry run of a batch changed the state')
    const real = executeWorkspace(batchWorld.state, command)
    if (dry.ok !== real.ok || (!dry.ok && !real.ok && JSON.stringify(figures(dry)) !== JSON.stringify(figures(real)))) throw new Error(`dry ${JSON.stringify(figures(dry))} real ${JSON.stringify(figures(real))}`)
    if (!real.ok) {
      if (stableSerialize(batchWorld.state) !== before) throw new Error('a refused batch changed the state')
      const index = Number(/^Match (\d+):/.exec(real.message)?.[1])
      if (!real.details?.every((detail) => detail.path.startsWith(`/matches/${index}`))) throw new Error(`details ${JSON.stringify(real.details)} do not name item ${index}`)
      // The items before the bad one are fine alone; the bad one fails alone, with its own code, on top of them.
      // Shape rules (request_invalid) are checked for every item before any runs: the bad one fails alone anyway.
      if (real.code !== 'request_invalid') for (const item of matches.slice(0, index)) ok(run(singleWorld.state, { type: 'match.create', window: singleWorld.window, ...item }))
      const alone = run(singleWorld.state, { type: 'match.create', window: singleWorld.window, ...matches[index] })
      if (alone.ok || alone.code !== real.code) throw new Error(`item ${index} alone: ${alone.ok ? 'accepted' : alone.code}, in the batch ${real.code}`)
      return
    }
    const singles = matches.map((item) => ok(run(singleWorld.state, { type: 'match.create', window: singleWorld.window, ...item })))
    const body = real.body as Body
    if (JSON.stringify(body.data) !== JSON.stringify(singles)) throw new Error('batch answers differ from single answers')
    const dryBody = dry.ok ? dry.body as Body : null
    if (JSON.stringify(dryBody?.data) !== JSON.stringify(singles.map((single) => ({ matched_amount: single.matched_amount, residual: single.residual, state: single.state })))) throw new Error('dry-run figures differ')
    if (dryBody?.residual !== body.residual || dryBody?.state !== body.state) throw new Error('dry-run window figures differ')
    // The same events, in the same order, as the single matches emitted (replayed here on a third world).
    const eventsWorld = world(amounts, lineAmounts, 3)
    if (subscribed) ok(run(eventsWorld.state, { type: 'webhook.create', url: 'https://example.com/hook', events: ['match.created', 'reconciliation.balanced'], secret: 'whsec_' + 'A'.repeat(32) }))
    const singleEvents = matches.flatMap((item) => (run(eventsWorld.state, { type: 'match.create', window: eventsWorld.window, ...item }) as { events?: unknown[] }).events ?? [])
    if (JSON.stringify((real as { events?: unknown[] }).events ?? []) !== JSON.stringify(singleEvents)) throw new Error('batch events differ from single events')
    if (stableSerialize(batchWorld.state) !== stableSerialize(singleWorld.state)) throw new Error('a batch left another state than its matches one by one')
  }), { numRuns: 200 })
  t.pass('held')
})

t.test('a batch with one bad item stores nothing and names that item', async (t) => {
  const w = world([100, 200, 300], [100, 200, 300])
  const before = stableSerialize(w.state)
  const outcome = run(w.state, {
    type: 'match.batch', window: w.window, matches: [
      { statement_lines: ['l1'], entries: [w.entries[0]], strategy: 'amount_and_date', reason: null },
      { statement_lines: ['l2'], entries: [w.entries[2]], strategy: 'amount_and_date', reason: null },
      { statement_lines: ['l3'], entries: [w.entries[2]], strategy: 'amount_and_date', reason: null },
    ],
  })
  t.same(outcome.ok ? null : { code: outcome.code, details: outcome.details }, { code: 'match_amount_mismatch', details: [{ path: '/matches/1', message: (outcome as { message: string }).message.replace(/^Match 1: /, '') }] })
  t.match((outcome as { message: string }).message, /^Match 1: The statement lines net to 200 and the entries to 300/)
  t.equal(stableSerialize(w.state), before, 'item 0 was taken back')
  const reused = run(w.state, {
    type: 'match.batch', window: w.window, matches: [
      { statement_lines: ['l1'], entries: [w.entries[0]], strategy: 'amount_and_date', reason: null },
      { statement_lines: ['l1', 'l2'], entries: [w.entries[1]], strategy: 'manual', reason: null },
    ],
  })
  t.same(reused.ok ? null : [reused.code, reused.details?.map((detail) => detail.path)], ['line_already_matched', ['/matches/1/statement_lines/0']], 'a line taken by an earlier item of the same batch')
  const shape = run(w.state, { type: 'match.batch', window: w.window, matches: [{ statement_lines: ['l9'], entries: [], strategy: 'manual', reason: null }, { statement_lines: ['l1'], entries: [], strategy: 'write_off', reason: null }] })
  t.same(shape.ok ? null : [shape.code, shape.details?.map((detail) => detail.path)], ['request_invalid', ['/matches/0/entries']], 'shape rules of every item answer before the window\'s rules')
  t.equal(stableSerialize(w.state), before)
})

t.test('a window\'s entries: its period and accounts, amount for the window, the covering match, status filter, pages', async (t) => {
  const w = world([100, -40, 70], [100])
  ok(run(w.state, { type: 'entry.post', lines: [{ account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -5 }], effective_at_ms: Date.parse('2026-12-01T00:00:00.000Z'), description: null, metadata: null }))
  const matched = ok(run(w.state, { type: 'match.create', window: w.window, statement_lines: ['l1'], entries: [w.entries[0]], strategy: 'amount_and_date', reason: null }))
  const all = ok(listWindowEntries(w.state, w.window, { status: null, limit: 100, cursor: null }, null))
  t.same(all.data.map((entry: Body) => [entry.id, entry.amount, entry.match]), [[w.entries[0], 100, matched.id], [w.entries[1], -40, null], [w.entries[2], 70, null]], 'the December entry is outside the period')
  t.same(ok(listWindowEntries(w.state, w.window, { status: 'matched', limit: 100, cursor: null }, null)).data.map((entry: Body) => entry.id), [w.entries[0]])
  t.same(ok(listWindowEntries(w.state, w.window, { status: 'unmatched', limit: 100, cursor: null }, null)).data.map((entry: Body) => entry.id), [w.entries[1], w.entries[2]])
  const first = ok(listWindowEntries(w.state, w.window, { status: 'unmatched', limit: 1, cursor: null }, null))
  const second = ok(listWindowEntries(w.state, w.window, { status: 'unmatched', limit: 1, cursor: first.next_cursor }, null))
  t.same([...first.data, ...second.data].map((entry: Body) => entry.id), [w.entries[1], w.entries[2]])
  t.equal(second.next_cursor, null)
  const foreign = listWindowEntries(w.state, w.window, { status: 'matched', limit: 1, cursor: first.next_cursor }, null)
  t.equal(foreign.ok ? 'ok' : foreign.code, 'request_invalid', 'a cursor of the unmatched list is not one of the matched list')
  const unknown = listWindowEntries(w.state, 'rec_nope', { status: null, limit: 1, cursor: null }, null)
  t.equal(unknown.ok ? 'ok' : unknown.code, 'not_found')
})

/**
 * The workspace state machine (src/ledger/workspace.ts): what every command goes through after its own work. A
 * refusal changes nothing; an accepted command expires old idempotency records and stores its own answer in the
 * same step; a replayed answer does neither; events are made only for a workspace with a subscription; the
 * sliced path ends in the same outcome and state as the direct one.
 */
import t from 'tap'
import type { EntryPost, StatementInput, WorkspaceCommand } from '../../src/ledger/commands.ts'
import { idempotencyTtlMs } from '../../src/ledger/idempotency.ts'
import { answerText, type Outcome } from '../../src/ledger/outcome.ts'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.ts'
import { executeWorkspace, executeWorkspaceInSlices, isSlicedCommand } from '../../src/ledger/workspace.ts'
import { stableSerialize } from '../support/state-fingerprint.ts'

const t0 = Date.parse('2026-11-27T12:00:00.000Z')
const envelope = { key_id: 'key_a', visibility: null } as const
const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`

function workspace(): WorkspaceState {
  const state = createWorkspaceState('ws', 'abcdef')
  for (const [name, external] of [['assets:bank', 'DE001'], ['income:sales', null]] as const) {
    const outcome = executeWorkspace(state, { type: 'account.create', name, tags: [], external_id: external, at_ms: t0, ...envelope })
    if (!outcome.ok) throw new Error(outcome.message)
  }
  return state
}

function post(atMs: number, key?: string, amount = 5): EntryPost {
  return {
    type: 'entry.post', lines: [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }], effective_at_ms: null, description: null, metadata: null,
    rules: 2, at_ms: atMs, ...envelope, ...(key === undefined ? {} : { idempotency: { key, fingerprint: `fp-${key}` } }),
  }
}

function drain(run: Generator<undefined, Outcome, undefined>): { outcome: Outcome; slices: number } {
  for (let slices = 0; ; slices++) {
    const step = run.next()
    if (step.done === true) return { outcome: step.value, slices }
  }
}

function statements(count: number): StatementInput[] {
  return Array.from({ length: count }, (_, i) => {
    const day = new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10)
    return { account: 'DE001', currency: 'USD', statement_ref: `S${i}`, label: `day ${i}`, from: day, to: day, claimed_movement: 0, fingerprint: `fp${i}`, lines: [] }
  })
}

t.test('a refused command changes nothing: no record stored, none expired', async (t) => {
  const state = workspace()
  t.ok(executeWorkspace(state, post(t0, 'k1')).ok)
  const before = stableSerialize(state)
  const refused = executeWorkspace(state, { ...post(t0 + idempotencyTtlMs + 1, 'k2'), lines: [{ account: 'assets:nope', amount: 5 }, { account: 'income:sales', amount: -5 }] })
  t.equal(refused.ok ? 'ok' : refused.code, 'account_unknown')
  t.equal(stableSerialize(state), before, 'k1 stays although it has expired by the refused command\'s time')
})

t.test('an accepted command with a key stores its answer with it, in the same step', async (t) => {
  const state = workspace()
  const outcome = executeWorkspace(state, post(t0, 'k1'))
  if (!outcome.ok) throw new Error(outcome.message)
  const record = state.idempotency.get('k1')
  t.same(record, { key: 'k1', fingerprint: 'fp-k1', status: 201, body: answerText(outcome), createdAtMs: t0, keyId: 'key_a', accountSeqs: [1, 2] })
  t.same(state.idempotencyOrder.slice(state.idempotencyOrderHead), ['k1'])
  t.ok(executeWorkspace(state, post(t0)).ok)
  t.equal(state.idempotency.size, 1, 'a command without a key stores nothing')
  const webhook = executeWorkspace(state, { type: 'webhook.create', url: 'https://example.test/h', events: ['entry.posted'], secret, at_ms: t0, ...envelope })
  const id = webhook.ok ? (webhook.body as { id: string }).id : ''
  const deleted = executeWorkspace(state, { type: 'webhook.delete', webhook: id, at_ms: t0, ...envelope, idempotency: { key: 'k2', fingerprint: 'fp-k2' } })
  t.equal(deleted.ok && deleted.status, 204)
  t.same([state.idempotency.get('k2')?.status, state.idempotency.get('k2')?.body], [204, ''], 'a 204 is stored with an empty body')
})

t.test('an accepted command expires the records older than the TTL by its time, oldest first', async (t) => {
  const state = workspace()
  t.ok(executeWorkspace(state, post(t0, 'k1')).ok)
  t.ok(executeWorkspace(state, post(t0 + 1000, 'k2')).ok)
  t.ok(executeWorkspace(state, post(t0 + idempotencyTtlMs)).ok)
  t.same([...state.idempotency.keys()], ['k1', 'k2'], 'at exactly the TTL a record is kept')
  t.ok(executeWorkspace(state, post(t0 + idempotencyTtlMs + 1)).ok)
  t.same([...state.idempotency.keys()], ['k2'], 'one millisecond past it, it goes')
  t.ok(executeWorkspace(state, post(t0 + idempotencyTtlMs + 1001, 'k3')).ok)
  t.same([...state.idempotency.keys()], ['k3'], 'expired before the new answer is stored, which stays')
  t.equal(state.idempotencyOrder[state.idempotencyOrderHead], 'k3')
})

t.test('events are made only when the workspace has a subscription', async (t) => {
  const state = workspace()
  const quiet = executeWorkspace(state, post(t0))
  t.equal(quiet.ok && quiet.events, undefined, 'no subscription: no events')
  t.ok(executeWorkspace(state, { type: 'webhook.create', url: 'https://example.test/h', events: ['entry.posted'], secret, at_ms: t0, ...envelope }).ok)
  const loud = executeWorkspace(state, post(t0, undefined, 7))
  if (!loud.ok) throw new Error(loud.message)
  t.same(loud.events?.map((event) => event.type), ['entry.posted'])
  t.match(JSON.parse(answerText(loud)), { lines: [{ amount: 7 }, { amount: -7 }] })
  const refused = executeWorkspace(state, { ...post(t0), lines: [{ account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -4 }] })
  t.equal(refused.ok, false)
  t.notOk('events' in refused, 'a refusal emits nothing')
})

t.test('the sliced path: yields for a sliced command, and ends as the direct path does', async (t) => {
  const direct = workspace()
  const sliced = workspace()
  const command: WorkspaceCommand = { type: 'statements.import', statements: statements(40), time_zone: 'UTC', at_ms: t0, ...envelope, idempotency: { key: 'imp', fingerprint: 'fp-imp' } }
  t.equal(isSlicedCommand(command), true)
  const expected = executeWorkspace(direct, command)
  const { outcome, slices } = drain(executeWorkspaceInSlices(sliced, command))
  t.ok(slices > 0, `${slices} slices`)
  t.equal(outcome.ok && outcome.status, 201)
  t.equal(outcome.ok && answerText(outcome), expected.ok && answerText(expected))
  t.equal(stableSerialize(sliced), stableSerialize(direct), 'the same state, its idempotency record included')
  t.ok(sliced.idempotency.has('imp'))
  const plain = drain(executeWorkspaceInSlices(sliced, post(t0, 'p')))
  t.same([plain.slices, plain.outcome.ok && plain.outcome.status], [0, 201], 'any other command at once')
  t.ok(sliced.idempotency.has('p'))
})

t.test('a replayed answer (an import of statements all imported before) stores and expires nothing', async (t) => {
  const state = workspace()
  t.ok(executeWorkspace(state, post(t0, 'old')).ok)
  const first: WorkspaceCommand = { type: 'statements.import', statements: statements(3), time_zone: 'UTC', at_ms: t0, ...envelope }
  t.ok(executeWorkspace(state, first).ok)
  const before = stableSerialize(state)
  const again = executeWorkspace(state, { ...first, at_ms: t0 + idempotencyTtlMs + 1, idempotency: { key: 'again', fingerprint: 'fp' } })
  t.equal(again.ok && again.replayed, true)
  t.equal(stableSerialize(state), before, '"old" not expired, "again" not stored')
})

/** ledger/idempotency.ts without a server: which stored answer an Idempotency-Key names for which caller (issue 12.1). */
import t from 'tap'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import { answerAccountSeqs } from '../../src/ledger/command-table.ts'
import { idempotencyFor, idempotencyTtlMs } from '../../src/ledger/idempotency.ts'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.ts'
import type { Visibility } from '../../src/ledger/visibility.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'

const atMs = Date.parse('2026-11-10T12:00:00Z')

function run(state: WorkspaceState, keyId: string, visibility: Visibility, command: Record<string, unknown>, idempotency?: { key: string; fingerprint: string }) {
  const outcome = executeWorkspace(state, { at_ms: atMs, key_id: keyId, visibility, ...(idempotency === undefined ? {} : { idempotency }), ...command } as WorkspaceCommand)
  if (!outcome.ok) throw new Error(`${String(command.type)}: ${outcome.code}`)
  return outcome
}

function setUp(): WorkspaceState {
  const state = createWorkspaceState('ws', 'abcdef')
  for (const name of ['assets:bank', 'assets:cash', 'income:sales']) run(state, 'admin', null, { type: 'account.create', name, tags: [] })
  return state
}

const entry = (debit: string, credit: string) => ({ type: 'entry.post', lines: [{ account: debit, amount: 5 }, { account: credit, amount: -5 }], effective_at_ms: null, description: null, metadata: null })

t.test('a stored answer keeps its key and the accounts it shows', async (t) => {
  const state = setUp()
  run(state, 'key_a', null, entry('assets:bank', 'income:sales'), { key: 'k', fingerprint: 'f' })
  const record = state.idempotency.get('k')!
  t.equal(record.keyId, 'key_a')
  t.same(record.accountSeqs, [1, 3], 'assets:bank and income:sales by seq')
  t.equal(answerAccountSeqs(state, { type: 'webhook.create' } as WorkspaceCommand, { ok: true, status: 201, body: {} }), null, 'a webhook answer shows a secret: no accounts, private')
})

t.test('who gets the record', async (t) => {
  const state = setUp()
  run(state, 'key_a', null, entry('assets:bank', 'income:sales'), { key: 'k', fingerprint: 'f' })
  t.ok(idempotencyFor(state, 'k', 'key_a', null, atMs).record, 'its own key')
  t.ok(idempotencyFor(state, 'k', 'key_b', null, atMs).record, 'an unrestricted key')
  t.ok(idempotencyFor(state, 'k', 'key_b', ['assets:*', 'income:sales'], atMs).record, 'a key that sees every account of it')
  t.ok(idempotencyFor(state, 'k', 'key_a', ['assets:*'], atMs).record, 'its own key, whatever its visibility')
  const hidden = idempotencyFor(state, 'k', 'key_r', ['assets:*'], atMs)
  t.equal(hidden.record, undefined, 'a key that cannot see income:sales: no record')
  t.equal(hidden.storeKey, 'k\u0000key_r', 'its own answer goes beside the hidden one')
  t.same(idempotencyFor(state, 'other', 'key_r', ['assets:*'], atMs), { storeKey: 'other' }, 'an unused key: stored under itself')
  run(state, 'key_r', ['assets:*'], entry('assets:bank', 'assets:cash'), { key: hidden.storeKey!, fingerprint: 'g' })
  t.equal(idempotencyFor(state, 'k', 'key_r', ['assets:*'], atMs).record?.fingerprint, 'g', 'then it finds its own')
  t.equal(idempotencyFor(state, 'k', 'key_a', null, atMs).record?.fingerprint, 'f', 'and the first key still its own')
  t.equal(idempotencyFor(state, 'k', 'key_r', ['assets:*'], atMs + idempotencyTtlMs + 1).record, undefined, 'both expire')
})

t.test('a record from before these fields (a snapshot of an older version) goes to unrestricted keys only', async (t) => {
  const state = setUp()
  state.idempotency.set('old', { key: 'old', fingerprint: 'f', status: 201, body: '{}', createdAtMs: atMs })
  t.ok(idempotencyFor(state, 'old', 'key_b', null, atMs).record)
  t.equal(idempotencyFor(state, 'old', 'key_r', ['assets:*'], atMs).record, undefined)
})

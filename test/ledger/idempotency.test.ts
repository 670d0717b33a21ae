/**
 * Stored answers (src/ledger/idempotency.ts): a lookup finds a record until its TTL has passed and changes
 * nothing; executeWorkspace stores the answer of an accepted keyed command in the same step and nothing for
 * a rejected one; expiry drops records from the front of the creation queue at the next accepted command.
 */
import t from 'tap'
import { expireIdempotency, findIdempotency, idempotencyTtlMs, storeIdempotency } from '../../src/ledger/idempotency.ts'
import { createWorkspaceState } from '../../src/ledger/state.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'
import { stableSerialize } from '../support/state-fingerprint.ts'
import { machine, posting } from '../support/workspace-machine.ts'

const nowMs = Date.parse('2026-12-01T12:00:00.000Z')

const record = (key: string, createdAtMs: number) => ({ key, fingerprint: `fp-${key}`, status: 201, body: '{"id":"x"}', createdAtMs })

t.test('findIdempotency: found through the TTL, gone one millisecond after, and a lookup changes nothing', async (t) => {
  const state = createWorkspaceState('ws', 'abcdef')
  storeIdempotency(state, record('k1', nowMs))
  const before = stableSerialize(state)
  t.same(findIdempotency(state, 'k1', nowMs), record('k1', nowMs))
  t.ok(findIdempotency(state, 'k1', nowMs + idempotencyTtlMs), 'still there at exactly 24 h (docs/API.md, Retries and Idempotency-Key: at least 24 h)')
  t.equal(findIdempotency(state, 'k1', nowMs + idempotencyTtlMs + 1), undefined, 'expired after')
  t.equal(findIdempotency(state, 'other', nowMs), undefined)
  t.equal(stableSerialize(state), before, 'lookups, expired ones included, leave the state as it was')
})

t.test('expireIdempotency drops expired records from the front and stops at the first live one', async (t) => {
  const state = createWorkspaceState('ws', 'abcdef')
  storeIdempotency(state, record('a', nowMs))
  storeIdempotency(state, record('b', nowMs + 1000))
  storeIdempotency(state, record('c', nowMs + 2000))
  expireIdempotency(state, nowMs + idempotencyTtlMs + 1000)
  t.same([...state.idempotency.keys()], ['b', 'c'], 'a is older than the TTL; b is exactly at it and stays')
  t.equal(state.idempotencyOrderHead, 1)
  expireIdempotency(state, nowMs + idempotencyTtlMs + 5000)
  t.same([...state.idempotency.keys()], [])
  t.equal(state.idempotencyOrderHead, 3)
})

t.test('the expiry queue is compacted once most of it is behind the head', async (t) => {
  const state = createWorkspaceState('ws', 'abcdef')
  for (let index = 0; index < 5000; index++) storeIdempotency(state, record(`k${index}`, nowMs + index))
  expireIdempotency(state, nowMs + idempotencyTtlMs + 4500)
  t.equal(state.idempotency.size, 500, 'k0..k4499 have expired; k4500 is exactly at the TTL')
  t.equal(state.idempotencyOrderHead, 0, 'the queue was cut at the head')
  t.equal(state.idempotencyOrder.length, state.idempotency.size)
  t.equal(state.idempotencyOrder[0], 'k4500')
  t.equal(findIdempotency(state, 'k4999', nowMs + idempotencyTtlMs + 4500)?.key, 'k4999', 'lookups still work after the cut')
})

t.test('executeWorkspace stores an accepted keyed answer with the command, and nothing for a rejection', async (t) => {
  const ctx = machine(['assets:bank', 'income:sales'], nowMs)
  const envelope = { at_ms: nowMs, key_id: 'key_test', visibility: null }
  const accepted = executeWorkspace(ctx.state, { ...envelope, ...posting([['assets:bank', 5], ['income:sales', -5]]), idempotency: { key: 'post-1', fingerprint: 'fp1' } } as never)
  t.ok(accepted.ok)
  const stored = findIdempotency(ctx.state, 'post-1', nowMs)
  t.same(stored, { key: 'post-1', fingerprint: 'fp1', status: 201, body: JSON.stringify(accepted.ok && accepted.body), createdAtMs: nowMs, keyId: 'key_test', accountSeqs: [1, 2] }, 'status and the exact body text, with the key and the accounts the answer shows (replays pass the same visibility as a read)')
  const before = stableSerialize(ctx.state)
  const rejected = executeWorkspace(ctx.state, { ...envelope, ...posting([['assets:bank', 5], ['income:sales', -4]]), idempotency: { key: 'post-2', fingerprint: 'fp2' } } as never)
  t.equal(rejected.ok ? 'accepted' : rejected.code, 'entry_unbalanced')
  t.equal(findIdempotency(ctx.state, 'post-2', nowMs), undefined, 'only 2xx answers are stored')
  t.equal(stableSerialize(ctx.state), before, 'the rejection changed nothing')
})

t.test('expiry runs at the next accepted command, by command time (replay expires exactly as live did)', async (t) => {
  const ctx = machine(['assets:bank', 'income:sales'], nowMs)
  const envelope = (atMs: number) => ({ at_ms: atMs, key_id: 'key_test', visibility: null })
  executeWorkspace(ctx.state, { ...envelope(nowMs), ...posting([['assets:bank', 1], ['income:sales', -1]]), idempotency: { key: 'old', fingerprint: 'f' } } as never)
  const later = nowMs + idempotencyTtlMs + 1
  executeWorkspace(ctx.state, { ...envelope(later), ...posting([['assets:bank', 1], ['income:sales', -5]]) } as never)
  t.ok(ctx.state.idempotency.has('old'), 'a rejected command expires nothing')
  executeWorkspace(ctx.state, { ...envelope(later), ...posting([['assets:bank', 1], ['income:sales', -1]]) } as never)
  t.notOk(ctx.state.idempotency.has('old'), 'the next accepted command drops it')
})

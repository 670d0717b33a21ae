/**
 * The seal in the core (src/ledger/seal.ts, src/ledger/closed-windows.ts): the same seal live, after
 * replaying the same commands and after a restore from the facts a snapshot stores (also an older
 * snapshot's, without seal and post-close count); the canonical form is RFC 8785's (checked against the
 * test's own JCS); a posting into a closed period counts and emits reconciliation.drifted, one after it
 * does neither; overlapping closed windows each see it.
 */
import t from 'tap'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import { sha256Hex } from '../../src/exports/seal-hash.ts'
import { ed25519Signer, newSealKeyPair } from '../../src/exports/seal-signature.ts'
import { factsOf, restoreWorkspace, type WorkspaceFacts } from '../../src/ledger/restore.ts'
import { canonicalChunks, sealedContent } from '../../src/ledger/seal.ts'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.ts'
import { getWindow } from '../../src/ledger/windows.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'
import { jcs } from '../support/seal-recompute.ts'

const tag = 'sl4x'
const nowMs = Date.UTC(2026, 5, 1, 12)
const envelope = (atMs: number) => ({ at_ms: atMs, key_id: 'key_test', visibility: null })

function post(amount: number, effectiveAt: string, account = 'assets:bank'): WorkspaceCommand {
  return { ...envelope(nowMs), type: 'entry.post', lines: [{ account, amount }, { account: 'income:sales', amount: -amount }], effective_at_ms: Date.parse(effectiveAt), description: 'sale "ü"', metadata: null, rules: 2 }
}

const commands: WorkspaceCommand[] = [
  { ...envelope(nowMs), type: 'account.create', name: 'assets:bank', tags: [] },
  { ...envelope(nowMs), type: 'account.create', name: 'income:sales', tags: [] },
  { ...envelope(nowMs), type: 'webhook.create', url: 'https://example.test/hook', events: ['reconciliation.drifted'], secret: `whsec_${'A'.repeat(32)}` },
  post(300, '2026-03-10T09:00:00Z'),
  { ...envelope(nowMs + 1), type: 'window.open', label: 'März ✓', accounts: ['assets:bank'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 310, statement_ref: null, tolerance: 0, time_zone: 'Europe/Berlin' },
  { ...envelope(nowMs + 2), type: 'window.lines.add', window: `rec_${tag}000000001`, lines: [{ amount: 300, date: '2026-03-10', reference: 'r1', description: null }, { amount: 10, date: '2026-03-11', reference: null, description: 'fee' }] },
  { ...envelope(nowMs + 3), type: 'match.create', window: `rec_${tag}000000001`, statement_lines: ['l1'], entries: [`ent_${tag}000000001`], strategy: 'amount_and_date', reason: null },
  { ...envelope(nowMs + 4), type: 'match.create', window: `rec_${tag}000000001`, statement_lines: ['l2'], entries: [], strategy: 'write_off', reason: 'fee' },
  { ...envelope(nowMs + 5), type: 'window.transition', window: `rec_${tag}000000001`, state: 'closed', reason: null },
]

const key = newSealKeyPair()

function run(list: readonly WorkspaceCommand[], state = createWorkspaceState('w', tag, sha256Hex, ed25519Signer, key)): WorkspaceState {
  for (const command of list) {
    const outcome = executeWorkspace(state, command)
    if (!outcome.ok) throw new Error(`${command.type}: ${outcome.code} ${outcome.message}`)
  }
  return state
}

const windowOf = (state: WorkspaceState, seq = 1): any => {
  const outcome = getWindow(state, `rec_${tag}00000000${seq}`, null)
  if (!outcome.ok) throw new Error(outcome.code)
  return outcome.body
}

t.test('live, replayed and restored states carry the same seal', async (t) => {
  const live = run(commands)
  const seal = windowOf(live).seal
  t.match(seal.sha256, /^[0-9a-f]{64}$/)
  t.equal(seal.public_key, key.publicKey)
  t.match(seal.signature, /^[A-Za-z0-9+/]{86}==$/, 'an Ed25519 signature: 64 bytes, base64')
  t.same(windowOf(run(commands)).seal, seal, 'replaying the same commands seals and signs alike, byte for byte')
  const restored = restoreWorkspace(factsOf(live), sha256Hex, ed25519Signer)
  t.same(windowOf(restored), windowOf(live), 'restored from the facts: the same window, seal and signature included')
  const facts = factsOf(live)
  const legacy: WorkspaceFacts = { ...facts, windows: facts.windows.map(({ seal: _seal, postCloseEntryCount: _count, ...rest }) => rest as typeof facts.windows[number]) }
  t.equal(windowOf(restoreWorkspace(legacy, sha256Hex)).seal.sha256, seal.sha256, 'an older snapshot without seals is sealed on restore, alike')
})

t.test('the canonical form is RFC 8785 of the sealed content', async (t) => {
  const state = run(commands)
  const window = state.windows.windows[0]
  const text = [...canonicalChunks(sealedContent(state, window))].join('')
  const plain = JSON.parse(text)
  t.equal(text, jcs(plain), 'sorted keys, no whitespace, as the test\'s own JCS writes it')
  t.same(Object.keys(plain), ['accounts', 'claimed_movement', 'close_reason', 'closed_at', 'closed_by', 'derived_movement', 'from', 'history', 'id', 'label', 'lines', 'matches', 'opened_at', 'residual', 'seal_version', 'statement_ref', 'time_zone', 'to', 'tolerance'])
  t.equal(sha256Hex([text]), windowOf(state).seal.sha256, 'the seal is the SHA-256 of that text')
})

t.test('a posting into a closed period counts and emits reconciliation.drifted; one after the period does neither', async (t) => {
  const state = run(commands)
  const after = executeWorkspace(state, post(5, '2026-04-01T00:00:00+02:00'))
  t.ok(after.ok && (after.events ?? []).every((event) => event.type !== 'reconciliation.drifted'), 'April 1 at 00:00 in Berlin is after the period')
  t.same([windowOf(state).post_close_drift, windowOf(state).post_close_entries], [0, 0])
  const into = executeWorkspace(state, post(7, '2026-03-31T23:59:59+02:00'))
  t.ok(into.ok)
  const drifted = into.ok ? (into.events ?? []).filter((event) => event.type === 'reconciliation.drifted') : []
  t.equal(drifted.length, 1, 'one drifted event')
  t.match(drifted[0]?.data, { id: `rec_${tag}000000001`, post_close_drift: 7, post_close_entries: 1 })
  t.same(drifted[0]?.accountNames, ['assets:bank'])
  t.same(windowOf(restoreWorkspace(factsOf(state), sha256Hex)), windowOf(state), 'the count survives a restore')
})

t.test('overlapping closed windows (a period reopened) each see a posting into both', async (t) => {
  const state = run(commands)
  const reopen: WorkspaceCommand[] = [
    { ...envelope(nowMs + 6), type: 'window.open', label: 'again', accounts: ['assets:bank'], from: '2026-03-05', to: '2026-04-10', claimed_movement: 300, statement_ref: null, tolerance: 0, time_zone: 'UTC' },
    { ...envelope(nowMs + 7), type: 'window.transition', window: `rec_${tag}000000002`, state: 'closed', reason: 'accepted as is' },
  ]
  run(reopen, state)
  run([post(2, '2026-03-20T00:00:00Z'), post(3, '2026-04-05T00:00:00Z'), post(4, '2026-03-02T00:00:00Z')], state)
  t.same([windowOf(state, 1).post_close_entries, windowOf(state, 1).post_close_drift], [2, 6], 'the first: March 20 and March 2')
  t.same([windowOf(state, 2).post_close_entries, windowOf(state, 2).post_close_drift], [2, 5], 'the second: March 20 and April 5')
})

t.test('seal.key on a workspace made without a key: its closed windows signed, a seal.signed event each, the sha256 unchanged', async (t) => {
  const keyless = () => run(commands, createWorkspaceState('w', tag, sha256Hex, ed25519Signer, null))
  const state = keyless()
  const before = windowOf(state).seal
  t.same([before.signature, before.public_key], [null, null], 'closed without a key: the sha256 alone')
  const content = [...canonicalChunks(sealedContent(state, state.windows.windows[0]))].join('')
  const give: WorkspaceCommand = { ...envelope(nowMs + 9), type: 'seal.key', private_key: key.privateKey, public_key: key.publicKey }
  const outcome = executeWorkspace(state, give)
  t.ok(outcome.ok && (outcome.body as any).signed.length === 1, 'one window signed')
  const after = windowOf(state).seal
  t.equal(after.sha256, before.sha256, 'the sha256 made at the close')
  t.same(after, windowOf(run(commands)).seal, 'the same signature as a close with the key makes')
  const history = state.windows.windows[0].history
  t.match(history.at(-1), { type: 'seal.signed', keyId: 'key_test', state: 'closed', detail: { reason: 'signed on upgrade' } })
  t.equal([...canonicalChunks(sealedContent(state, state.windows.windows[0]))].join(''), content, 'the sealed content leaves the seal.signed event out')
  const replayed = keyless()
  t.ok(executeWorkspace(replayed, give).ok)
  t.same(windowOf(replayed), windowOf(state), 'replayed: the same bytes')
  const again = executeWorkspace(state, { ...give, at_ms: nowMs + 10 })
  t.ok(!again.ok, 'a second key is refused')
  t.equal(state.windows.windows[0].history.length, history.length, 'and changes nothing')
})

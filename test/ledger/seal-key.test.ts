/**
 * src/ledger/seal-key.ts on its own: a workspace created before keys existed gets its key pair; each window it
 * closed and sealed by its SHA-256 alone is signed now (a signature that verifies against the public key, over that
 * sha256, which does not change), with a `seal.signed` history event "signed on upgrade"; open windows are not
 * touched; a second key is refused and changes nothing.
 */
import { createPublicKey, verify } from 'node:crypto'
import t from 'tap'
import type { SealKeyGive, WorkspaceCommand } from '../../src/ledger/commands.ts'
import { sha256Hex } from '../../src/exports/seal-hash.ts'
import { ed25519Signer, newSealKeyPair } from '../../src/exports/seal-signature.ts'
import { giveSealKey, signedOnUpgradeReason } from '../../src/ledger/seal-key.ts'
import { sealSignedEventType } from '../../src/ledger/seal.ts'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'

const tag = 'sk4x'
const nowMs = Date.UTC(2026, 5, 1, 12)
const envelope = { at_ms: nowMs, key_id: 'key_test', visibility: null }
const closed = `rec_${tag}000000001`
const open = `rec_${tag}000000002`

const commands: WorkspaceCommand[] = [
  { ...envelope, type: 'account.create', name: 'assets:bank', tags: [] },
  { ...envelope, type: 'account.create', name: 'income:sales', tags: [] },
  { ...envelope, type: 'entry.post', lines: [{ account: 'assets:bank', amount: 300 }, { account: 'income:sales', amount: -300 }], effective_at_ms: Date.parse('2026-03-10T09:00:00Z'), description: 'sale', metadata: null, rules: 2 },
  { ...envelope, type: 'window.open', label: 'March', accounts: ['assets:bank'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 300, statement_ref: null, tolerance: 0, time_zone: 'UTC' },
  { ...envelope, type: 'window.lines.add', window: closed, lines: [{ amount: 300, date: '2026-03-10', reference: 'r1', description: null }] },
  { ...envelope, type: 'match.create', window: closed, statement_lines: ['l1'], entries: [`ent_${tag}000000001`], strategy: 'amount_and_date', reason: null },
  { ...envelope, type: 'window.transition', window: closed, state: 'closed', reason: null },
  { ...envelope, type: 'window.open', label: 'April', accounts: ['assets:bank'], from: '2026-04-01', to: '2026-04-30', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' },
] as unknown as WorkspaceCommand[]

/** A workspace as one created before keys existed: it seals by SHA-256, it has no key to sign with. */
function keyless(): WorkspaceState {
  const state = createWorkspaceState('w', tag, sha256Hex, ed25519Signer, null)
  for (const command of commands) {
    const outcome = executeWorkspace(state, command)
    if (!outcome.ok) throw new Error(`${command.type}: ${outcome.code} ${outcome.message}`)
  }
  return state
}

const windowOf = (state: WorkspaceState, id: string) => state.windows.windows.find((window) => window.id === id)!

function give(key = newSealKeyPair()): SealKeyGive {
  return { ...envelope, at_ms: nowMs + 10, type: 'seal.key', private_key: key.privateKey, public_key: key.publicKey } as SealKeyGive
}

t.test('the closed windows sealed without a key are signed on upgrade, their sha256 unchanged', async (t) => {
  const state = keyless()
  const before = windowOf(state, closed)
  t.equal(before.state, 'closed')
  t.match(before.seal, /^[0-9a-f]{64}$/)
  t.equal(before.sealSignature, null, 'sealed by its SHA-256 alone')
  const sealed = before.seal!
  const historyBefore = before.history.length
  const command = give()
  t.same(giveSealKey(state, command), { ok: true, status: 200, body: { public_key: command.public_key, signed: [closed] } })
  t.same(state.sealKey, { privateKey: command.private_key, publicKey: command.public_key })
  const after = windowOf(state, closed)
  t.equal(after.seal, sealed)
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(command.public_key, 'base64').toString('base64url') }, format: 'jwk' })
  t.ok(verify(null, Buffer.from(sealed, 'hex'), publicKey, Buffer.from(after.sealSignature!, 'base64')), 'the signature verifies over the sha256')
  t.equal(after.history.length, historyBefore + 1)
  t.match(after.history.at(-1), { type: sealSignedEventType, atMs: nowMs + 10, keyId: 'key_test', state: 'closed', detail: { reason: signedOnUpgradeReason } })
  t.equal(signedOnUpgradeReason, 'signed on upgrade')
  const openWindow = windowOf(state, open)
  t.equal(openWindow.sealSignature, null, 'an open window is not signed')
  t.notOk(openWindow.history.some((event) => event.type === sealSignedEventType))
})

t.test('a second key is refused and changes nothing', async (t) => {
  const state = keyless()
  const first = give()
  giveSealKey(state, first)
  const signature = windowOf(state, closed).sealSignature
  const historyLength = windowOf(state, closed).history.length
  const second = giveSealKey(state, give())
  t.match(second, { ok: false, code: 'request_invalid' })
  t.equal(state.sealKey!.publicKey, first.public_key)
  t.equal(windowOf(state, closed).sealSignature, signature)
  t.equal(windowOf(state, closed).history.length, historyLength)
})

t.test('a state that cannot sign takes the key and signs nothing', async (t) => {
  const state = createWorkspaceState('w', tag, sha256Hex, null, null)
  for (const command of commands) t.ok(executeWorkspace(state, command).ok)
  const historyLength = windowOf(state, closed).history.length
  const command = give()
  t.same(giveSealKey(state, command), { ok: true, status: 200, body: { public_key: command.public_key, signed: [] } })
  t.equal(windowOf(state, closed).sealSignature, null)
  t.equal(windowOf(state, closed).history.length, historyLength, 'no event for a window not signed')
})

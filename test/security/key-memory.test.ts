/**
 * Keys are kept only as hashes (docs/API.md, "Tenancy, keys, scopes"): once a key was used and revoked, no
 * string holding its secret stays reachable in the process. The secret is held here as bytes only (a
 * Buffer's contents are not in a heap snapshot's strings); every string made of it is dropped after the
 * call, and a heap snapshot (which collects garbage first) must not contain it.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { writeHeapSnapshot } from 'node:v8'
import t from 'tap'
import { authenticate, hashSecret } from '../../src/api/auth.ts'
import { createSystemState, executeSystem } from '../../src/ledger/system.ts'

/** `tu_` and 43 base64url characters, as bytes: the form of a real secret. */
const secretBytes = Buffer.from(`tu_${randomBytes(32).toString('base64url')}`, 'latin1')

/** A fresh string of the secret for one call, never kept by this file. */
function header(): string {
  return `Bearer ${secretBytes.toString('latin1')}`
}

const system = createSystemState()
executeSystem(system, { type: 'workspace.create', at_ms: 0, id: 'w', time_zone: 'UTC', limits: { writes_per_minute: 1, reads_per_minute: 1 }, tag: 'tag' })
executeSystem(system, { type: 'key.create', at_ms: 0, id: 'key_a', workspace: 'w', scopes: ['accounts:read'], accounts: null, name: null, secret_hash: hashSecret(secretBytes.toString('latin1')) })

t.test('the key authenticates, then is revoked', async (t) => {
  for (let i = 0; i < 3; i++) t.equal(authenticate(system, header())?.id, 'key_a', 'found by the hash of its secret')
  const secret = () => secretBytes.toString('latin1')
  for (const spelling of [(s: string) => `bearer ${s}`, (s: string) => `BEARER  ${s}`, (s: string) => `Bearer ${s} `, (s: string) => `Bearer ${s}\t`]) {
    t.equal(authenticate(system, spelling(secret()))?.id, 'key_a', 'any case, spaces around the secret')
  }
  for (const refused of ['Bearer', 'Bearer ', 'Bearer   ', `Bearer ${'a'.repeat(600)}`]) t.equal(authenticate(system, refused), null, 'no secret, or too long')
  t.equal(authenticate(system, `Bearer x${secret()}`), null, 'another secret')
  executeSystem(system, { type: 'key.revoke', at_ms: 1, id: 'key_a' })
  t.equal(authenticate(system, header()), null, 'revoked')
})

t.test('no reachable string holds the secret', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-key-memory-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const file = writeHeapSnapshot(path.join(dir, 'after-revoke.heapsnapshot'))
  const snapshot = fs.readFileSync(file)
  t.ok(snapshot.length > 1_000_000, 'a heap snapshot was written')
  // The base64url part alone: a substring or a cons string's right half would hold it too.
  const needle = secretBytes.subarray(3)
  t.equal(snapshot.indexOf(needle), -1, 'the secret is in no string of the heap')
})

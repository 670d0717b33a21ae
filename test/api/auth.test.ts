/**
 * src/api/auth.ts on its own: secrets hashed with SHA-256; keys found by the hash of the bearer secret (the usual
 * spelling and any case or spacing of `Bearer`, nothing else), revoked keys and overlong secrets refused; scopes;
 * the admin token compared in constant time through node:crypto's timingSafeEqual over equal-length digests.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import t from 'tap'
import { authenticate, bearerMatches, hashSecret, hasScope, isAdmin, tokenComparisonDefault } from '../../src/api/auth.ts'
import type { KeyRecord, SystemState } from '../../src/ledger/system.ts'

function systemWith(...entries: [secret: string, key: Partial<KeyRecord>][]): SystemState {
  const keysByHash = new Map<string, KeyRecord>()
  for (const [secret, key] of entries) {
    keysByHash.set(createHash('sha256').update(secret).digest('hex'), { id: 'key_1', workspace: 'w', scopes: ['entries:read'], accounts: null, name: null, secretHash: '', createdAtMs: 0, revokedAtMs: null, ...key } as KeyRecord)
  }
  return { keysByHash } as unknown as SystemState
}

t.test('hashSecret: SHA-256 in hex', async (t) => {
  t.equal(hashSecret('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
})

t.test('a key by its bearer secret, in any spelling of Bearer', async (t) => {
  const system = systemWith(['tu_secret', { id: 'key_a' }])
  for (const header of ['Bearer tu_secret', 'bearer tu_secret', 'BEARER   tu_secret', 'Bearer tu_secret  ']) t.equal(authenticate(system, header)?.id, 'key_a', header)
  for (const header of [undefined, '', 'Bearer', 'Bearer ', 'Bearer  ', 'Basic tu_secret', 'Bearer tu_secret extra', 'Bearertu_secret', 'Bearer tu_secre', ' Bearer tu_secret']) {
    t.equal(authenticate(system, header), null, JSON.stringify(header))
  }
})

t.test('revoked keys and secrets over 512 characters are no key', async (t) => {
  const long = 'x'.repeat(513)
  const system = systemWith(['revoked', { revokedAtMs: 5 }], [long, { id: 'key_long' }], ['y'.repeat(512), { id: 'key_512' }])
  t.equal(authenticate(system, 'Bearer revoked'), null)
  t.equal(authenticate(system, `Bearer ${long}`), null, 'not even looked up')
  t.equal(authenticate(system, `Bearer ${'y'.repeat(512)}`)?.id, 'key_512', '512 is still a secret')
})

t.test('scopes', async (t) => {
  const key = { scopes: ['entries:read', 'entries:write'] } as unknown as KeyRecord
  t.equal(hasScope(key, 'entries:write'), true)
  t.equal(hasScope(key, 'recon:approve'), false)
})

t.test('the admin token: constant time, over the two SHA-256 digests', async (t) => {
  t.equal(tokenComparisonDefault, timingSafeEqual)
  const calls: [number, number][] = []
  const watching = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => { calls.push([a.byteLength, b.byteLength]); return timingSafeEqual(a, b) }
  t.equal(isAdmin('admin-token', 'Bearer admin-token', watching), true)
  t.equal(isAdmin('admin-token', 'Bearer admin-token-but-longer', watching), false)
  t.equal(isAdmin('admin-token', 'Bearer x', watching), false)
  t.same(calls, [[32, 32], [32, 32], [32, 32]], 'every comparison over equal lengths, whatever was presented')
  t.equal(isAdmin('admin-token', undefined, watching), false)
  t.equal(bearerMatches('admin-token', 'Token admin-token', watching), false)
  t.equal(calls.length, 3, 'no bearer: nothing compared')
  t.equal(bearerMatches('admin-token', 'bearer  admin-token'), true, 'the default comparison, any spelling of Bearer')
})

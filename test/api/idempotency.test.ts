/**
 * Idempotency-Key at the edge (src/api/idempotency.ts): which keys are keys (1..255 printable ASCII, inner spaces only),
 * and the fingerprint a replay must match: key order inside the JSON does not change it, anything else does.
 */
import t from 'tap'
import { canonicalJson, fingerprint, isIdempotencyKey } from '../../src/api/idempotency.ts'

t.test('keys: 1 to 255 printable ASCII characters; spaces only inside', async (t) => {
  for (const key of ['!', '~', 'a', 'a b', 'order 42 / retry', 'x'.repeat(255), `a${' '.repeat(253)}z`, '550e8400-e29b-41d4-a716-446655440000']) {
    t.ok(isIdempotencyKey(key), JSON.stringify(key))
  }
  for (const key of ['', ' ', ' a', 'a ', 'x'.repeat(256), 'a\tb', 'a\nb', 'caf\u00e9', 'a\x7fb', 'a\x00b', '\u2603', `a${' '.repeat(254)}z`]) {
    t.notOk(isIdempotencyKey(key), JSON.stringify(key))
  }
})

t.test('canonical JSON: keys sorted at every depth, arrays in their order, values as JSON writes them', async (t) => {
  t.equal(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }), '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}')
  t.equal(canonicalJson([2, 1]), '[2,1]', 'an array keeps its order')
  t.equal(canonicalJson({}), '{}')
  t.equal(canonicalJson([]), '[]')
  t.equal(canonicalJson('a"b\n'), '"a\\"b\\n"')
  t.equal(canonicalJson(0), '0')
  t.equal(canonicalJson(null), 'null')
  t.equal(canonicalJson({ 'k"': true }), '{"k\\"":true}', 'keys escaped')
  t.equal(canonicalJson({ b: 1, a: 2 }), canonicalJson({ a: 2, b: 1 }))
})

t.test('fingerprints: equal for JSON-equal bodies, different for any other change', async (t) => {
  const base = fingerprint('POST', '/v2/entries', { json: { lines: [{ account: 'a', amount: 1 }, { account: 'b', amount: -1 }], description: 'x' } })
  t.match(base, /^[A-Za-z0-9_-]{43}$/, 'sha256 in base64url')
  t.equal(fingerprint('POST', '/v2/entries', { json: { description: 'x', lines: [{ amount: 1, account: 'a' }, { amount: -1, account: 'b' }] } }), base, 'key order')
  const others = [
    fingerprint('PATCH', '/v2/entries', { json: { lines: [{ account: 'a', amount: 1 }, { account: 'b', amount: -1 }], description: 'x' } }),
    fingerprint('POST', '/v2/entries/', { json: { lines: [{ account: 'a', amount: 1 }, { account: 'b', amount: -1 }], description: 'x' } }),
    fingerprint('POST', '/v2/entries', { json: { lines: [{ account: 'b', amount: -1 }, { account: 'a', amount: 1 }], description: 'x' } }),
    fingerprint('POST', '/v2/entries', { json: { lines: [{ account: 'a', amount: 1 }, { account: 'b', amount: -1 }], description: 'y' } }),
    fingerprint('POST', '/v2/entries', { json: { lines: [{ account: 'a', amount: 1 }, { account: 'b', amount: -1 }] } }),
    fingerprint('POST', '/v2/entries', { json: { lines: [{ account: 'a', amount: 1 }, { account: 'b', amount: -1 }], description: null } }),
  ]
  t.equal(new Set([base, ...others]).size, others.length + 1, 'method, path, line order, a value, a missing field, a null: each its own')
})

t.test('fingerprints of bytes: byte-equal only, and never equal to the same text read as JSON', async (t) => {
  const csv = Buffer.from('date,amount\n2026-03-01,5\n')
  t.equal(fingerprint('POST', '/v2/x', { bytes: csv }), fingerprint('POST', '/v2/x', { bytes: Buffer.from(csv) }))
  t.not(fingerprint('POST', '/v2/x', { bytes: csv }), fingerprint('POST', '/v2/x', { bytes: Buffer.from('date,amount\r\n2026-03-01,5\r\n') }))
  t.not(fingerprint('POST', '/v2/x', { bytes: Buffer.from('{}') }), fingerprint('POST', '/v2/x', { json: {} }))
  t.not(fingerprint('POST', '/v2/x', { bytes: Buffer.alloc(0) }), fingerprint('POST', '/v2/y', { bytes: Buffer.alloc(0) }), 'empty bodies: the path still counts')
})

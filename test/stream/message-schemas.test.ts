/**
 * Tests for the WebSocket message schemas (src/stream/message-schemas.ts) through the validator the server uses:
 * the client's messages accepted and refused at their bounds, the server's texts (as replies.ts writes them)
 * valid against serverMessage, and the named schemas the OpenAPI document publishes.
 */
import t from 'tap'
import { validator } from '../../src/api/schemas/validate.ts'
import { reject } from '../../src/errors.ts'
import { authMessage, clientMessage, requestMessage, serverMessage, streamNamedSchemas, topicsMessage } from '../../src/stream/message-schemas.ts'
import { errorText, responseText } from '../../src/stream/replies.ts'

const accepts = (check: (value: unknown) => { ok: boolean }) => (value: unknown) => check(value).ok

t.test('auth: a string key and the literal type', async (t) => {
  const ok = accepts(validator(authMessage))
  t.ok(ok({ type: 'auth', key: 'tu_abc' }))
  t.notOk(ok({ type: 'auth' }), 'no key')
  t.notOk(ok({ type: 'auth', key: 7 }))
  t.notOk(ok({ type: 'Auth', key: 'tu_abc' }), 'the type is exact')
})

t.test('subscribe and unsubscribe: optional id of 1..64, up to 1000 ids of bounded length', async (t) => {
  const ok = accepts(validator(topicsMessage))
  t.ok(ok({ type: 'subscribe' }), 'the schema allows none: subscriptions.ts refuses an empty one itself')
  t.ok(ok({ type: 'unsubscribe', id: 'x'.repeat(64), reconciliations: ['r'.repeat(64)], accounts: ['a'.repeat(200)] }), 'every bound at its limit')
  t.notOk(ok({ type: 'subscribe', id: 'x'.repeat(65) }), 'an id of 65')
  t.notOk(ok({ type: 'subscribe', id: '' }), 'an empty id')
  t.notOk(ok({ type: 'subscribe', reconciliations: ['r'.repeat(65)] }), 'a window id of 65')
  t.notOk(ok({ type: 'subscribe', accounts: ['a'.repeat(201)] }), 'an account name of 201')
  t.notOk(ok({ type: 'subscribe', accounts: [''] }), 'an empty account name')
  t.ok(ok({ type: 'subscribe', accounts: Array.from({ length: 1000 }, (_, i) => `a${i}`) }), '1000 accounts')
  t.notOk(ok({ type: 'subscribe', accounts: Array.from({ length: 1001 }, (_, i) => `a${i}`) }), '1001 accounts')
  t.notOk(ok({ type: 'watch', accounts: ['a'] }), 'another type')
})

t.test('request: an id, a method of 1..16, a path of 1..4096, string headers (64 at most), any body', async (t) => {
  const ok = accepts(validator(requestMessage))
  const base = { type: 'request', id: 'r1', method: 'GET', path: '/v2/accounts' }
  t.ok(ok(base))
  t.ok(ok({ ...base, headers: { a: 'b' }, body: [1, { c: null }] }))
  t.notOk(ok({ ...base, id: undefined }), 'the id is required')
  t.notOk(ok({ ...base, method: '' }))
  t.notOk(ok({ ...base, method: 'M'.repeat(17) }))
  t.ok(ok({ ...base, path: `/${'p'.repeat(4095)}` }), 'a path of 4096')
  t.notOk(ok({ ...base, path: `/${'p'.repeat(4096)}` }), 'a path of 4097')
  t.notOk(ok({ ...base, headers: { a: 1 } }), 'a header value not a string')
  t.notOk(ok({ ...base, headers: { a: 'v'.repeat(4097) } }), 'a header value over 4096')
  t.ok(ok({ ...base, headers: Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`h${i}`, 'v'])) }), '64 headers')
  t.notOk(ok({ ...base, headers: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`h${i}`, 'v'])) }), '65 headers')
})

t.test('clientMessage is any of the three', async (t) => {
  const ok = accepts(validator(clientMessage))
  t.ok(ok({ type: 'auth', key: 'k' }))
  t.ok(ok({ type: 'subscribe', accounts: ['a'] }))
  t.ok(ok({ type: 'request', id: 'r', method: 'GET', path: '/' }))
  t.notOk(ok({ type: 'response', id: 'r' }))
})

t.test('the server\'s messages as written are valid serverMessages; others are not', async (t) => {
  const ok = accepts(validator(serverMessage))
  const written = [
    responseText('r1', 201, '{"id":"acc_1"}', [['X-RateLimit-Remaining', '5'], ['Replayed', 'true']]),
    responseText('r2', 204, '', []),
    errorText(reject('not_found', 'No such thing.'), 'r3'),
    errorText(reject('request_invalid', 'Bad.', [{ path: '/type', message: 'must be a string' }]), undefined),
    '{"type":"authenticated","key":"key_1","workspace":"w"}',
    '{"type":"subscribed","id":"s1","reconciliations":["rec_1"],"accounts":["acc_1"]}',
    '{"type":"unsubscribed","reconciliations":[],"accounts":[]}',
    '{"type":"balance","data":{"account":"acc_1","name":"assets:bank","currency":"USD","balance":250,"at":"2026-11-27T12:00:00.000Z"}}',
  ]
  for (const text of written) t.ok(ok(JSON.parse(text)), text.slice(0, 60))
  t.notOk(ok({ type: 'response', id: 'r', status: 600, headers: {}, body: null }), 'a status over 599')
  t.notOk(ok({ type: 'response', id: 'r', status: 99, headers: {}, body: null }), 'a status under 100')
  t.notOk(ok({ type: 'subscribed', accounts: [] }), 'an ack without its reconciliations')
  t.notOk(ok({ type: 'balance', data: { account: 'acc_1' } }), 'a balance without its fields')
})

t.test('the named schemas: unique names, each naming its own schema', async (t) => {
  const names = streamNamedSchemas.map(([name]) => name)
  t.equal(new Set(names).size, names.length)
  t.ok(names.every((name) => name.startsWith('Stream')))
  const byName = new Map<string, unknown>(streamNamedSchemas)
  t.equal(byName.get('StreamClientMessage'), clientMessage)
  t.equal(byName.get('StreamServerMessage'), serverMessage)
  t.equal(byName.get('StreamTopicsMessage'), topicsMessage)
  t.equal(byName.get('StreamRequestMessage'), requestMessage)
  t.equal(byName.get('StreamAuthMessage'), authMessage)
})

/**
 * The server's messages on a socket (src/stream/replies.ts): a response carries the id, status, headers (names in
 * lower case) and the lifecycle's body as JSON, put in as is (an empty body is null); an error carries the error
 * envelope and the request's id only when it is a string of at most 64 characters. Every text parses as JSON.
 */
import t from 'tap'
import { reject } from '../../src/errors.ts'
import { errorEnvelopeText, errorText, responseText } from '../../src/stream/replies.ts'

t.test('a response: the exact text, header names lower-cased, the body inserted as JSON', async (t) => {
  const text = responseText('r1', 201, '{"id":"ent_1","amount":-5}', [['X-RateLimit-Limit', '600'], ['Location', '/v2/entries/ent_1']])
  t.equal(text, '{"type":"response","id":"r1","status":201,"headers":{"x-ratelimit-limit":"600","location":"/v2/entries/ent_1"},"body":{"id":"ent_1","amount":-5}}')
  t.same(JSON.parse(text), { type: 'response', id: 'r1', status: 201, headers: { 'x-ratelimit-limit': '600', location: '/v2/entries/ent_1' }, body: { id: 'ent_1', amount: -5 } })
})

t.test('no headers, an empty body (204): an empty object and null', async (t) => {
  t.same(JSON.parse(responseText('r2', 204, '', [])), { type: 'response', id: 'r2', status: 204, headers: {}, body: null })
})

t.test('ids and header values are escaped; a name in two spellings is one key in lower case', async (t) => {
  const id = 'q"uote\\back\nline\u2028'
  const parsed = JSON.parse(responseText(id, 200, '[]', [['Content-Disposition', 'attachment; filename="a.csv"'], ['X-Note', 'tab\there']]))
  t.equal(parsed.id, id)
  t.same(parsed.headers, { 'content-disposition': 'attachment; filename="a.csv"', 'x-note': 'tab\there' })
  t.same(parsed.body, [])
  t.same(JSON.parse(responseText('a', 200, '1', [['Retry-After', '1']])).headers, { 'retry-after': '1' })
  t.same(JSON.parse(responseText('b', 200, '1', [['retry-after', '2']])).headers, { 'retry-after': '2' }, 'the other spelling, same key')
})

t.test('many distinct header names (past the cache of their keys) are all written right', async (t) => {
  const headers = Array.from({ length: 150 }, (_, index) => [`X-Name-${index}`, String(index)] as const)
  for (let round = 0; round < 2; round++) {
    const parsed = JSON.parse(responseText('r', 200, 'null', headers))
    t.same(parsed.headers, Object.fromEntries(headers.map(([name, value]) => [name.toLowerCase(), value])), `round ${round + 1}`)
  }
})

t.test('an error: the envelope, with the id when it is a string of at most 64 characters', async (t) => {
  const rejection = reject('request_invalid', 'Bad message.', [{ path: '/id', message: 'too long' }])
  const envelope = { error: { code: 'request_invalid', message: 'Bad message.', details: [{ path: '/id', message: 'too long' }] } }
  t.equal(errorText(rejection, 'm1'), '{"type":"error","id":"m1","error":{"code":"request_invalid","message":"Bad message.","details":[{"path":"/id","message":"too long"}]}}')
  t.same(JSON.parse(errorText(rejection, 'x'.repeat(64))), { type: 'error', id: 'x'.repeat(64), ...envelope }, '64 characters: kept')
  for (const id of ['x'.repeat(65), 7, null, undefined, { id: 'm1' }, ['m1']]) {
    t.same(JSON.parse(errorText(rejection, id)), { type: 'error', ...envelope }, `${JSON.stringify(id)}: left out`)
  }
  t.equal(JSON.parse(errorText(rejection, 'a"b')).id, 'a"b', 'escaped')
})

t.test('an error from an envelope already written (a shard\'s reply)', async (t) => {
  const envelope = '{"error":{"code":"not_found","message":"No such reconciliation."}}'
  t.equal(errorEnvelopeText(envelope, 'r9'), '{"type":"error","id":"r9","error":{"code":"not_found","message":"No such reconciliation."}}')
  t.same(JSON.parse(errorEnvelopeText(envelope, 9)), { type: 'error', error: { code: 'not_found', message: 'No such reconciliation.' } })
})

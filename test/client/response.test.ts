/**
 * src/client/response.ts on its own: a `response` message as the server writes it is scanned for its id and status
 * without parsing (headers and body parsed on first read, once); any other text, or one written otherwise, is not
 * scanned (null: the caller parses it whole); a slice that does not parse falls back to the whole message.
 */
import t from 'tap'
import { LazyResponse, scanResponse } from '../../src/client/response.ts'

const message = (id: string, status: string, headers: string, body: string) => `{"type":"response","id":"${id}","status":${status},"headers":${headers},"body":${body}}`

t.test('the id, status, headers and body of a response as written', async (t) => {
  const text = message('req-7', '201', '{"location":"/v1/accounts/acc_1","x":"a}b\\"{"}', '{"id":"acc_1","nested":{"n":[1,2]}}')
  const scanned = scanResponse(text)
  t.ok(scanned !== null)
  t.equal(scanned!.id, 'req-7')
  t.equal(scanned!.response.status, 201)
  t.same(scanned!.response.headers, { location: '/v1/accounts/acc_1', x: 'a}b"{' }, 'braces and escaped quotes inside header strings skipped')
  t.same(scanned!.response.body, { id: 'acc_1', nested: { n: [1, 2] } })
  const parsed = JSON.parse(text) as { status: number; headers: object; body: unknown }
  t.same(scanned!.response.toJSON(), { status: parsed.status, headers: parsed.headers, body: parsed.body }, 'as JSON.parse reads the whole')
})

t.test('bodies of every kind; the body is parsed once', async (t) => {
  for (const body of ['null', '"text"', '[1,{"a":2}]', '0', 'true']) t.same(scanResponse(message('i', '200', '{}', body))!.response.body, JSON.parse(body), body)
  const response = scanResponse(message('i', '200', '{}', '{"a":1}'))!.response
  t.equal(response.body, response.body, 'the same object on every read')
})

t.test('not scanned: other messages, and responses written otherwise', async (t) => {
  t.equal(scanResponse('{"type":"update","topic":"r:1"}'), null)
  t.equal(scanResponse('{"id":"1","type":"response","status":200,"headers":{},"body":null}'), null, 'fields in another order')
  t.equal(scanResponse(message('a\\"b', '200', '{}', 'null')), null, 'an id with an escape')
  t.equal(scanResponse(message('i', '"200"', '{}', 'null')), null, 'a status that is no number')
  t.equal(scanResponse(message('i', '', '{}', 'null')), null, 'no status digits')
  t.equal(scanResponse(message('i', '200', '{"a":{"b":"c"}}', 'null')), null, 'headers that are not flat')
  t.equal(scanResponse(message('i', '200', '[]', 'null')), null, 'headers that are no object')
  t.equal(scanResponse(message('i', '200', '{}', 'null').slice(0, -1)), null, 'cut short')
  t.equal(scanResponse('{"type":"response","id":"unterminated'), null)
})

t.test('a slice that does not parse: the field read from the whole message', async (t) => {
  const whole = JSON.stringify({ type: 'response', id: 'i', status: 200, headers: { h: 'v' }, body: { ok: true } })
  const response = new LazyResponse(whole, 200, '{"h":', 'not json')
  t.same(response.headers, { h: 'v' })
  t.same(response.body, { ok: true })
})

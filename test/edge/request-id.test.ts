/**
 * Request ids (src/edge/request-id.ts): a caller's sane Request-Id is kept, else its X-Request-Id, else a new
 * UUID; sane means 1..lengthMax characters of the set UUIDs, ULIDs, W3C trace ids and base64 use, nothing that
 * could break a header or a log line.
 */
import t from 'tap'
import { requestIdOf } from '../../src/edge/request-id.ts'

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

t.test('Request-Id first, then X-Request-Id', async (t) => {
  t.equal(requestIdOf('abc', 'xyz', 64), 'abc')
  t.equal(requestIdOf(undefined, 'xyz', 64), 'xyz')
  t.equal(requestIdOf('bad id', 'xyz', 64), 'xyz', 'an unusable Request-Id gives way to X-Request-Id')
})

t.test('ids of the usual shapes are kept as they are', async (t) => {
  for (const id of [
    '3f2b8c1e-9d4a-4e6b-8a7c-1b2c3d4e5f60', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    'YWJjZGVmZ2g=', 'a+b/c', 'svc:req.1~x_y@z', 'x',
  ]) t.equal(requestIdOf(id, undefined, 200), id, id)
})

t.test('the length bound is inclusive', async (t) => {
  t.equal(requestIdOf('a'.repeat(64), undefined, 64), 'a'.repeat(64))
  t.match(requestIdOf('a'.repeat(65), undefined, 64), uuid, 'one over: a new id')
})

t.test('empty, spaces, quotes, control characters, non-ASCII, header-splitting: a new UUID instead', async (t) => {
  for (const bad of ['', ' ', 'a b', '"quoted"', "it's", 'a\tb', 'a\r\nSet-Cookie: x=1', 'a\u0000', 'café', 'a,b', 'a;b', '<script>', '{x}', 'a\\b']) {
    t.match(requestIdOf(bad, bad, 200), uuid, JSON.stringify(bad))
  }
})

t.test('a new id each time', async (t) => {
  const ids = new Set(Array.from({ length: 100 }, () => requestIdOf(undefined, undefined, 64)))
  t.equal(ids.size, 100)
  for (const id of ids) t.match(id, uuid)
})

/**
 * The headers a request hands the lifecycle (src/edge/http.ts, readHeaders), read from a real uWebSockets.js
 * request sent over a raw socket (so a header can come empty, twice, or in any case): the first occurrence of a
 * name wins; an empty value counts as absent, except for a name whose presence matters (Idempotency-Key), which
 * is kept as ''; names not asked for are not read. The same whichever way the headers are read.
 */
import net from 'node:net'
import t from 'tap'
import { App, us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js'
import { readHeaders } from '../../src/edge/http.ts'

const names = ['authorization', 'idempotency-key', 'content-type', 'request-id'] as const
const presenceMatters = ['idempotency-key']

interface Served { readonly port: number; readonly seen: Record<string, string>[]; close(): void }

/** An app answering each request with nothing, after noting what readHeaders gave (presence mattering for a POST). */
async function serve(): Promise<Served> {
  const seen: Record<string, string>[] = []
  const app = App().any('/*', (res, req) => {
    const headers = readHeaders(req, names, req.getMethod() === 'get' ? [] : presenceMatters)
    seen.push(Object.fromEntries(headers))
    res.endWithoutBody()
  })
  const socket = await new Promise<us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (listening) => (listening === false ? reject(new Error('no listen')) : resolve(listening))))
  return { port: us_socket_local_port(socket), seen, close: () => us_listen_socket_close(socket) }
}

/** Sends the request's head as written, waits for the answer's status line; bounded by a timeout. */
function request(port: number, method: string, headerLines: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error('no answer within 5 s'))
    }, 5_000)
    socket.on('data', (chunk) => {
      if (!chunk.toString('latin1').startsWith('HTTP/1.1 ')) return
      clearTimeout(timer)
      socket.destroy()
      resolve()
    })
    socket.on('error', reject)
    const body = method === 'POST' ? ['content-length: 0'] : []
    socket.write(`${method} / HTTP/1.1\r\nhost: x\r\n${[...headerLines, ...body].map((line) => `${line}\r\n`).join('')}\r\n`)
  })
}

const served = await serve()
t.teardown(() => served.close())

const cases: readonly { readonly name: string; readonly method: string; readonly lines: readonly string[]; readonly want: Record<string, string> }[] = [
  { name: 'the usual unkeyed POST', method: 'POST', lines: ['Authorization: Bearer abc', 'Content-Type: application/json'], want: { authorization: 'Bearer abc', 'content-type': 'application/json' } },
  { name: 'a keyed POST', method: 'POST', lines: ['authorization: Bearer abc', 'Idempotency-Key: k1', 'request-id: r1'], want: { authorization: 'Bearer abc', 'idempotency-key': 'k1', 'request-id': 'r1' } },
  { name: 'an empty Idempotency-Key is kept as empty', method: 'POST', lines: ['authorization: Bearer abc', 'idempotency-key:'], want: { authorization: 'Bearer abc', 'idempotency-key': '' } },
  { name: 'other empty headers are absent', method: 'POST', lines: ['authorization:', 'content-type:', 'request-id:'], want: {} },
  { name: 'twice: the first wins', method: 'POST', lines: ['authorization: Bearer one', 'authorization: Bearer two', 'idempotency-key: a', 'idempotency-key: b'], want: { authorization: 'Bearer one', 'idempotency-key': 'a' } },
  { name: 'an empty first Idempotency-Key wins over a later one', method: 'POST', lines: ['idempotency-key:', 'idempotency-key: b'], want: { 'idempotency-key': '' } },
  { name: 'an empty first occurrence of another header: absent, a later one not read', method: 'POST', lines: ['request-id:', 'request-id: r2'], want: {} },
  { name: 'headers not asked for are not read', method: 'POST', lines: ['x-other: 1', 'accept: */*'], want: {} },
  { name: 'a GET: an empty Idempotency-Key is absent', method: 'GET', lines: ['authorization: Bearer abc', 'idempotency-key:'], want: { authorization: 'Bearer abc' } },
]

for (const one of cases) {
  t.test(one.name, async (t) => {
    await request(served.port, one.method, one.lines)
    t.same(served.seen.at(-1), one.want)
  })
}

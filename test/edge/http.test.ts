/**
 * The uWebSockets.js plumbing (src/edge/http.ts) on a real app on 127.0.0.1, spoken to over raw sockets: a body
 * read up to its limit (at it, past it, in many chunks), answers written once with their status line, Request-Id
 * and content type, HEAD and 204 without a body, Connection: close while the server closes, streamed answers
 * (chunks, HEAD, a failure cutting the connection), and a client that goes away settling the exchange once.
 */
import net from 'node:net'
import t from 'tap'
import { App, us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js'
import { openExchange, readBody, send, sendStream, watchAborted, type Exchange } from '../../src/edge/http.ts'

const settled: Exchange[] = []
const server = { closing: false }
let streamClosed = 0

/** Each path one behaviour; the exchange settles into `settled`. */
const app = App().any('/*', (res, req) => {
  const method = req.getMethod().toUpperCase()
  const path = req.getUrl()
  const limit = Number(req.getQuery('limit') ?? '10')
  const exchange = openExchange(res, method, `rid-${path}`, 0, (done) => settled.push(done), server)
  if (path === '/body') readBody(exchange, limit, (body) => send(exchange, 200, JSON.stringify(body.bytes === null ? null : body.bytes.toString('latin1')), []))
  else if (path === '/twice') {
    send(exchange, 201, '{"first":true}', [['X-RateLimit-Limit', '10'], ['X-Other', 'a']])
    send(exchange, 500, '{"second":true}', [])
  } else if (path === '/csv') send(exchange, 200, Buffer.from('a,b\n'), [], 'text/csv')
  else if (path === '/none') send(exchange, 204, '', [])
  else if (path === '/odd') send(exchange, 299, 'odd', [])
  else if (path.startsWith('/stream')) streamed(exchange, path)
  else if (path === '/never') { /* left unanswered: the client goes away */ }
  watchAborted(exchange)
})

function streamed(exchange: Exchange, path: string): void {
  const chunks = ['one,', 'two,', 'three']
  sendStream(exchange, 200, [['content-type', 'text/csv']], (deliver) => {
    if (path === '/stream-fail' && chunks.length === 1) return deliver(null, new Error('page refused'))
    deliver(chunks.shift() ?? null, null)
  }, () => { streamClosed++ })
}

const listen = await new Promise<us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (socket) => (socket === false ? reject(new Error('no listen')) : resolve(socket))))
const port = us_socket_local_port(listen)
t.teardown(() => {
  us_listen_socket_close(listen)
  app.close()
})

interface Raw { readonly head: string; readonly status: number; readonly headers: Map<string, string>; readonly body: string; readonly closedByServer: boolean }

/** Writes the request as given (bodies in `parts`, each its own write), reads until the server closes or 1.5 s pass. */
function raw(method: string, target: string, parts: readonly string[] = [], extra: readonly string[] = []): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const length = parts.reduce((sum, part) => sum + Buffer.byteLength(part), 0)
    const socket = net.connect(port, '127.0.0.1')
    const received: Buffer[] = []
    let closedByServer = false
    const finish = () => {
      clearTimeout(timer)
      socket.destroy()
      const text = Buffer.concat(received).toString('latin1')
      const end = text.indexOf('\r\n\r\n')
      if (end < 0) return reject(new Error(`no answer: ${JSON.stringify(text)}`))
      const [line, ...lines] = text.slice(0, end).split('\r\n')
      const headers = new Map(lines.map((header) => [header.slice(0, header.indexOf(':')).toLowerCase(), header.slice(header.indexOf(':') + 1).trim()]))
      resolve({ head: text.slice(0, end), status: Number(line.split(' ')[1]), headers, body: text.slice(end + 4), closedByServer })
    }
    const timer = setTimeout(finish, 1_500)
    socket.on('data', (chunk) => received.push(chunk))
    socket.on('end', () => { closedByServer = true; finish() })
    socket.on('error', () => finish())
    socket.on('connect', async () => {
      socket.write(`${method} ${target} HTTP/1.1\r\nhost: x\r\n${extra.map((header) => `${header}\r\n`).join('')}${method === 'GET' || method === 'HEAD' ? '' : `content-length: ${length}\r\n`}\r\n`)
      for (const part of parts) {
        await new Promise((resolveWrite) => setTimeout(resolveWrite, 20))
        socket.write(part)
      }
    })
  })
}

/** The body of a chunked answer, its chunks joined. */
function unchunked(body: string): string {
  let rest = body
  let text = ''
  for (let guard = 0; guard < 100 && rest.length > 0; guard++) {
    const lineEnd = rest.indexOf('\r\n')
    const size = parseInt(rest.slice(0, lineEnd), 16)
    if (size === 0) return text
    text += rest.slice(lineEnd + 2, lineEnd + 2 + size)
    rest = rest.slice(lineEnd + 2 + size + 2)
  }
  return `${text}<no last chunk>`
}

t.test('readBody: up to the limit whole, one byte past it null; many chunks joined; an empty body', async (t) => {
  t.same(JSON.parse((await raw('POST', '/body?limit=10', ['0123456789'], ['connection: close'])).body), '0123456789', 'exactly at the limit')
  t.equal(JSON.parse((await raw('POST', '/body?limit=10', ['0123456789A'], ['connection: close'])).body), null, 'one past it')
  t.same(JSON.parse((await raw('POST', '/body?limit=12', ['abcd', 'efgh', 'ijkl'], ['connection: close'])).body), 'abcdefghijkl', 'in three writes')
  t.equal(JSON.parse((await raw('POST', '/body?limit=11', ['abcd', 'efgh', 'ijkl'], ['connection: close'])).body), null, 'over the limit across chunks')
  t.same(JSON.parse((await raw('POST', '/body?limit=0', [], ['connection: close'])).body), '', 'no body: empty, within a limit of 0')
})

t.test('send: the first answer only, its status line, Request-Id, headers and JSON content type', async (t) => {
  const answer = await raw('GET', '/twice', [], ['connection: close'])
  t.match(answer.head, /^HTTP\/1\.1 201 Created\r\n/)
  t.equal(answer.headers.get('request-id'), 'rid-/twice')
  t.equal(answer.headers.get('x-ratelimit-limit'), '10')
  t.equal(answer.headers.get('x-other'), 'a')
  t.equal(answer.headers.get('content-type'), 'application/json')
  t.equal(answer.body, '{"first":true}', 'the second send is dropped')
  t.equal(settled.filter((exchange) => exchange.requestId === 'rid-/twice' && exchange.status === 201).length, 1, 'settled once, with its status')
  t.equal((await raw('GET', '/csv', [], ['connection: close'])).headers.get('content-type'), 'text/csv')
  t.match((await raw('GET', '/odd', [], ['connection: close'])).head, /^HTTP\/1\.1 299 Unknown\r\n/, 'a status without a text')
})

t.test('204 and HEAD: no body; HEAD says the length GET\'s body has', async (t) => {
  const none = await raw('GET', '/none', [], ['connection: close'])
  t.match(none.head, /^HTTP\/1\.1 204 No Content/)
  t.equal(none.body, '')
  t.equal(none.headers.get('content-type'), undefined)
  const head = await raw('HEAD', '/twice', [], ['connection: close'])
  t.equal(head.status, 201)
  t.equal(head.headers.get('content-length'), String('{"first":true}'.length))
  t.equal(head.body, '')
})

t.test('while the server closes, every answer asks the client to close the connection', async (t) => {
  server.closing = true
  t.teardown(() => { server.closing = false })
  const plain = await raw('GET', '/twice')
  t.ok(plain.closedByServer, 'closed after the answer')
  t.equal(plain.body, '{"first":true}')
  t.equal((await raw('GET', '/none')).headers.get('connection'), 'close', '204')
  t.equal((await raw('HEAD', '/twice')).headers.get('connection'), 'close', 'HEAD')
  t.equal((await raw('GET', '/stream')).headers.get('connection'), 'close', 'a streamed answer')
})

t.test('sendStream: chunks in order, chunked; HEAD has none; a failure cuts the connection; close called once each', async (t) => {
  const before = streamClosed
  const whole = await raw('GET', '/stream', [], ['connection: close'])
  t.equal(whole.status, 200)
  t.equal(whole.headers.get('transfer-encoding'), 'chunked')
  t.equal(whole.headers.get('request-id'), 'rid-/stream')
  t.equal(unchunked(whole.body), 'one,two,three')
  const head = await raw('HEAD', '/stream', [], ['connection: close'])
  t.equal(head.status, 200)
  t.equal(head.body, '')
  const failed = await raw('GET', '/stream-fail', [], ['connection: close'])
  t.equal(failed.status, 200, 'the headers were out')
  t.equal(unchunked(failed.body), 'one,two,<no last chunk>', 'truncated, never complete-looking')
  t.equal(streamClosed - before, 3)
})

t.test('a client that goes away: the exchange settles once, aborted, with status 0', async (t) => {
  const socket = net.connect(port, '127.0.0.1')
  await new Promise((resolve) => socket.on('connect', resolve))
  socket.write('GET /never HTTP/1.1\r\nhost: x\r\n\r\n')
  await new Promise((resolve) => setTimeout(resolve, 50))
  socket.destroy()
  let found: Exchange[] = []
  for (let attempt = 0; attempt < 50 && found.length === 0; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    found = settled.filter((exchange) => exchange.requestId === 'rid-/never')
  }
  t.equal(found.length, 1)
  t.equal(found[0].aborted, true)
  t.equal(found[0].answered, false)
  t.equal(found[0].status, 0)
})

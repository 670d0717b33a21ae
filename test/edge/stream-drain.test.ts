/**
 * A streamed answer (src/edge/http.ts, sendStream: the exports) and the drain: whether the shutdown begins
 * before its headers or while its chunks are under way, the client reads the whole body, intact, and the
 * answer asks for the connection to be closed when its headers can still say so.
 */
import http from 'node:http'
import t from 'tap'
import { App, us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js'
import { openExchange, sendStream, watchAborted } from '../../src/edge/http.ts'

const chunks = ['first chunk;', 'second chunk;', 'third chunk.']

interface Served { readonly port: number; readonly server: { closing: boolean }; close(): void }

/** An app streaming `chunks`, each after a pause; `server.closing` is the drain's flag, set by the test. */
async function serve(pauseMs: number): Promise<Served> {
  const server = { closing: false }
  const app = App().any('/*', (res) => {
    const exchange = openExchange(res, 'GET', 'req_test', 0, () => {}, server)
    let next = 0
    sendStream(exchange, 200, [['content-type', 'text/plain']], (deliver) => {
      setTimeout(() => deliver(next < chunks.length ? chunks[next++] : null, null), pauseMs)
    }, () => {})
    watchAborted(exchange)
  })
  const socket = await new Promise<us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (listening) => (listening === false ? reject(new Error('no listen')) : resolve(listening))))
  return { port: us_socket_local_port(socket), server, close: () => { us_listen_socket_close(socket); app.close() } }
}

/** GET on a fresh connection; `onFirstData` runs when the first body bytes came. Bounded by a timeout. */
function get(port: number, onFirstData: () => void): Promise<{ body: string; connection: string | undefined } | string> {
  return new Promise((resolve) => {
    const agent = new http.Agent({ keepAlive: true })
    const timer = setTimeout(() => resolve('no complete answer within 10 s'), 10_000)
    const done = (outcome: { body: string; connection: string | undefined } | string) => {
      clearTimeout(timer)
      agent.destroy()
      resolve(outcome)
    }
    http.get({ host: '127.0.0.1', port, path: '/export', agent }, (response) => {
      let body = ''
      let first = true
      response.setEncoding('utf8')
      response.on('data', (text: string) => {
        body += text
        if (first) onFirstData()
        first = false
      })
      response.on('end', () => done({ body, connection: response.headers.connection }))
      response.on('error', (error) => done(`the body failed: ${error.message}`))
    }).on('error', (error: NodeJS.ErrnoException) => done(`no answer: ${error.code ?? error.message}`))
  })
}

t.test('the drain begins while the chunks are under way: the body arrives whole and intact', async (t) => {
  const served = await serve(100)
  t.teardown(() => served.close())
  const outcome = await get(served.port, () => { served.server.closing = true })
  t.same(typeof outcome === 'string' ? outcome : outcome.body, chunks.join(''))
})

t.test('the drain began before the headers: they say Connection: close, and the body arrives whole', async (t) => {
  const served = await serve(20)
  t.teardown(() => served.close())
  served.server.closing = true
  const outcome = await get(served.port, () => {})
  t.same(typeof outcome === 'string' ? outcome : { body: outcome.body, connection: outcome.connection }, { body: chunks.join(''), connection: 'close' })
})

/**
 * The drain and a kept-alive connection idle when it begins (src/edge/drain.ts): a request the client sends on
 * it a moment later is answered (503 unavailable, Connection: close, then the connection is closed), not met
 * with a closed socket; a request whose bytes arrived while the process could not run (a loaded machine) is
 * read and answered before the drain closes the idle connections; and a connection that sends nothing is
 * closed after the idle grace, well before the shutdown's grace.
 */
import net from 'node:net'
import { performance } from 'node:perf_hooks'
import t, { type Test } from 'tap'
import { idleCloseGraceMs } from '../../src/edge/drain.ts'
import { parseAnswer } from '../support/raw-exchange.ts'
import { startTestService } from '../support/service.ts'

// Each test starts a service (four shards in npm test's second run), which on a loaded CI machine takes
// tens of seconds: tap's default 120 s per file was met with 90-105 s at load 17.
t.setTimeout(300_000)

const answerWaitMs = 10_000

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** One kept-alive connection, written byte for byte: the test decides when each request leaves. */
class KeptAlive {
  readonly #socket: net.Socket
  #received = Buffer.alloc(0)
  #ended = false
  #error: string | null = null
  #changed: () => void = () => {}

  private constructor(socket: net.Socket) {
    this.#socket = socket
    socket.on('data', (chunk: Buffer) => { this.#received = Buffer.concat([this.#received, chunk]); this.#changed() })
    socket.on('end', () => { this.#ended = true; this.#changed() })
    socket.on('error', (error: NodeJS.ErrnoException) => { this.#error = error.code ?? error.message; this.#changed() })
  }

  static open(baseUrl: string): Promise<KeptAlive> {
    const { hostname, port } = new URL(baseUrl)
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => resolve(new KeptAlive(socket)))
      socket.setNoDelay(true)
      socket.once('error', reject)
    })
  }

  /** Writes the request now (the socket is connected and empty: the bytes reach the kernel before this returns). */
  send(method: string, route: string, key: string, body = ''): void {
    this.#socket.write(`${method} ${route} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\n`
      + `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
  }

  /** The next complete answer; or what happened instead (the server closed, a reset, nothing within answerWaitMs). */
  async answer(): Promise<{ status: number; headers: ReadonlyMap<string, string>; body: any } | string> {
    const deadlineMs = performance.now() + answerWaitMs
    for (;;) {
      const parsed = parseAnswer(this.#received, this.#ended)
      if (parsed !== null) {
        this.#received = Buffer.alloc(0)
        return parsed
      }
      if (this.#error !== null) return `no answer: ${this.#error}`
      if (this.#ended) return 'no answer: closed by the server'
      if (performance.now() > deadlineMs) return `no answer within ${answerWaitMs} ms`
      await new Promise<void>((resolve) => {
        this.#changed = resolve
        setTimeout(resolve, 50)
      })
    }
  }

  /** Whether the server ended the connection (a clean close, not a reset), waiting up to answerWaitMs. */
  async closedByServer(): Promise<string> {
    const deadlineMs = performance.now() + answerWaitMs
    while (!this.#ended && this.#error === null && performance.now() < deadlineMs) await sleep(10)
    return this.#error ?? (this.#ended ? 'closed' : 'still open')
  }

  destroy(): void {
    this.#socket.destroy()
  }
}

/** Resolves once the listening socket is closed (the drain's first step), probing with fresh connections. */
async function drainBegun(baseUrl: string): Promise<boolean> {
  const { hostname, port } = new URL(baseUrl)
  for (let attempt = 0; attempt < 2_000; attempt++) {
    const refused = await new Promise<boolean>((resolve) => {
      const probe = net.connect(Number(port), hostname, () => { probe.destroy(); resolve(false) })
      probe.on('error', () => resolve(true))
    })
    if (refused) return true
    await sleep(5)
  }
  return false
}

/** A service with one kept-alive connection that has carried a request (so its client may reuse it at any time). */
async function serviceWithIdleConnection(t: Test) {
  const service = await startTestService()
  const connection = await KeptAlive.open(service.baseUrl)
  t.teardown(async () => {
    connection.destroy()
    await service.destroy()
  })
  connection.send('GET', '/v2/accounts', service.apiKey)
  const first = await connection.answer()
  t.equal(typeof first === 'string' ? first : first.status, 200, 'the connection carried a request before the stop')
  return { service, connection }
}

function describe(answer: Awaited<ReturnType<KeptAlive['answer']>>): unknown {
  if (typeof answer === 'string') return answer
  return { status: answer.status, connection: answer.headers.get('connection'), code: answer.body?.error?.code }
}

t.test('a request on a connection idle when the drain began, sent within the idle grace: 503 with Connection: close, then closed', async (t) => {
  const { service, connection } = await serviceWithIdleConnection(t)
  const stopping = service.stop()
  t.ok(await drainBegun(service.baseUrl), 'the listening socket closes')
  // Past the quiet time after which the drain used to close idle connections (200 ms), well within idleCloseGraceMs.
  await sleep(300)
  connection.send('POST', '/v2/accounts', service.apiKey, JSON.stringify({ name: 'assets:late' }))
  t.same(describe(await connection.answer()), { status: 503, connection: 'close', code: 'unavailable' })
  t.equal(await connection.closedByServer(), 'closed', 'the server closes the connection after that answer')
  await stopping
  t.match(service.printed.at(-1) ?? '', /, 1 refused with 503, 0 idle connections closed;/)
})

t.test('a request whose bytes arrived while the process was not running is answered before idle connections are closed', async (t) => {
  const { service, connection } = await serviceWithIdleConnection(t)
  const stopping = service.stop()
  t.ok(await drainBegun(service.baseUrl), 'the listening socket closes')
  // The request reaches the kernel's buffer, then this thread (the edge's, with EDGE_THREADS=0) runs nothing
  // else past the point where the drain may close idle connections: like a process descheduled on a loaded machine.
  connection.send('POST', '/v2/accounts', service.apiKey, JSON.stringify({ name: 'assets:late' }))
  const stalledUntilMs = performance.now() + idleCloseGraceMs + 400
  while (performance.now() < stalledUntilMs) { /* descheduled */ }
  t.same(describe(await connection.answer()), { status: 503, connection: 'close', code: 'unavailable' })
  t.equal(await connection.closedByServer(), 'closed', 'the server closes the connection after that answer')
  await stopping
})

t.test('a connection that sends nothing is closed after the idle grace, long before the shutdown grace', async (t) => {
  const { service, connection } = await serviceWithIdleConnection(t)
  const startedMs = performance.now()
  await service.stop()
  const stopMs = performance.now() - startedMs
  t.equal(await connection.closedByServer(), 'closed', 'the idle connection is closed by the server')
  t.ok(stopMs >= idleCloseGraceMs, `not before the idle grace (${Math.round(stopMs)} ms)`)
  t.ok(stopMs < 10_000, `before the shutdown's grace (SHUTDOWN_GRACE_MS, 10 s): ${Math.round(stopMs)} ms`)
  t.match(service.printed.at(-1) ?? '', /, 0 refused with 503, 1 idle connections closed;/)
})

/**
 * @module Test support: misbehaving HTTP/1.1 clients on a raw socket, for fuzzing the edge: a body
 * shorter than its content-length, a body sent slowly in pieces, a client that vanishes mid-body or
 * mid-response. Every exchange is bounded in time and always destroys its socket.
 */

import net from 'node:net'

export interface RawExchange {
  readonly method: string
  readonly route: string
  /** Extra headers after host/connection/content-length, written as they are (latin1 or bytes). */
  readonly headers: readonly (readonly [string, string | Buffer])[]
  readonly body: Buffer
  /** The content-length header written; defaults to body.length. null: no content-length header. */
  readonly declaredLength?: number | null
  /** The body goes out in this many pieces (≥ 1), with delayMs between them. */
  readonly pieces?: number
  readonly delayMs?: number
  /**
   * What the client does after writing: wait for the answer; destroy at once (after the request);
   * destroy after writing only `cutAt` body bytes; half-close (FIN) and wait briefly; destroy on the
   * first answer byte.
   */
  readonly mode: 'answer' | 'destroy-after-request' | 'destroy-mid-body' | 'half-close' | 'destroy-on-first-byte'
  readonly cutAt?: number
  readonly timeoutMs: number
}

export interface RawOutcome {
  /** null when no complete answer came (by design of the mode, or because the server closed). */
  readonly status: number | null
  readonly headers: ReadonlyMap<string, string>
  readonly text: string
  readonly body: unknown
  /** The socket was closed by the server before a complete answer. */
  readonly closedEarly: boolean
  readonly timedOut: boolean
  readonly error: string | null
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function headOf(baseUrl: string, exchange: RawExchange): Buffer {
  const { hostname, port } = new URL(baseUrl)
  const parts: Buffer[] = [Buffer.from(`${exchange.method} ${exchange.route} HTTP/1.1\r\nhost: ${hostname}:${port}\r\nconnection: close\r\n`, 'latin1')]
  const declared = exchange.declaredLength === undefined ? exchange.body.length : exchange.declaredLength
  if (declared !== null) parts.push(Buffer.from(`content-length: ${declared}\r\n`, 'latin1'))
  for (const [name, value] of exchange.headers) parts.push(Buffer.from(`${name}: `, 'latin1'), Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1'), Buffer.from('\r\n', 'latin1'))
  parts.push(Buffer.from('\r\n', 'latin1'))
  return Buffer.concat(parts)
}

interface Parsed { status: number; headers: Map<string, string>; text: string; body: unknown }

/** A complete HTTP/1.1 answer in the bytes so far, or null. An answer to HEAD has no body, whatever its Content-Length says. */
export function parseAnswer(received: Buffer, ended: boolean, toHead = false): Parsed | null {
  const headEnd = received.indexOf('\r\n\r\n')
  if (headEnd < 0) return null
  const [statusLine, ...lines] = received.subarray(0, headEnd).toString('latin1').split('\r\n')
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1])
  // An interim answer (100 Continue to `expect: 100-continue`) precedes the real one.
  if (status >= 100 && status < 200) return parseAnswer(received.subarray(headEnd + 4), ended, toHead)
  const headers = new Map<string, string>()
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
  }
  const length = toHead ? 0 : Number(headers.get('content-length') ?? NaN)
  const rest = received.subarray(headEnd + 4)
  if (Number.isInteger(length) ? rest.length < length : !ended && status !== 204) return null
  const text = (Number.isInteger(length) ? rest.subarray(0, length) : rest).toString('utf8')
  let body: unknown = null
  try { body = text === '' ? null : JSON.parse(text) } catch { body = text }
  return { status, headers, text, body }
}

/** Runs one misbehaving exchange; never rejects. */
export async function rawExchange(baseUrl: string, exchange: RawExchange): Promise<RawOutcome> {
  const { hostname, port } = new URL(baseUrl)
  const socket = net.connect(Number(port), hostname)
  socket.setNoDelay(true)
  const chunks: Buffer[] = []
  let ended = false
  let errorText: string | null = null
  let firstByte: () => void = () => {}
  const firstByteSeen = new Promise<void>((resolve) => { firstByte = resolve })
  let answered: () => void = () => {}
  const answer = new Promise<void>((resolve) => { answered = resolve })
  let parsed: Parsed | null = null
  // The service takes methods case-insensitively (uWS lower-cases them), so `head` gets no body either.
  const toHead = exchange.method.toUpperCase() === 'HEAD'
  socket.on('data', (chunk) => {
    chunks.push(chunk)
    firstByte()
    parsed = parseAnswer(Buffer.concat(chunks), false, toHead)
    if (parsed !== null) answered()
  })
  socket.on('end', () => { ended = true; parsed ??= parseAnswer(Buffer.concat(chunks), true, toHead); answered() })
  socket.on('close', () => { ended = true; answered() })
  socket.on('error', (error) => { errorText = error.message; answered() })
  const deadline = sleep(exchange.timeoutMs).then(() => 'timeout' as const)
  const connected = await Promise.race([new Promise<'ok'>((resolve) => socket.once('connect', () => resolve('ok'))), deadline, answer.then(() => 'closed' as const)])
  const finish = (timedOut: boolean): RawOutcome => {
    socket.destroy()
    const result = parsed as Parsed | null
    return { status: result?.status ?? null, headers: result?.headers ?? new Map(), text: result?.text ?? '', body: result?.body ?? null, closedEarly: result === null && ended, timedOut, error: errorText }
  }
  if (connected !== 'ok') return finish(connected === 'timeout')
  const write = (bytes: Buffer) => new Promise<void>((resolve) => { if (socket.destroyed || bytes.length === 0) return resolve(); socket.write(bytes, () => resolve()) })
  await write(headOf(baseUrl, exchange))
  const body = exchange.mode === 'destroy-mid-body' ? exchange.body.subarray(0, exchange.cutAt ?? Math.floor(exchange.body.length / 2)) : exchange.body
  const pieces = Math.max(1, exchange.pieces ?? 1)
  const pieceBytes = Math.max(1, Math.ceil(body.length / pieces))
  for (let offset = 0; offset < body.length; offset += pieceBytes) {
    if (offset > 0 && (exchange.delayMs ?? 0) > 0) await sleep(exchange.delayMs ?? 0)
    if (socket.destroyed) break
    await write(body.subarray(offset, offset + pieceBytes))
  }
  switch (exchange.mode) {
    case 'destroy-after-request':
    case 'destroy-mid-body':
      return finish(false)
    case 'destroy-on-first-byte': {
      const outcome = await Promise.race([firstByteSeen.then(() => 'first' as const), answer.then(() => 'first' as const), deadline])
      return finish(outcome === 'timeout')
    }
    case 'half-close': {
      socket.end()
      const outcome = await Promise.race([answer.then(() => 'done' as const), sleep(Math.min(300, exchange.timeoutMs)).then(() => 'quiet' as const)])
      return finish(outcome === 'quiet' ? false : false)
    }
    case 'answer': {
      const outcome = await Promise.race([answer.then(() => 'done' as const), deadline])
      return finish(outcome === 'timeout')
    }
  }
}

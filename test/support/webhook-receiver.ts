/**
 * @module Test support: a real webhook receiver (node:http on 127.0.0.1, port 0) that records every request,
 * answers with a status the test chooses, and verifies Standard Webhooks signatures with its own
 * node:crypto code: nothing of src/ is used, so a wrong signer cannot agree with itself.
 */

import { createHmac, timingSafeEqual } from 'node:crypto'
import http from 'node:http'

export interface Received {
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
  readonly json: any
  readonly receivedAtMs: number
  /** The status this receiver answered. */
  readonly status: number
}

export interface Receiver {
  readonly url: string
  readonly received: Received[]
  /** What to answer the nth request (0-based); default 200. */
  respond: (request: { body: string; headers: http.IncomingHttpHeaders }, index: number) => number
  /** Milliseconds to wait before answering (a slow endpoint). */
  delayMs: number
  /** Resolves once `count` requests matching `filter` have arrived; rejects after timeoutMs. */
  waitFor(count: number, timeoutMs: number, filter?: (request: Received) => boolean): Promise<Received[]>
  close(): Promise<void>
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const received: Received[] = []
  const sockets = new Set<import('node:net').Socket>()
  const receiver: Receiver = {
    url: '',
    received,
    respond: () => 200,
    delayMs: 0,
    waitFor: async (count, timeoutMs, filter = () => true) => {
      const deadlineMs = Date.now() + timeoutMs
      for (;;) {
        const matching = received.filter(filter)
        if (matching.length >= count) return matching
        if (Date.now() > deadlineMs) throw new Error(`waited ${timeoutMs} ms for ${count} webhook requests, got ${matching.length}: ${matching.map((request) => request.json?.type).join(', ')}`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    },
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    }),
  }
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const status = request.url === path && request.method === 'POST' ? receiver.respond({ body, headers: request.headers }, received.length) : 404
      let json: unknown = null
      try { json = JSON.parse(body) } catch { json = null }
      const answer = () => {
        received.push({ headers: request.headers, body, json, receivedAtMs: Date.now(), status })
        response.writeHead(status, { 'content-type': 'text/plain' }).end('ok')
      }
      if (receiver.delayMs > 0) setTimeout(answer, receiver.delayMs)
      else answer()
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')
  ;(receiver as { url: string }).url = `http://127.0.0.1:${address.port}${path}`
  return receiver
}

/**
 * Standard Webhooks verification, written from the convention and not from src/: the key is the base64
 * after `whsec_`; the signed content is `<webhook-id>.<webhook-timestamp>.<body>`; the header holds one or
 * more space-separated `v1,<base64>` signatures, any of which may match (constant-time compare).
 */
export function verifySignature(secret: string, request: Received): boolean {
  const id = request.headers['webhook-id']
  const timestamp = request.headers['webhook-timestamp']
  const header = request.headers['webhook-signature']
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof header !== 'string') return false
  if (!secret.startsWith('whsec_')) return false
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${timestamp}.${request.body}`).digest()
  return header.split(' ').some((part) => {
    const [version, signature] = part.split(',')
    if (version !== 'v1' || signature === undefined) return false
    const given = Buffer.from(signature, 'base64')
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
}

/** @module Test support: a raw WebSocket to /v2/stream that keeps every message, waits for one by predicate, and reports the close. */

// Node 20 has no global WebSocket; the `ws` package is in node_modules (through tap). Node 22's global lacks headers.
import { WebSocket } from 'ws'

export interface RawSocket {
  readonly socket: WebSocket
  readonly messages: any[]
  /** The next message (after those already taken) matching the predicate; rejects after timeoutMs. */
  next(predicate?: (message: any) => boolean, timeoutMs?: number): Promise<any>
  send(message: unknown): void
  readonly closed: Promise<{ code: number; reason: string }>
}

export function streamUrl(baseUrl: string): string {
  return `${baseUrl.replace(/^http/, 'ws')}/v2/stream`
}

/** Opens a socket; with a key, authenticated by the upgrade's Authorization header. Rejects on a refused upgrade (with its status). */
export function openSocket(baseUrl: string, key?: string): Promise<RawSocket> {
  const socket = new WebSocket(streamUrl(baseUrl), { headers: key === undefined ? {} : { authorization: `Bearer ${key}` }, maxPayload: 64 * 1024 * 1024 })
  const messages: any[] = []
  const waiters: { predicate: (message: any) => boolean; resolve: (message: any) => void }[] = []
  let taken = 0
  socket.on('message', (data) => {
    const message = JSON.parse(String(data))
    messages.push(message)
    for (const waiter of [...waiters]) {
      if (!waiter.predicate(message)) continue
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve(message)
      return
    }
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })))
  const raw: RawSocket = {
    socket, messages, closed,
    next: (predicate = () => true, timeoutMs = 5000) => {
      for (let index = taken; index < messages.length; index++) {
        if (predicate(messages[index])) {
          taken = index + 1
          return Promise.resolve(messages[index])
        }
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(messages).slice(-500)}`)), timeoutMs)
        waiters.push({ predicate, resolve: (message) => { clearTimeout(timer); taken = messages.length; resolve(message) } })
      })
    },
    send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
  }
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(raw))
    socket.once('unexpected-response', (_request, response) => reject(Object.assign(new Error(`upgrade refused: ${response.statusCode}`), { status: response.statusCode })))
    socket.once('error', reject)
  })
}

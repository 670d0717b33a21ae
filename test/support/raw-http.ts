/**
 * @module Test support: one HTTP/1.1 request written byte for byte on a socket, for header bytes that
 * fetch refuses to send (DEL, bytes above 0x7f sent as they are).
 */

import net from 'node:net'

export interface RawReply {
  readonly status: number
  /** Header names in lower case. */
  readonly headers: ReadonlyMap<string, string>
  readonly text: string
  readonly body: any
}

/** Sends the request with `Connection: close` and reads the answer; fails after timeoutMs. */
export function rawRequest(baseUrl: string, method: string, route: string, headers: readonly (readonly [string, string | Buffer])[], body = '', timeoutMs = 5_000): Promise<RawReply> {
  const { hostname, port } = new URL(baseUrl)
  const bodyBytes = Buffer.from(body, 'utf8')
  const head: Buffer[] = [Buffer.from(`${method} ${route} HTTP/1.1\r\nhost: ${hostname}:${port}\r\nconnection: close\r\ncontent-length: ${bodyBytes.length}\r\n`, 'latin1')]
  for (const [name, value] of headers) head.push(Buffer.from(`${name}: `, 'latin1'), Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1'), Buffer.from('\r\n', 'latin1'))
  head.push(Buffer.from('\r\n', 'latin1'), bodyBytes)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(Buffer.concat(head)))
    const chunks: Buffer[] = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no complete answer within ${timeoutMs} ms: ${Buffer.concat(chunks).toString('latin1').slice(0, 500)}`))
    }, timeoutMs)
    const finish = (reply: RawReply | Error) => {
      clearTimeout(timer)
      socket.destroy()
      if (reply instanceof Error) reject(reply)
      else resolve(reply)
    }
    const tryParse = (ended: boolean) => {
      const received = Buffer.concat(chunks)
      const headEnd = received.indexOf('\r\n\r\n')
      if (headEnd < 0) {
        if (ended) finish(new Error(`connection closed without an HTTP answer: ${JSON.stringify(received.toString('latin1'))}`))
        return
      }
      const [statusLine, ...lines] = received.subarray(0, headEnd).toString('latin1').split('\r\n')
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1])
      const replyHeaders = new Map<string, string>()
      for (const line of lines) {
        const colon = line.indexOf(':')
        if (colon > 0) replyHeaders.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
      }
      const length = Number(replyHeaders.get('content-length') ?? NaN)
      const rest = received.subarray(headEnd + 4)
      if (Number.isInteger(length) ? rest.length < length : !ended) return
      const text = (Number.isInteger(length) ? rest.subarray(0, length) : rest).toString('utf8')
      let parsed: unknown = null
      try { parsed = text === '' ? null : JSON.parse(text) } catch { parsed = text }
      finish({ status, headers: replyHeaders, text, body: parsed })
    }
    socket.on('data', (chunk) => {
      chunks.push(chunk)
      tryParse(false)
    })
    socket.on('end', () => tryParse(true))
    socket.on('error', (error) => finish(error))
  })
}

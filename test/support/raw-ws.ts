/**
 * @module Test support: a WebSocket spoken byte for byte on a TCP socket: the upgrade, then frames (or parts of
 * frames) as the test writes them, counting the bytes the server let in before it closed the connection.
 */

import crypto from 'node:crypto'
import net from 'node:net'

export interface RawWs {
  readonly socket: net.Socket
  /** Bytes written after the upgrade that the kernel took (a write the closed connection refused is not counted). */
  readonly written: () => number
  /** Resolves when the server closed the connection (or reset it), with the close frame's code if one came. */
  readonly closed: Promise<{ code: number | null; atMs: number }>
  /** Text of every complete text frame received after the upgrade. */
  readonly texts: string[]
  write(bytes: Buffer): Promise<boolean>
}

/** A masked client frame header: opcode 1 (text) or 0 (continuation), FIN as given, the announced payload length. */
export function frameHeader(payloadBytes: number, options: { fin?: boolean; opcode?: number } = {}): Buffer {
  const first = ((options.fin ?? true) ? 0x80 : 0) | (options.opcode ?? 1)
  const mask = Buffer.alloc(4)
  if (payloadBytes < 126) return Buffer.concat([Buffer.from([first, 0x80 | payloadBytes]), mask])
  if (payloadBytes < 65536) {
    const head = Buffer.from([first, 0x80 | 126, 0, 0])
    head.writeUInt16BE(payloadBytes, 2)
    return Buffer.concat([head, mask])
  }
  const head = Buffer.alloc(10)
  head[0] = first
  head[1] = 0x80 | 127
  head.writeBigUInt64BE(BigInt(payloadBytes), 2)
  return Buffer.concat([head, mask])
}

/** A whole masked text frame (the mask is zeros: the payload goes as it is). */
export function textFrame(text: string | Buffer, options: { fin?: boolean; opcode?: number } = {}): Buffer {
  const payload = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8')
  return Buffer.concat([frameHeader(payload.length, options), payload])
}

/** Upgrades GET /v2/stream without an Authorization header (unless given); rejects when the answer is not 101. */
export function openRawWs(baseUrl: string, authorization?: string, timeoutMs = 5_000): Promise<RawWs> {
  const { hostname, port } = new URL(baseUrl)
  const secKey = crypto.randomBytes(16).toString('base64')
  const head = `GET /v2/stream HTTP/1.1\r\nhost: ${hostname}:${port}\r\nupgrade: websocket\r\nconnection: Upgrade\r\n` +
    `sec-websocket-key: ${secKey}\r\nsec-websocket-version: 13\r\n${authorization === undefined ? '' : `authorization: ${authorization}\r\n`}\r\n`
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(head))
    let received = Buffer.alloc(0)
    let upgraded = false
    let writtenBytes = 0
    let closeCode: number | null = null
    const texts: string[] = []
    const closed = new Promise<{ code: number | null; atMs: number }>((done) => {
      socket.on('close', () => done({ code: closeCode, atMs: Date.now() }))
    })
    socket.on('error', () => {})
    const timer = setTimeout(() => { socket.destroy(); reject(new Error('no upgrade answer in time')) }, timeoutMs)
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk])
      if (!upgraded) {
        const end = received.indexOf('\r\n\r\n')
        if (end < 0) return
        const statusLine = received.subarray(0, received.indexOf('\r\n')).toString('latin1')
        clearTimeout(timer)
        if (!/^HTTP\/1\.1 101/.test(statusLine)) {
          socket.destroy()
          return reject(new Error(`upgrade refused: ${statusLine}`))
        }
        upgraded = true
        received = received.subarray(end + 4)
        resolve({
          socket, closed, texts, written: () => writtenBytes,
          write: (bytes) => new Promise((done) => {
            if (socket.destroyed) return done(false)
            socket.write(bytes, (error) => {
              if (error === undefined || error === null) writtenBytes += bytes.length
              done(error === undefined || error === null)
            })
          }),
        })
      }
      // Server frames are unmasked; only short ones matter here (errors, close).
      while (received.length >= 2) {
        const opcode = received[0] & 0x0f
        let length = received[1] & 0x7f
        let offset = 2
        if (length === 126) {
          if (received.length < 4) return
          length = received.readUInt16BE(2)
          offset = 4
        } else if (length === 127) {
          if (received.length < 10) return
          length = Number(received.readBigUInt64BE(2))
          offset = 10
        }
        if (received.length < offset + length) return
        const payload = received.subarray(offset, offset + length)
        if (opcode === 1) texts.push(payload.toString('utf8'))
        if (opcode === 8 && payload.length >= 2) closeCode = payload.readUInt16BE(0)
        received = received.subarray(offset + length)
      }
    })
  })
}

/** Writes chunk after chunk (each taken by the kernel before the next) until the connection closes or totalBytes are written. */
export async function writeUntilClosed(raw: RawWs, chunkBytes: number, totalBytes: number, pauseMs = 1): Promise<number> {
  let isClosed = false
  void raw.closed.then(() => { isClosed = true })
  const chunk = Buffer.alloc(chunkBytes, 0x61)
  for (let sent = 0; sent < totalBytes && !isClosed; sent += chunkBytes) {
    if (!(await raw.write(chunk))) break
    await new Promise((resolve) => setTimeout(resolve, pauseMs))
  }
  return raw.written()
}

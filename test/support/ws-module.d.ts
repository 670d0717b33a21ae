/** The part of the `ws` package (in node_modules through tap; no @types/ws installed) that the stream tests use. */
declare module 'ws' {
  import type { IncomingMessage } from 'node:http'
  export class WebSocket {
    constructor(url: string, options?: { headers?: Record<string, string>; maxPayload?: number; skipUTF8Validation?: boolean; perMessageDeflate?: boolean })
    readonly readyState: number
    readonly bufferedAmount: number
    send(data: string | Buffer): void
    close(code?: number, reason?: string): void
    terminate(): void
    pause(): void
    resume(): void
    on(event: 'message', listener: (data: Buffer) => void): this
    on(event: 'close', listener: (code: number, reason: Buffer) => void): this
    once(event: 'open', listener: () => void): this
    once(event: 'error', listener: (error: Error) => void): this
    once(event: 'unexpected-response', listener: (request: unknown, response: IncomingMessage) => void): this
    onopen: ((event: unknown) => void) | null
    onmessage: ((event: { data: unknown }) => void) | null
    onclose: ((event: { code: number; reason: string }) => void) | null
    onerror: ((event: unknown) => void) | null
  }
}

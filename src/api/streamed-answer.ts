/**
 * @module An answer whose body leaves in chunks (the exports): the route's query answers a
 * StreamedAnswer instead of a JSON value, and the transport pulls one chunk at a time, the next only
 * once the client has taken the last (backpressure), so no export is ever whole in memory. Each chunk is
 * computed by the actor as a read and leaves, like every read, once the log is durable up to it.
 */

import type { Submitted } from '../actor/completion.js'
import type { Headers } from './lifecycle.js'

export type Chunk = string | Buffer

export interface ChunkSource {
  /** The next chunk as a completion whose accepted body is a Chunk; null once everything was given. */
  next(): Submitted | null
  /** The client went away or the stream failed: let go of what the source holds. */
  close(): void
}

export class StreamedAnswer {
  readonly contentType: string
  /** Beside the content type: Content-Disposition and the like. */
  readonly headers: Headers
  readonly source: ChunkSource

  constructor(contentType: string, headers: Headers, source: ChunkSource) {
    this.contentType = contentType
    this.headers = headers
    this.source = source
  }
}

/** Pulls the next chunk: delivered once durable; null at the end; an error when the log failed or a page was refused. */
export type Pull = (deliver: (chunk: Chunk | null, error: Error | null) => void) => void

export function pullFrom(source: ChunkSource, onLogFailure: (error: Error) => void): Pull {
  return (deliver) => {
    const completion = source.next()
    if (completion === null) return deliver(null, null)
    completion.whenDurable((error) => {
      if (error !== null) {
        deliver(null, error)
        return onLogFailure(error)
      }
      const { outcome } = completion
      if (!outcome.ok) return deliver(null, new Error(`an export page was refused: ${outcome.code} ${outcome.message}`))
      deliver(outcome.body as Chunk, null)
    })
  }
}

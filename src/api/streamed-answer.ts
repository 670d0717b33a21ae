/**
 * @module An answer whose body leaves in chunks (the exports): the route builds a StreamedAnswer instead of
 * a JSON value, and the transport pulls one chunk at a time, the next only once the client has taken the
 * last (backpressure), so no export is ever whole in memory. Each chunk is a page read from the workspace's
 * shard and, like every answer, leaves once the log is durable up to what it rests on.
 */

import type { Headers } from '../shard/operation.js'

export type Chunk = string | Buffer

export interface ChunkSource {
  /** The next chunk; null once everything was given; rejects when a page was refused or the log failed. */
  next(): Promise<Chunk | null>
  /** The client went away or the stream failed: let go of what the source holds. */
  close(): void
}

export class StreamedAnswer {
  readonly status: number
  readonly contentType: string
  /** Beside the content type: Content-Disposition and the like. */
  readonly headers: Headers
  readonly source: ChunkSource

  constructor(status: number, contentType: string, headers: Headers, source: ChunkSource) {
    this.status = status
    this.contentType = contentType
    this.headers = headers
    this.source = source
  }
}

/** Pulls the next chunk: null at the end; an error when a page was refused or the log failed. */
export type Pull = (deliver: (chunk: Chunk | null, error: Error | null) => void) => void

export function pullFrom(source: ChunkSource): Pull {
  return (deliver) => {
    source.next().then((chunk) => deliver(chunk, null), (error: unknown) => deliver(null, error instanceof Error ? error : new Error(String(error))))
  }
}

/**
 * @module The audit pack of a window (docs/API.md, Exports) written by a format's writer from pages pulled
 * off the workspace's shard, one `pack` operation each (ledger/pack-pages.ts says what a page holds): the
 * writer lives where the answer is written, the shard only reads.
 */

import type { ChunkSource, Chunk } from '../api/streamed-answer.js'
import type { PackHead, PackLine, PackPage, PackPosition, SectionName } from '../ledger/pack-pages.js'
import type { Visibility } from '../ledger/visibility.js'
import type { Reply, Shard } from '../shard/operation.js'

export type { PackAccount, PackHead, PackLine, SectionName } from '../ledger/pack-pages.js'

/** Items per page: one read each; small enough that a page never holds up other requests long. */
export const packPageItemsMax = 2_000

/** What a format does with the pack; `take` gives what was written since the last take. */
export interface PackWriter {
  /** Items per page, when the format is slower than packPageItemsMax allows for. */
  readonly itemsPerPage?: number
  begin(head: PackHead): void
  section(name: SectionName): void
  line(item: PackLine): void
  match(item: Record<string, unknown>): void
  historyEvent(item: Record<string, unknown>): void
  end(): void
  take(): Chunk
  /** The client went away: drop what is held. */
  close(): void
}

/** Where a pack's pages come from: its window, as the exporting key sees it, at the export's time. */
export interface PackRequest {
  readonly shard: Shard
  readonly workspace: string
  readonly window: string
  /** The exporting key's: a match lists only the entries it can read. */
  readonly visibility: Visibility
  readonly atMs: number
}

/** The first page: its reply (an error answers the request: an unknown window is 404) and, when 200, the page. */
export async function firstPackPage(request: PackRequest, writer: PackWriter): Promise<{ readonly reply: Reply; readonly page: PackPage | null }> {
  const reply = await packPage(request, null, writer)
  return { reply, page: reply.status === 200 ? JSON.parse(reply.body) as PackPage : null }
}

function packPage(request: PackRequest, position: PackPosition | null, writer: PackWriter): Promise<Reply> {
  const { shard, workspace, window, visibility, atMs } = request
  return shard.send({ op: 'pack', workspace, visibility, window, position, itemsMax: writer.itemsPerPage ?? packPageItemsMax, atMs })
}

/** Writes the pages it pulls, one chunk per page; the first page was read with the request's checks. */
export class PackSource implements ChunkSource {
  readonly #request: PackRequest
  readonly #writer: PackWriter
  #first: PackPage | null
  #next: PackPosition | null = null
  #done = false

  constructor(request: PackRequest, writer: PackWriter, first: PackPage) {
    this.#request = request
    this.#writer = writer
    this.#first = first
  }

  async next(): Promise<Chunk | null> {
    const first = this.#first
    if (first !== null) {
      this.#first = null
      return this.#write(first)
    }
    if (this.#done) return null
    const reply = await packPage(this.#request, this.#next, this.#writer)
    if (reply.status !== 200) throw new Error(`an export page was refused: ${reply.status} ${reply.body}`)
    return this.#write(JSON.parse(reply.body) as PackPage)
  }

  close(): void {
    this.#done = true
    this.#writer.close()
  }

  #write(page: PackPage): Chunk {
    const writer = this.#writer
    if (page.head !== null) writer.begin(page.head)
    for (const item of page.items) {
      if ('section' in item) writer.section(item.section)
      else if ('line' in item) writer.line(item.line)
      else if ('match' in item) writer.match(item.match)
      else writer.historyEvent(item.history)
    }
    this.#next = page.next
    if (page.next === null) {
      writer.end()
      this.#done = true
    }
    return writer.take()
  }
}

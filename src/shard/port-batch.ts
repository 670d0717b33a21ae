/**
 * @module Messages to another thread sent in batches: what one turn of the event loop posts leaves as one
 * postMessage when the turn ends (setImmediate, after the loop's I/O poll: every request read in that poll
 * joins the batch). Each postMessage costs a system call to wake the other thread and, there, one message
 * event; one per operation and one per reply cost more than the operation itself (docs/PERFORMANCE.md,
 * "The cross-thread hop").
 */

export interface BatchTarget {
  postMessage(message: unknown): void
}

export class PortBatch<Message> {
  readonly #target: BatchTarget
  #batch: Message[] = []
  #flushing: NodeJS.Immediate | null = null
  /** postMessage calls made and messages they carried (the hop's metrics). */
  posts = 0
  messages = 0

  constructor(target: BatchTarget) {
    this.#target = target
  }

  post(message: Message): void {
    this.#batch.push(message)
    this.#flushing ??= setImmediate(() => this.flush())
  }

  /** Posts what is waiting now (a close, whose thread may stop before the turn ends). */
  flush(): void {
    if (this.#flushing !== null) clearImmediate(this.#flushing)
    this.#flushing = null
    const batch = this.#batch
    if (batch.length === 0) return
    this.#batch = []
    this.posts++
    this.messages += batch.length
    this.#target.postMessage(batch)
  }
}

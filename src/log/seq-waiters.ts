/** @module The replies waiting for their record to be durable, by seq: a ring of slots rather than a Map. */

export type DurableCallback = (error: Error | null) => void

/**
 * Callbacks by seq, for seqs that are never more than `capacity` apart (the log's pending bound plus one
 * group commit: the batch being released and everything appended meanwhile). Each seq has a slot of its
 * own (seq modulo capacity), emptied when it is taken.
 *
 * Why not a Map keyed by seq: a Map used as a queue is rehashed every few thousand seqs, and V8 keeps
 * each obsolete table whole, entries and a link to its successor. Once one of those tables is promoted,
 * the chain behind it (every waiting reply's closure, and through it the request, its body and its
 * answer) survives each young-generation collection and is promoted in turn, for the full collection to
 * free much later. Under load that was ~1.7 KB promoted per durable write, and scavenges of 4–20 ms.
 */
export class SeqWaiters {
  readonly #slots: (DurableCallback | DurableCallback[] | undefined)[]
  #size = 0

  constructor(capacity: number) {
    this.#slots = new Array<DurableCallback | DurableCallback[] | undefined>(capacity).fill(undefined)
  }

  /** How many seqs have a callback waiting. */
  get size(): number {
    return this.#size
  }

  /** Adds a callback for seq, after those already waiting for it. */
  add(seq: number, callback: DurableCallback): void {
    const index = seq % this.#slots.length
    const waiting = this.#slots[index]
    if (waiting === undefined) {
      this.#slots[index] = callback
      this.#size++
    } else if (typeof waiting === 'function') this.#slots[index] = [waiting, callback]
    else waiting.push(callback)
  }

  /** The callbacks waiting for seq, in the order they were added, and empties the slot. */
  take(seq: number): DurableCallback | DurableCallback[] | undefined {
    const index = seq % this.#slots.length
    const waiting = this.#slots[index]
    if (waiting === undefined) return undefined
    this.#slots[index] = undefined
    this.#size--
    return waiting
  }
}

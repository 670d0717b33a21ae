/** @module Retention by bytes (LOG_RETENTION_BYTES): where the newest records that hold that many bytes begin, kept up to date as the log grows. */

import { setImmediate as nextTurn } from 'node:timers/promises'
import type { CommandLog } from '../log/command-log.js'

/** Record sizes read per turn of the event loop at most: a round never holds the loop for long. */
const sizesPerTurnMax = 8_192

/**
 * A window over the log's newest records, from `#fromSeq` to `#toSeq`, with their bytes summed. Each round
 * adds the records made durable since and drops the oldest while the rest still hold `bytesKept`, so each
 * record's size is read twice in all (once coming in, once going out), never the whole log per round.
 */
export class RetainedBytes {
  readonly #bytesKept: number
  #fromSeq = 0
  #toSeq = 0
  #bytes = 0

  constructor(bytesKept: number) {
    this.#bytesKept = bytesKept
  }

  /**
   * The first seq to keep: the newest records whose sizes add up to at least bytesKept (all of them while
   * the log holds less), and the last durable record whatever the setting says.
   */
  async keepFromSeq(log: CommandLog, durableSeq: number): Promise<number> {
    // Retention deletes only below what this returned (or below less), so a window behind firstSeq is a new start.
    if (this.#fromSeq < log.firstSeq) {
      this.#fromSeq = log.firstSeq
      this.#toSeq = log.firstSeq - 1
      this.#bytes = 0
    }
    while (this.#toSeq < durableSeq) {
      const before = this.#toSeq
      for (const { seq, bytes } of log.recordSizes(this.#toSeq + 1, durableSeq, sizesPerTurnMax)) {
        this.#bytes += bytes
        this.#toSeq = seq
      }
      // Durable records are on disk; none read means a gap, which start-up reports: keep everything meanwhile.
      if (this.#toSeq === before) return log.firstSeq
      await nextTurn()
    }
    await this.#dropOldest(log)
    return Math.min(this.#fromSeq, durableSeq)
  }

  async #dropOldest(log: CommandLog): Promise<void> {
    for (;;) {
      let dropped = 0
      for (const { seq, bytes } of log.recordSizes(this.#fromSeq, this.#toSeq - 1, sizesPerTurnMax)) {
        if (this.#bytes - bytes < this.#bytesKept) return
        this.#bytes -= bytes
        this.#fromSeq = seq + 1
        dropped++
      }
      if (dropped === 0) return
      await nextTurn()
    }
  }
}

/**
 * @module The rate budgets of every workspace in memory every thread shares (a SharedArrayBuffer), so that with
 * HTTP on several threads a workspace's limit holds exactly whichever thread each request lands on: a workspace
 * owns one slot (its read and write buckets' numbers, a lock, whether it was filled yet), given by whoever
 * assigns slots (the registry, shard/rate-slots.ts) through `slotOf`. Each read-and-update of a bucket runs under
 * the slot's lock. The slots are in pages of one size, a page added (by the main thread, to every thread) when the
 * registry's workspaces outgrow them.
 */

import assert from 'node:assert/strict'
import type { WorkspaceRecord } from '../ledger/system.js'
import type { WorkspaceBuckets } from './rate-buckets.js'
import { fill, TokenBucket, type BucketCell, type BucketLock } from './rate-limit.js'

/** Per slot: perMinute, units and lastMs of the read bucket, then of the write bucket. */
const numbersPerSlot = 6
/** Per slot: the lock (0 free, 1 held), then whether the buckets were filled (0 or 1). */
const flagsPerSlot = 2
/** Tries of the lock before the thread sleeps on it (the section it guards is a few arithmetic steps). */
const spinsMax = 64

/** A spin-then-wait lock on one Int32 of shared memory (also the send buffers' counts: shared-send-buffers.ts). */
export class SlotLock implements BucketLock {
  readonly #flags: Int32Array
  readonly #at: number

  constructor(flags: Int32Array, at: number) {
    this.#flags = flags
    this.#at = at
  }

  acquire(): void {
    for (let spins = 0; Atomics.compareExchange(this.#flags, this.#at, 0, 1) !== 0; spins++) {
      if (spins >= spinsMax) Atomics.wait(this.#flags, this.#at, 1, 1)
    }
  }

  release(): void {
    Atomics.store(this.#flags, this.#at, 0)
    Atomics.notify(this.#flags, this.#at, 1)
  }
}

/** One bucket's three numbers in the shared Float64Array (every value a safe integer: exact in a double). */
class SharedCell implements BucketCell {
  readonly #numbers: Float64Array
  readonly #at: number

  constructor(numbers: Float64Array, at: number) {
    this.#numbers = numbers
    this.#at = at
  }

  get perMinute(): number { return this.#numbers[this.#at] }
  set perMinute(value: number) { this.#numbers[this.#at] = value }
  get units(): number { return this.#numbers[this.#at + 1] }
  set units(value: number) { this.#numbers[this.#at + 1] = value }
  get lastMs(): number { return this.#numbers[this.#at + 2] }
  set lastMs(value: number) { this.#numbers[this.#at + 2] = value }
}

/** One buffer's slots: their numbers, then their flags. */
interface Page {
  readonly numbers: Float64Array
  readonly flags: Int32Array
}

const slotBytes = numbersPerSlot * Float64Array.BYTES_PER_ELEMENT + flagsPerSlot * Int32Array.BYTES_PER_ELEMENT

export class SharedRateBuckets {
  /**
   * The buffers, each of the same number of slots: slot s is in page floor(s / slotsPerPage). More are added as
   * workspaces are created (addPage), so the number of workspaces is not bounded by the first buffer.
   */
  readonly #pages: Page[] = []
  #slotsPerPage = 0
  readonly #slotOf: (workspace: string) => number
  readonly #views = new Map<string, WorkspaceBuckets>()

  /** Memory for `slotsMax` workspaces, to hand to every thread (postMessage shares it, it is not copied). */
  static allocate(slotsMax: number): SharedArrayBuffer {
    return new SharedArrayBuffer(slotsMax * slotBytes)
  }

  constructor(pages: SharedArrayBuffer | readonly SharedArrayBuffer[], slotOf: (workspace: string) => number) {
    this.#slotOf = slotOf
    for (const page of pages instanceof SharedArrayBuffer ? [pages] : pages) this.addPage(page)
  }

  /** The next page of slots (made by allocate, as large as the first). */
  addPage(buffer: SharedArrayBuffer): void {
    const slotsMax = buffer.byteLength / slotBytes
    assert.ok(Number.isSafeInteger(slotsMax) && slotsMax >= 1, 'a page of rate slots holds whole slots')
    assert.ok(this.#pages.length === 0 || slotsMax === this.#slotsPerPage, 'every page of rate slots is as large as the first')
    this.#slotsPerPage = slotsMax
    this.#pages.push({
      numbers: new Float64Array(buffer, 0, slotsMax * numbersPerSlot),
      flags: new Int32Array(buffer, slotsMax * numbersPerSlot * Float64Array.BYTES_PER_ELEMENT, slotsMax * flagsPerSlot),
    })
  }

  /** As RateBuckets.of: created full on first use (on whichever thread), a changed limit applied as of its change. */
  of(workspace: WorkspaceRecord, nowMs: number): WorkspaceBuckets {
    let buckets = this.#views.get(workspace.id)
    if (buckets === undefined) {
      buckets = this.#open(workspace, nowMs)
      this.#views.set(workspace.id, buckets)
    }
    const changedAtMs = Math.min(workspace.limitsChangedAtMs, nowMs)
    // setRate is the same on every thread that sees the change (its time is the change's): applied twice, it changes nothing more.
    if (buckets.reads.limitPerMinute !== workspace.limits.reads_per_minute) buckets.reads.setRate(workspace.limits.reads_per_minute, changedAtMs)
    if (buckets.writes.limitPerMinute !== workspace.limits.writes_per_minute) buckets.writes.setRate(workspace.limits.writes_per_minute, changedAtMs)
    return buckets
  }

  #open(workspace: WorkspaceRecord, nowMs: number): WorkspaceBuckets {
    const slot = this.#slotOf(workspace.id)
    const page = this.#pages[Math.floor(slot / this.#slotsPerPage)]
    assert.ok(Number.isSafeInteger(slot) && slot >= 0 && page !== undefined, `no rate slot ${slot} for ${workspace.id}`)
    const at = slot % this.#slotsPerPage
    const lock = new SlotLock(page.flags, at * flagsPerSlot)
    const reads = new SharedCell(page.numbers, at * numbersPerSlot)
    const writes = new SharedCell(page.numbers, at * numbersPerSlot + 3)
    lock.acquire()
    try {
      // The first thread to use the slot fills it; the others find it filled.
      if (Atomics.load(page.flags, at * flagsPerSlot + 1) === 0) {
        fill(reads, workspace.limits.reads_per_minute, nowMs)
        fill(writes, workspace.limits.writes_per_minute, nowMs)
        Atomics.store(page.flags, at * flagsPerSlot + 1, 1)
      }
    } finally {
      lock.release()
    }
    return { reads: new TokenBucket(0, 0, { cell: reads, lock }), writes: new TokenBucket(0, 0, { cell: writes, lock }) }
  }
}

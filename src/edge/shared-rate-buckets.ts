/**
 * @module The rate budgets of every workspace in memory every thread shares (a SharedArrayBuffer), so that with
 * HTTP on several threads a workspace's limit holds exactly whichever thread each request lands on: a workspace
 * owns one slot (its read and write buckets' numbers, a lock, whether it was filled yet), given by whoever
 * assigns slots (the registry) through `slotOf`. Each read-and-update of a bucket runs under the slot's lock.
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

/** A spin-then-wait lock on one Int32 of shared memory. */
class SlotLock implements BucketLock {
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

export class SharedRateBuckets {
  readonly buffer: SharedArrayBuffer
  readonly #numbers: Float64Array
  readonly #flags: Int32Array
  readonly #slotOf: (workspace: string) => number
  readonly #views = new Map<string, WorkspaceBuckets>()

  /** Memory for `slotsMax` workspaces, to hand to every thread (postMessage shares it, it is not copied). */
  static allocate(slotsMax: number): SharedArrayBuffer {
    return new SharedArrayBuffer(slotsMax * (numbersPerSlot * Float64Array.BYTES_PER_ELEMENT + flagsPerSlot * Int32Array.BYTES_PER_ELEMENT))
  }

  constructor(buffer: SharedArrayBuffer, slotOf: (workspace: string) => number) {
    const slotsMax = buffer.byteLength / (numbersPerSlot * Float64Array.BYTES_PER_ELEMENT + flagsPerSlot * Int32Array.BYTES_PER_ELEMENT)
    this.buffer = buffer
    this.#numbers = new Float64Array(buffer, 0, slotsMax * numbersPerSlot)
    this.#flags = new Int32Array(buffer, slotsMax * numbersPerSlot * Float64Array.BYTES_PER_ELEMENT, slotsMax * flagsPerSlot)
    this.#slotOf = slotOf
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
    assert.ok(Number.isSafeInteger(slot) && slot >= 0 && slot * flagsPerSlot < this.#flags.length, `no rate slot ${slot} for ${workspace.id}`)
    const lock = new SlotLock(this.#flags, slot * flagsPerSlot)
    const reads = new SharedCell(this.#numbers, slot * numbersPerSlot)
    const writes = new SharedCell(this.#numbers, slot * numbersPerSlot + 3)
    lock.acquire()
    try {
      // The first thread to use the slot fills it; the others find it filled.
      if (Atomics.load(this.#flags, slot * flagsPerSlot + 1) === 0) {
        fill(reads, workspace.limits.reads_per_minute, nowMs)
        fill(writes, workspace.limits.writes_per_minute, nowMs)
        Atomics.store(this.#flags, slot * flagsPerSlot + 1, 1)
      }
    } finally {
      lock.release()
    }
    return { reads: new TokenBucket(0, 0, { cell: reads, lock }), writes: new TokenBucket(0, 0, { cell: writes, lock }) }
  }
}

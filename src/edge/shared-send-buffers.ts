/**
 * @module The WebSocket send-buffer bounds (docs/API.md, "WebSocket API and live updates") over the whole process
 * when the shards' threads serve sockets (EDGE_THREADS=1): the unread bytes of one API key's sockets, and of
 * every socket, are counted in memory every thread shares (a SharedArrayBuffer), so neither bound is held once
 * per thread. The rule of send-buffers.ts holds over the threads: past a bound, the socket holding the most unread
 * bytes (of that key, or of the process) is closed, whichever thread serves it. Each thread publishes, per
 * count, the most a socket of its own holds; the thread that finds a count over its bound reads every own buffer
 * again, and closes its own slowest socket if no other thread's is larger, else rings that thread (through the
 * main thread), which does the same on its fresh buffers. A published figure is a high mark, made exact by its
 * thread when it is rung or sheds; after twice as many rings as threads, the rung thread closes its own slowest,
 * so each shedding ends.
 */

import assert from 'node:assert/strict'
import type { SendBufferCounts } from '../stream/send-buffers.js'
import type { StreamSession } from '../stream/session.js'
import { SlotLock } from './shared-rate-buckets.js'

/** Per slot, in doubles: the count (bytes, every value a safe integer), then each thread's largest socket. */
const numbersPerSlot = (threads: number) => 1 + threads
/** Per slot, in Int32s: the lock. */
const flagsPerSlot = 1

const slotBytes = (threads: number) => numbersPerSlot(threads) * Float64Array.BYTES_PER_ELEMENT + flagsPerSlot * Int32Array.BYTES_PER_ELEMENT

/** One count in shared memory: the total and each thread's largest socket, read and written under its lock. */
class SharedCount {
  readonly #numbers: Float64Array
  readonly #at: number
  readonly #lock: SlotLock
  readonly #threads: number

  constructor(page: SharedArrayBuffer, slot: number, threads: number) {
    const slotsMax = page.byteLength / slotBytes(threads)
    assert.ok(Number.isSafeInteger(slotsMax) && slot >= 0 && slot < slotsMax, `no send-buffer slot ${slot} in its page`)
    this.#numbers = new Float64Array(page, 0, slotsMax * numbersPerSlot(threads))
    this.#at = slot * numbersPerSlot(threads)
    this.#lock = new SlotLock(new Int32Array(page, slotsMax * numbersPerSlot(threads) * Float64Array.BYTES_PER_ELEMENT, slotsMax * flagsPerSlot), slot * flagsPerSlot)
    this.#threads = threads
  }

  /** The total moved by delta, and returned; this thread's largest raised to bytes (a high mark: lowered only by setLargest). */
  add(thread: number, delta: number, bytes: number): number {
    return this.#locked(() => {
      this.#numbers[this.#at] += delta
      if (bytes > this.#numbers[this.#at + 1 + thread]) this.#numbers[this.#at + 1 + thread] = bytes
      return this.#numbers[this.#at]
    })
  }

  setLargest(thread: number, bytes: number): void {
    this.#locked(() => { this.#numbers[this.#at + 1 + thread] = bytes })
  }

  get total(): number {
    return this.#locked(() => this.#numbers[this.#at])
  }

  /** The total, and the thread whose largest socket is the largest (`thread` itself on a tie). */
  read(thread: number): { readonly total: number; readonly holder: number } {
    return this.#locked(() => {
      let holder = thread
      for (let other = 0; other < this.#threads; other++) {
        if (this.#numbers[this.#at + 1 + other] > this.#numbers[this.#at + 1 + holder]) holder = other
      }
      return { total: this.#numbers[this.#at], holder }
    })
  }

  #locked<T>(body: () => T): T {
    this.#lock.acquire()
    try {
      return body()
    } finally {
      this.#lock.release()
    }
  }
}

/** A key's sockets on this thread, and its count. */
interface KeyGroup {
  readonly sessions: Set<StreamSession>
  readonly count: SharedCount
}

export interface SharedSendBuffersOptions {
  readonly keyBytesMax: number
  readonly processBytesMax: number
  /** This thread's number (0 … threads - 1), and how many threads serve sockets. */
  readonly thread: number
  readonly threads: number
  /** The process's count (allocateProcess), the same memory on every thread. */
  readonly process: SharedArrayBuffer
  /** The keys' counts: their pages (allocateKeys), more added with addKeyPage. */
  readonly keyPages: readonly SharedArrayBuffer[]
  /** A key's slot, as the registry assigned it (shard/rate-slots.ts); -1 for a key it did not. */
  readonly slotOfKey: (keyId: string) => number
  /** Asks another thread to shed over a bound: a key's (its id), or the process's (null); `hops` rings so far. */
  readonly ring: (thread: number, keyId: string | null, hops: number) => void
}

export class SharedSendBuffers implements SendBufferCounts {
  readonly keyBytesMax: number
  readonly processBytesMax: number
  closedCount = 0
  readonly #options: SharedSendBuffersOptions
  readonly #process: SharedCount
  readonly #keyPages: SharedArrayBuffer[]
  readonly #byKey = new Map<string, KeyGroup>()

  /** Memory for the process's count, to hand to every thread. */
  static allocateProcess(threads: number): SharedArrayBuffer {
    return new SharedArrayBuffer(slotBytes(threads))
  }

  /** A page of `slotsMax` keys' counts, to hand to every thread. */
  static allocateKeys(slotsMax: number, threads: number): SharedArrayBuffer {
    return new SharedArrayBuffer(slotsMax * slotBytes(threads))
  }

  constructor(options: SharedSendBuffersOptions) {
    assert.ok(options.thread >= 0 && options.thread < options.threads, 'a thread of the send buffers is one of the threads')
    this.keyBytesMax = options.keyBytesMax
    this.processBytesMax = options.processBytesMax
    this.#options = options
    this.#process = new SharedCount(options.process, 0, options.threads)
    this.#keyPages = [...options.keyPages]
  }

  /** The next page of keys' counts (as large as the first). */
  addKeyPage(page: SharedArrayBuffer): void {
    assert.ok(this.#keyPages.length === 0 || page.byteLength === this.#keyPages[0].byteLength, 'every page of send-buffer slots is as large as the first')
    this.#keyPages.push(page)
  }

  get totalBytes(): number {
    return this.#process.total
  }

  /**
   * The session wrote (or drained): its bytes counted again. Only a count that grew is checked against its bound:
   * one over it already was when it grew, by the thread that made it grow.
   */
  measured(session: StreamSession): void {
    const grown = this.#count(session)
    if (grown === null) return
    if (grown.keyBytes > this.keyBytesMax) this.#shedKey(session.caller!.key!.id, 0)
    if (grown.processBytes > this.processBytesMax) this.#shedProcess(0)
  }

  removed(session: StreamSession): void {
    const keyId = session.caller?.key?.id
    const group = keyId === undefined ? undefined : this.#byKey.get(keyId)
    if (group === undefined || !group.sessions.delete(session)) return
    group.count.add(this.#options.thread, -session.countedBytes, 0)
    this.#process.add(this.#options.thread, -session.countedBytes, 0)
    session.countedBytes = 0
    if (group.sessions.size === 0) this.#byKey.delete(keyId!)
  }

  /** Another thread found a count over its bound and this thread's socket the largest: shed here, on fresh buffers. */
  rung(keyId: string | null, hops: number): void {
    if (keyId === null) this.#shedProcess(hops)
    else this.#shedKey(keyId, hops)
  }

  /** Reads the socket's buffer and moves the counts by the difference; the counts when they grew, else null (or a socket not counted: closed, no key). */
  #count(session: StreamSession): { readonly keyBytes: number; readonly processBytes: number } | null {
    const keyId = session.caller?.key?.id
    if (session.closed || keyId === undefined) return null
    const group = this.#group(keyId)
    group.sessions.add(session)
    const bytes = session.socket.getBufferedAmount()
    const delta = bytes - session.countedBytes
    session.countedBytes = bytes
    if (delta === 0) return null
    const keyBytes = group.count.add(this.#options.thread, delta, bytes)
    const processBytes = this.#process.add(this.#options.thread, delta, bytes)
    return delta > 0 ? { keyBytes, processBytes } : null
  }

  #group(keyId: string): KeyGroup {
    let group = this.#byKey.get(keyId)
    if (group !== undefined) return group
    group = { sessions: new Set(), count: this.#countOf(keyId) }
    this.#byKey.set(keyId, group)
    return group
  }

  /** The key's count, in its page at its slot. */
  #countOf(keyId: string): SharedCount {
    const slot = this.#options.slotOfKey(keyId)
    const slotsPerPage = (this.#keyPages[0]?.byteLength ?? 0) / slotBytes(this.#options.threads)
    const page = slotsPerPage === 0 ? undefined : this.#keyPages[Math.floor(slot / slotsPerPage)]
    assert.ok(Number.isSafeInteger(slot) && slot >= 0 && page !== undefined, `no send-buffer slot ${slot} for key ${keyId}`)
    return new SharedCount(page, slot % slotsPerPage, this.#options.threads)
  }

  #shedKey(keyId: string, hops: number): void {
    const group = this.#byKey.get(keyId)
    // Rung for a key with no socket here (any more): this thread's figure becomes 0, and the largest holder is rung.
    this.#shed(group?.count ?? this.#countOf(keyId), group === undefined ? [] : [...group.sessions], this.keyBytesMax, keyId, hops)
  }

  #shedProcess(hops: number): void {
    const all: StreamSession[] = []
    for (const group of this.#byKey.values()) for (const session of group.sessions) all.push(session)
    this.#shed(this.#process, all, this.processBytesMax, null, hops)
  }

  /**
   * Every own buffer read again (a socket that drained is not taken for a slow one), this thread's largest made
   * exact; then, while the count is over its bound, this thread's slowest socket closed if none of another thread
   * is larger, else that thread rung. A thread rung makes its figure exact, so within `threads` rings every figure
   * has been; at most twice that many rings in a row (figures may move meanwhile): then this one closes its own.
   */
  #shed(count: SharedCount, sessions: StreamSession[], bytesMax: number, keyId: string | null, hops: number): void {
    const { thread, threads } = this.#options
    for (const session of sessions) this.#count(session)
    const candidates = sessions.filter((session) => !session.closed).sort((a, b) => b.countedBytes - a.countedBytes)
    count.setLargest(thread, candidates[0]?.countedBytes ?? 0)
    // Each turn closes one own socket or ends.
    for (let next = 0; next < candidates.length; next++) {
      const { total, holder } = count.read(thread)
      if (total <= bytesMax) return
      if (holder !== thread && hops < 2 * threads) return this.#options.ring(holder, keyId, hops + 1)
      const slowest = candidates[next]
      if (slowest.countedBytes === 0) return
      this.removed(slowest)
      this.closedCount++
      slowest.abort()
      count.setLargest(thread, candidates[next + 1]?.countedBytes ?? 0)
    }
    // No own socket left to close: another thread's may still be the largest.
    const { total, holder } = count.read(thread)
    if (total > bytesMax && holder !== thread && hops < 2 * threads) this.#options.ring(holder, keyId, hops + 1)
  }
}

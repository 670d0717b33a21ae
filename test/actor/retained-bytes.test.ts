/**
 * Retention by bytes (src/actor/retained-bytes.ts) over a stand-in log of known record sizes: where the newest
 * records holding LOG_RETENTION_BYTES begin, checked against a direct sum after every round as the log grows;
 * sizes read about twice per record over all rounds (never the whole log per round); a restart of the window
 * when retention by count moved the log's start past it; everything kept when sizes are missing; long rounds
 * yield to the event loop.
 */
import t from 'tap'
import { RetainedBytes } from '../../src/actor/retained-bytes.ts'
import type { CommandLog } from '../../src/log/command-log.ts'

/** The two members RetainedBytes reads, over sizes[seq - 1]; counts how often each seq's size is read. */
class SizedLog {
  // First in the class: after a field initialiser, a leading * would read as a multiplication.
  *recordSizes(seq: number, toSeq: number, countMax: number): Generator<{ seq: number; bytes: number }> {
    let count = 0
    for (let at = Math.max(seq, this.firstSeq); at <= Math.min(toSeq, this.sizes.length) && count < countMax; at++) {
      if (this.missing.has(at)) return
      this.reads.set(at, (this.reads.get(at) ?? 0) + 1)
      count++
      yield { seq: at, bytes: this.sizes[at - 1] }
    }
  }

  firstSeq = 1
  readonly sizes: number[] = []
  readonly reads = new Map<number, number>()
  /** Seqs whose size cannot be read (a gap in the store). */
  missing = new Set<number>()

  get asLog(): CommandLog { return this as unknown as CommandLog }
}

/** The answer by definition: the largest seq from which the records up to durableSeq hold bytesKept (the first when none does). */
function expectedKeepFrom(log: SizedLog, durableSeq: number, bytesKept: number): number {
  let sum = 0
  for (let seq = durableSeq; seq >= log.firstSeq; seq--) {
    sum += log.sizes[seq - 1]
    if (sum >= bytesKept) return seq
  }
  return Math.min(log.firstSeq, durableSeq)
}

function lcg(seed: number): () => number {
  let state = seed >>> 0
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32
}

t.test('after every round: the newest records holding the bytes kept, never past the last durable one', async (t) => {
  for (const bytesKept of [0, 1, 100, 999, 5_000, 1e9]) {
    const random = lcg(bytesKept + 7)
    const log = new SizedLog()
    const retained = new RetainedBytes(bytesKept)
    const wrong: string[] = []
    let rounds = 0
    for (let round = 0; round < 60; round++) {
      const added = Math.floor(random() * 12)
      for (let index = 0; index < added; index++) log.sizes.push(20 + Math.floor(random() * 300))
      const durableSeq = log.sizes.length
      if (durableSeq === 0) continue
      const got = await retained.keepFromSeq(log.asLog, durableSeq)
      rounds++
      const want = expectedKeepFrom(log, durableSeq, bytesKept)
      if (got !== want) wrong.push(`round ${round}: ${got}, not ${want}`)
    }
    t.same(wrong, [], `bytes kept ${bytesKept}`)
    // Once coming in, once going out, and per round one look at the oldest record kept (the one that may not go yet).
    const reads = [...log.reads.values()].reduce((sum, count) => sum + count, 0)
    t.ok(reads <= 2 * log.sizes.length + rounds, `${reads} size reads for ${log.sizes.length} records over ${rounds} rounds: no rescan of the log`)
  }
})

t.test('exact edges: the records that reach the bytes kept exactly are kept, one byte more keeps one more record', async (t) => {
  const log = new SizedLog()
  log.sizes.push(100, 100, 100, 100)
  t.equal(await new RetainedBytes(200).keepFromSeq(log.asLog, 4), 3, '100 + 100 = 200: records 3 and 4')
  t.equal(await new RetainedBytes(201).keepFromSeq(log.asLog, 4), 2, '201 needs a third record')
  t.equal(await new RetainedBytes(400).keepFromSeq(log.asLog, 4), 1)
  t.equal(await new RetainedBytes(401).keepFromSeq(log.asLog, 4), 1, 'less than the setting in all: everything kept')
  t.equal(await new RetainedBytes(0).keepFromSeq(log.asLog, 4), 4, 'nothing asked for: the last durable record still kept')
  t.equal(await new RetainedBytes(200).keepFromSeq(log.asLog, 2), 1, 'records not yet durable are not counted')
})

t.test('retention by count moved the log\'s start past the window: it starts again there', async (t) => {
  const log = new SizedLog()
  for (let index = 0; index < 50; index++) log.sizes.push(10)
  const retained = new RetainedBytes(300)
  t.equal(await retained.keepFromSeq(log.asLog, 50), 21)
  log.firstSeq = 45
  for (let index = 0; index < 5; index++) log.sizes.push(10)
  t.equal(await retained.keepFromSeq(log.asLog, 55), 45, 'only 11 records left (110 bytes): all of them kept')
  for (let index = 0; index < 30; index++) log.sizes.push(10)
  t.equal(await retained.keepFromSeq(log.asLog, 85), 56, 'then the newest 300 bytes again')
  t.equal(expectedKeepFrom(log, 85, 300), 56)
})

t.test('a durable record whose size cannot be read: everything from the log\'s start is kept', async (t) => {
  const log = new SizedLog()
  for (let index = 0; index < 20; index++) log.sizes.push(50)
  log.firstSeq = 3
  log.missing.add(3)
  t.equal(await new RetainedBytes(100).keepFromSeq(log.asLog, 20), 3)
})

t.test('a long round reads its sizes over several turns of the event loop', async (t) => {
  const log = new SizedLog()
  for (let index = 0; index < 30_000; index++) log.sizes.push(1)
  let turns = 0
  let counting = true
  const count = () => { if (counting) { turns++; setImmediate(count) } }
  setImmediate(count)
  const keepFrom = await new RetainedBytes(1_000).keepFromSeq(log.asLog, 30_000)
  counting = false
  t.equal(keepFrom, 29_001)
  t.ok(turns >= 3, `other work ran ${turns} times meanwhile`)
})

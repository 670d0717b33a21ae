/** A request that takes several tokens (a batch of matches, one write token per match): taken while one token is there, the rest owed and repaid by the refill. */
import t from 'tap'
import fc from 'fast-check'
import { TokenBucket } from '../../src/edge/rate-limit.ts'

const startMs = Date.parse('2026-11-10T12:00:00.000Z')
const secondMs = 1000

t.test('600/min (300 held): a batch of 1,000 passes, then nothing until the debt is repaid', async (t) => {
  const bucket = new TokenBucket(600, startMs)
  t.equal(bucket.remaining(startMs), 300)
  t.ok(bucket.tryTake(startMs, 1000, true), 'one token is there, so the batch passes')
  t.equal(bucket.remaining(startMs), 0, 'never negative on the wire')
  t.notOk(bucket.tryTake(startMs), 'the next request waits')
  // 700 tokens owed, one more needed: 701 tokens at 10 a second.
  t.equal(bucket.retryAfterSeconds(startMs), 71)
  t.notOk(bucket.tryTake(startMs + 70 * secondMs))
  t.ok(bucket.tryTake(startMs + 71 * secondMs))
})

t.test('several tokens are refused like one when none is there, and take nothing then', async (t) => {
  const bucket = new TokenBucket(60, startMs)
  t.ok(bucket.tryTake(startMs, 30))
  t.notOk(bucket.tryTake(startMs, 5))
  t.equal(bucket.retryAfterSeconds(startMs), 1, 'the refusal took nothing')
  t.throws(() => bucket.tryTake(startMs + 60_000, 1001, true), 'owing more than a batch of matches holds is a programming error')
})

t.test('by default several tokens are taken all or none (an entry batch, docs/API.md, Bulk postings)', async (t) => {
  const bucket = new TokenBucket(600, startMs)
  t.ok(bucket.tryTake(startMs, 1))
  t.notOk(bucket.tryTake(startMs, 300), 'more than the 299 held: refused')
  t.equal(bucket.remaining(startMs), 299, 'the refusal took nothing')
  t.ok(bucket.tryTake(startMs, 299), 'exactly what is held: taken')
  t.equal(bucket.remaining(startMs), 0)
  t.equal(bucket.retryAfterSeconds(startMs, 50), 5, '50 tokens at 10 a second')
})

t.test('a take larger than the capacity passes on a full bucket and leaves it in debt; Retry-After is honest for it', async (t) => {
  const bucket = new TokenBucket(600, startMs)
  t.ok(bucket.tryTake(startMs, 301), '301 tokens on a full bucket of 300: taken, one owed')
  t.equal(bucket.remaining(startMs), 0)
  t.notOk(bucket.tryTake(startMs), 'the next write waits for the debt')
  // The same batch again needs a full bucket: 301 tokens (one owed, 300 to fill) at 10 a second.
  const waitSeconds = bucket.retryAfterSeconds(startMs, 301)
  t.equal(waitSeconds, 31)
  t.notOk(bucket.tryTake(startMs + (waitSeconds - 1) * secondMs, 301), 'not a second before')
  t.ok(bucket.tryTake(startMs + waitSeconds * secondMs, 301), 'after Retry-After the same batch passes')
  t.equal(bucket.retryAfterSeconds(startMs + waitSeconds * secondMs, 8190), 31, 'the largest batch waits for a full bucket too')
})

t.test('property: after Retry-After the same take passes (all or none, any size up to the largest batch)', async (t) => {
  fc.assert(fc.property(fc.integer({ min: 1, max: 10_000 }), fc.array(fc.tuple(fc.integer({ min: 1, max: 8190 }), fc.integer({ min: 0, max: 120_000 })), { minLength: 1, maxLength: 40 }), (perMinute, takes) => {
    const bucket = new TokenBucket(perMinute, startMs)
    let nowMs = startMs
    for (const [tokens, stepMs] of takes) {
      nowMs += stepMs
      if (bucket.tryTake(nowMs, tokens)) continue
      const waitMs = bucket.retryAfterSeconds(nowMs, tokens) * secondMs
      if (!bucket.tryTake((nowMs += waitMs), tokens)) return false
    }
    return true
  }), { numRuns: 300 })
  t.pass('held')
})

t.test('giveBack returns what a request took, never above the capacity', async (t) => {
  const bucket = new TokenBucket(600, startMs)
  t.ok(bucket.tryTake(startMs, 5))
  bucket.giveBack(startMs, 5)
  t.equal(bucket.remaining(startMs), 300)
  bucket.giveBack(startMs, 5)
  t.equal(bucket.remaining(startMs), 300, 'clamped at the capacity')
})

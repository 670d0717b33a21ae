/** A request that takes several tokens (a batch of matches, one write token per match): taken while one token is there, the rest owed and repaid by the refill. */
import t from 'tap'
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

t.test('by default several tokens are taken all or none (an entry batch, CONTRACT.md 13)', async (t) => {
  const bucket = new TokenBucket(600, startMs)
  t.notOk(bucket.tryTake(startMs, 301), 'more than the 300 held: refused')
  t.equal(bucket.remaining(startMs), 300, 'the refusal took nothing')
  t.ok(bucket.tryTake(startMs, 300), 'exactly what is held: taken')
  t.equal(bucket.remaining(startMs), 0)
  t.equal(bucket.retryAfterSeconds(startMs, 50), 5, '50 tokens at 10 a second')
})

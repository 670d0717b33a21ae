/** A request that takes several tokens (a batch of matches, one write token per match): taken while one token is there, the rest owed and repaid by the refill. */
import t from 'tap'
import { TokenBucket } from '../../src/edge/rate-limit.ts'

const startMs = Date.parse('2026-11-10T12:00:00.000Z')
const secondMs = 1000

t.test('600/min (300 held): a batch of 1,000 passes, then nothing until the debt is repaid', async (t) => {
  const bucket = new TokenBucket(600, startMs)
  t.equal(bucket.remaining(startMs), 300)
  t.ok(bucket.tryTake(startMs, 1000), 'one token is there, so the batch passes')
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
  t.throws(() => bucket.tryTake(startMs + 60_000, 1001), 'more than a batch holds is a programming error')
})

/** Tests for the token bucket with an injected clock (no sleeps): bursts, refill, Retry-After, limit changes, clocks going backwards. */
import fc from 'fast-check'
import t from 'tap'
import { TokenBucket } from '../../src/edge/rate-limit.ts'

const startMs = Date.parse('2026-11-10T12:00:00.000Z')
const secondMs = 1000
const minuteMs = 60_000

/** Takes until refused; how many were taken. `limit` bounds the loop. */
function drain(bucket: TokenBucket, nowMs: number, limit = 100_000): number {
  let taken = 0
  while (taken < limit && bucket.tryTake(nowMs)) taken += 1
  return taken
}

t.test('60/min: a burst of exactly 30, then Retry-After 1, then one token a second', async (t) => {
  const bucket = new TokenBucket(60, startMs)
  t.equal(bucket.limitPerMinute, 60)
  t.equal(bucket.capacity, 30)
  t.equal(bucket.remaining(startMs), 30, 'starts full')
  t.equal(drain(bucket, startMs), 30)
  t.equal(bucket.remaining(startMs), 0)
  t.notOk(bucket.tryTake(startMs), 'the 31st is refused')
  t.equal(bucket.retryAfterSeconds(startMs), 1)
  t.notOk(bucket.tryTake(startMs + 999), 'not before a whole second')
  t.equal(bucket.retryAfterSeconds(startMs + 999), 1)
  t.ok(bucket.tryTake(startMs + 1000), 'one more after 1000 ms')
  t.notOk(bucket.tryTake(startMs + 1000), 'and only one')
  t.equal(bucket.remaining(startMs + 1500), 0, 'half a token is not shown')
  t.ok(bucket.tryTake(startMs + 2000))
  t.equal(bucket.remaining(startMs + 60 * secondMs), 30, 'full again after a minute')
  t.equal(bucket.remaining(startMs + 10 * minuteMs), 30, 'and never more than the capacity')
  t.equal(drain(bucket, startMs + 10 * minuteMs), 30)
})

t.test('the burst is half the per-minute limit', async (t) => {
  for (const [perMinute, burst] of [[600, 300], [3000, 1500], [2, 1], [7, 3], [100_000_000, 50_000_000]]) {
    const bucket = new TokenBucket(perMinute, startMs)
    t.equal(bucket.remaining(startMs), burst, `${perMinute}/min: remaining ${burst}`)
    t.equal(drain(bucket, startMs, burst + 10), burst, `${perMinute}/min: ${burst} immediate takes`)
  }
})

t.test('600/min and 3000/min refill 10 and 50 tokens a second', async (t) => {
  const writes = new TokenBucket(600, startMs)
  drain(writes, startMs)
  t.equal(writes.retryAfterSeconds(startMs), 1)
  t.equal(writes.remaining(startMs + 99), 0)
  t.equal(writes.remaining(startMs + 100), 1)
  t.equal(writes.remaining(startMs + 1000), 10)
  t.equal(writes.remaining(startMs + 30 * secondMs), 300)
  const reads = new TokenBucket(3000, startMs)
  drain(reads, startMs)
  t.equal(reads.remaining(startMs + 1000), 50)
  t.equal(reads.remaining(startMs + 29 * secondMs), 1450)
  t.equal(reads.remaining(startMs + 31 * secondMs), 1500)
})

t.test('remaining counts whole tokens down', async (t) => {
  const bucket = new TokenBucket(60, startMs)
  for (let left = 29; left >= 0; left -= 1) {
    bucket.tryTake(startMs)
    if (bucket.remaining(startMs) !== left) t.fail(`remaining ${left}`)
  }
  t.equal(bucket.remaining(startMs), 0)
})

t.test('Retry-After is whole seconds, rounded up, at least 1', async (t) => {
  const slow = new TokenBucket(7, startMs) // capacity 3.5; a token every 60/7 s = 8571.43 ms
  t.equal(drain(slow, startMs), 3)
  t.equal(slow.retryAfterSeconds(startMs), 5, 'half a token left: 4285.7 ms to go')
  t.notOk(slow.tryTake(startMs + 4285))
  t.ok(slow.tryTake(startMs + 4286), 'exactly when the token is whole')
  t.equal(slow.retryAfterSeconds(startMs + 4286), 9, 'from (almost) nothing: 8571.1 ms to go')
  t.equal(slow.retryAfterSeconds(startMs + 4286 + 8000), 1)
  t.notOk(slow.tryTake(startMs + 4286 + 8571))
  t.ok(slow.tryTake(startMs + 4286 + 8572))
  const one = new TokenBucket(1, startMs)
  t.equal(one.capacity, 1, 'a 1/min limit holds one token, not half of one')
  t.ok(one.tryTake(startMs))
  t.equal(one.retryAfterSeconds(startMs), 60)
  t.notOk(one.tryTake(startMs + 59_999))
  t.ok(one.tryTake(startMs + 60_000))
  t.equal(new TokenBucket(60, startMs).retryAfterSeconds(startMs), 1, 'a token is there: still 1')
})

t.test('setRate: lowering clamps the tokens held, raising keeps them', async (t) => {
  const bucket = new TokenBucket(600, startMs)
  t.equal(drain(bucket, startMs, 10), 10)
  t.equal(bucket.remaining(startMs), 290)
  bucket.setRate(60, startMs)
  t.equal(bucket.limitPerMinute, 60)
  t.equal(bucket.remaining(startMs), 30, 'clamped to the new capacity at once')
  t.equal(drain(bucket, startMs), 30)
  t.equal(bucket.retryAfterSeconds(startMs), 1)
  t.equal(bucket.remaining(startMs + 1000), 1, 'refills at the new rate')

  bucket.setRate(600, startMs + 1000)
  t.equal(bucket.limitPerMinute, 600)
  t.equal(bucket.remaining(startMs + 1000), 1, 'raising gives no free burst')
  t.equal(bucket.remaining(startMs + 2000), 11, 'the new rate applies from the change: 10 a second')
  t.equal(bucket.remaining(startMs + 31 * secondMs), 300, 'up to the new capacity')

  const partly = new TokenBucket(60, startMs)
  drain(partly, startMs)
  partly.setRate(120, startMs + 500) // half a token gathered at 60/min, then 2 a second
  t.equal(partly.remaining(startMs + 500), 0)
  t.equal(partly.remaining(startMs + 750), 1, 'the half token earned before the change is kept')
})

t.test('setRate as of an earlier change: time after the change refills at the new rate, time before at the old', async (t) => {
  const bucket = new TokenBucket(60, startMs)
  drain(bucket, startMs)
  bucket.setRate(6000, startMs) // the PATCH, noticed only by the next request
  t.equal(bucket.remaining(startMs + 300), 30, '300 ms at 6,000/min: 30 tokens, not the 0.3 of the old rate')
  t.ok(bucket.tryTake(startMs + 300))

  const late = new TokenBucket(60, startMs)
  drain(late, startMs)
  late.setRate(6000, startMs + 2000) // two seconds at 60/min, then 100 a second
  t.equal(late.remaining(startMs + 2300), 2 + 30, 'old rate before the change, new rate after')
})

t.test('setRate stamped before the last reading counts no time twice', async (t) => {
  const bucket = new TokenBucket(60, startMs)
  drain(bucket, startMs)
  t.equal(bucket.remaining(startMs + 10 * secondMs), 10, 'ten seconds at 60/min')
  bucket.setRate(6000, startMs + 5 * secondMs)
  t.equal(bucket.remaining(startMs + 10 * secondMs), 10, 'the five seconds already counted at the old rate are not counted again')
  t.equal(bucket.remaining(startMs + 10 * secondMs + 100), 20, 'the new rate from the last reading on')
})

t.test('a clock going backwards adds nothing, and does not freeze the bucket', async (t) => {
  const bucket = new TokenBucket(60, startMs)
  drain(bucket, startMs)
  t.equal(bucket.remaining(startMs - minuteMs), 0, 'a step back adds no tokens')
  t.notOk(bucket.tryTake(startMs - 10 * minuteMs))
  t.equal(bucket.retryAfterSeconds(startMs - 10 * minuteMs), 1)
  t.ok(bucket.tryTake(startMs - 10 * minuteMs + 1000), 'time counts again from the new reading')
  t.notOk(bucket.tryTake(startMs - 10 * minuteMs + 1000))
  const other = new TokenBucket(60, startMs)
  drain(other, startMs)
  other.setRate(60, startMs - 5000)
  t.equal(other.remaining(startMs - 5000), 0, 'setRate with an earlier time adds nothing either')
})

t.test('misuse fails loudly', async (t) => {
  for (const perMinute of [0, -1, 1.5, Number.NaN, 2e9]) {
    t.throws(() => new TokenBucket(perMinute, startMs), `perMinute ${perMinute}`)
    t.throws(() => new TokenBucket(60, startMs).setRate(perMinute, startMs), `setRate ${perMinute}`)
  }
  t.throws(() => new TokenBucket(60, startMs + 0.5), 'a fractional clock')
  t.throws(() => new TokenBucket(60, startMs).tryTake(Number.NaN), 'a clock reading NaN')
})

/** The same rules with exact rationals: tokens = min(cap, tokens + elapsed * perMinute / 60000). */
function modelTakes(perMinute: number, stepsMs: readonly number[]): boolean[] {
  const capacity = BigInt(Math.max(1, perMinute / 2) * 60_000)
  let units = capacity
  let lastMs = 0
  const results: boolean[] = []
  for (const stepMs of stepsMs) {
    const nowMs = lastMs + stepMs
    units = units + BigInt(Math.max(0, nowMs - lastMs)) * BigInt(perMinute)
    if (units > capacity) units = capacity
    lastMs = nowMs
    const taken = units >= 60_000n
    if (taken) units -= 60_000n
    results.push(taken)
  }
  return results
}

t.test('property: takes match an exact model, and never exceed the burst plus the refill', async (t) => {
  const perMinuteArbitrary = fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 10_000 }))
  const stepsArbitrary = fc.array(fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 200_000 })), { minLength: 1, maxLength: 300 })
  fc.assert(fc.property(perMinuteArbitrary, stepsArbitrary, (perMinute, stepsMs) => {
    const bucket = new TokenBucket(perMinute, startMs)
    let nowMs = startMs
    const actual = stepsMs.map((stepMs) => bucket.tryTake((nowMs += stepMs)))
    const expected = modelTakes(perMinute, stepsMs)
    const elapsedMs = nowMs - startMs
    const takenCount = actual.filter(Boolean).length
    return actual.every((taken, index) => taken === expected[index])
      && takenCount * minuteMs <= bucket.capacity * minuteMs + elapsedMs * perMinute
  }), { numRuns: 500 })
  t.pass('held')
})

/**
 * The clock of the edges on the shards' threads (EDGE_THREADS=1, SHARDS=2): a service started with a clock of its
 * own (a test's manual clock) gives it to every thread's edge, so what a request writes is stamped with that clock
 * whichever thread served it, as with the main thread's edge.
 */
import t from 'tap'
import { manualClock, minuteMs } from '../support/clock.ts'
import { startTestService } from '../support/service.ts'

t.setTimeout(240_000)

const shards = 2
const startMs = Date.parse('2026-11-10T12:00:00.000Z')
const clock = manualClock(startMs)
const service = await startTestService({ clock: clock.now, env: { SHARDS: String(shards), EDGE_THREADS: '1' } })
t.teardown(() => service.destroy())

/** A new connection each time (a connection stays on the thread it landed on). */
async function createdAt(name: string): Promise<string> {
  const response = await fetch(`${service.baseUrl}/v2/accounts`, {
    method: 'POST', body: JSON.stringify({ name }), signal: AbortSignal.timeout(10_000),
    headers: { connection: 'close', 'content-type': 'application/json', authorization: `Bearer ${service.apiKey}` },
  })
  const body = await response.json() as { created_at: string }
  if (response.status !== 201) throw new Error(`account ${name}: ${response.status} ${JSON.stringify(body)}`)
  return body.created_at
}

t.test('every thread\'s edge stamps with the service\'s clock', async (t) => {
  for (let n = 0; n < shards; n++) t.equal(await createdAt(`assets:first${n}`), new Date(startMs).toISOString(), `request ${n}: the clock's time`)
  clock.advance(5 * minuteMs)
  for (let n = 0; n < shards; n++) t.equal(await createdAt(`assets:later${n}`), new Date(startMs + 5 * minuteMs).toISOString(), `request ${n}: the clock's time once moved`)
})

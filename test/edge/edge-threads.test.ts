/**
 * HTTP on every shard's thread (EDGE_THREADS=1, SHARDS=2, src/edge/threaded-server.ts): the main thread's listening
 * app hands connections in turn to the shards' threads, each serving every route with its own edge; a request for
 * a workspace of the thread's own shard runs there without a hop, one for the other shard's is forwarded through
 * the main thread, as the hop counts of each thread's edge show.
 */
import t from 'tap'
import { shardOf } from '../../src/shard/placement.ts'
import type { EdgeHops } from '../../src/shard/thread-shard.ts'
import { startTestService, type TestService } from '../support/service.ts'

t.setTimeout(240_000)

const shards = 2

/** A new connection each time (a connection stays on the thread it landed on). */
async function fetchFresh(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const response = await fetch(url, { headers: { connection: 'close', ...headers }, signal: AbortSignal.timeout(10_000) })
  return { status: response.status, text: await response.text() }
}

const totalOf = (hops: EdgeHops) => hops.local + hops.forwarded

let service: TestService
t.before(async () => {
  service = await startTestService({ env: { SHARDS: String(shards), EDGE_THREADS: '1' } })
})
t.teardown(() => service.destroy())

t.test('every thread serves: health, the OpenAPI document, the console, /v2 and /admin on fresh connections', async (t) => {
  const before = await service.service.edgeHops()
  t.equal(before.length, shards, 'one edge per shard thread')
  for (let round = 0; round < 2 * shards; round++) {
    t.equal((await fetchFresh(`${service.baseUrl}/healthz`)).status, 200, 'healthz')
    t.equal((await fetchFresh(`${service.baseUrl}/v2/openapi.json`)).status, 200, 'openapi')
    t.equal((await fetchFresh(`${service.baseUrl}/v2/accounts`, { authorization: `Bearer ${service.apiKey}` })).status, 200, '/v2 with the key')
    t.equal((await fetchFresh(`${service.baseUrl}/v2/accounts`, { authorization: 'Bearer wrong' })).status, 401, '/v2 with a wrong key')
    t.equal((await fetchFresh(`${service.baseUrl}/admin/workspaces/default`, { authorization: `Bearer ${service.adminToken}` })).status, 200, '/admin with the token')
    t.equal((await fetchFresh(`${service.baseUrl}/admin/workspaces/default`, { authorization: 'Bearer wrong' })).status, 401, '/admin with a wrong token')
    // Seven requests a round: the next round's requests land on the other thread than this round's.
    t.equal((await fetchFresh(`${service.baseUrl}/console`)).status, 200, 'the console')
  }
  const after = await service.service.edgeHops()
  // The connections went to the threads in turn: each thread's edge ran its share of the /v2 reads and /admin reads went through its edge.
  for (const [index, hops] of after.entries()) t.equal(totalOf(hops) - totalOf(before[index]), 4, `thread ${index}: 2 /v2 reads and 2 /admin reads through its edge`)
})

t.test('a read of the thread\'s own shard without a hop, of the other forwarded', async (t) => {
  const owner = shardOf('default', shards)
  const before = await service.service.edgeHops()
  for (let round = 0; round < 2 * shards; round++) {
    t.equal((await fetchFresh(`${service.baseUrl}/v2/accounts`, { authorization: `Bearer ${service.apiKey}` })).status, 200)
  }
  const after = await service.service.edgeHops()
  t.equal(after.length, shards, 'one edge per shard thread')
  for (const [index, hops] of after.entries()) {
    const local = hops.local - before[index].local
    const forwarded = hops.forwarded - before[index].forwarded
    if (index === owner) t.same({ local, forwarded }, { local: 2, forwarded: 0 }, `thread ${index} (the owner): its 2 reads executed there`)
    else t.same({ local, forwarded }, { local: 0, forwarded: 2 }, `thread ${index}: its 2 reads forwarded`)
  }
})

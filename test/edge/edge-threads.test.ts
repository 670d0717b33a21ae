/**
 * HTTP on every shard's thread (EDGE_THREADS=1, SHARDS=2, src/edge/threaded-server.ts): the main thread's listening
 * app hands connections in turn to the shards' threads, each serving every route with its own edge; a request for
 * a workspace of the thread's own shard runs there without a hop, one for the other shard's is forwarded through
 * the main thread, as the hop counts of each thread's edge show. A workspace's rate budget is one over all threads
 * (shared-rate-buckets.ts), a scrape of /metrics on any thread counts every thread's requests, and a revoked key is
 * refused on every thread once the revoke is answered.
 */
import t from 'tap'
import { shardOf } from '../../src/shard/placement.ts'
import type { EdgeHops } from '../../src/shard/thread-shard.ts'
import { scopesAll } from '../support/api.ts'
import { startTestService, type TestService } from '../support/service.ts'

t.setTimeout(240_000)

const shards = 2

/** A new connection each time (a connection stays on the thread it landed on). */
async function fetchFresh(url: string, headers: Record<string, string> = {}, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const body = init.body === undefined ? undefined : JSON.stringify(init.body)
  const contentType: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' }
  const response = await fetch(url, { method: init.method ?? 'GET', body, headers: { connection: 'close', ...contentType, ...headers }, signal: AbortSignal.timeout(10_000) })
  return { status: response.status, text: await response.text(), headers: response.headers }
}

/** The value of one sample line, e.g. `name{a="b"}`; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

/** A workspace with these limits and a key of every scope on it (through /admin, on whichever thread). */
async function workspaceWithKey(id: string, limits: { writes_per_minute: number; reads_per_minute: number }): Promise<{ keyId: string; secret: string }> {
  const admin = { authorization: `Bearer ${service.adminToken}` }
  const created = await fetchFresh(`${service.baseUrl}/admin/workspaces`, admin, { method: 'POST', body: { id, timezone: 'UTC', limits } })
  if (created.status !== 201) throw new Error(`workspace ${id}: ${created.status} ${created.text}`)
  const key = await fetchFresh(`${service.baseUrl}/admin/keys`, admin, { method: 'POST', body: { workspace: id, scopes: scopesAll } })
  if (key.status !== 201) throw new Error(`key of ${id}: ${key.status} ${key.text}`)
  const { id: keyId, secret } = JSON.parse(key.text) as { id: string; secret: string }
  return { keyId, secret }
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

t.test('a workspace\'s write budget is one over both threads: exactly the burst passes, then 429', async (t) => {
  // 6 writes a minute: a burst of 3, one more token every 10 s (far longer than these requests take).
  const { secret } = await workspaceWithKey('budget', { writes_per_minute: 6, reads_per_minute: 3000 })
  const auth = { authorization: `Bearer ${secret}` }
  const statuses: number[] = []
  const before = await service.service.edgeHops()
  for (let n = 0; n < 6; n++) {
    const reply = await fetchFresh(`${service.baseUrl}/v2/accounts`, auth, { method: 'POST', body: { name: `assets:bank${n}` } })
    statuses.push(reply.status)
    t.equal(reply.headers.get('x-ratelimit-limit'), '6', `request ${n}: X-RateLimit-Limit`)
    if (reply.status === 201) t.equal(reply.headers.get('x-ratelimit-remaining'), String(2 - n), `request ${n}: X-RateLimit-Remaining`)
    else {
      t.equal(reply.headers.get('x-ratelimit-remaining'), '0', `request ${n}: nothing left`)
      const retryAfter = Number(reply.headers.get('retry-after'))
      t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 10, `request ${n}: Retry-After ${retryAfter} (a token every 10 s)`)
      t.equal(JSON.parse(reply.text).error.code, 'rate_limited')
    }
  }
  t.same(statuses, [201, 201, 201, 429, 429, 429], 'the burst of 3, then refused, whichever thread each landed on')
  const after = await service.service.edgeHops()
  // The 3 accepted writes went through both threads' edges (the refused ones stop before the shard).
  for (const [index, hops] of after.entries()) t.ok(totalOf(hops) > totalOf(before[index]), `thread ${index} served some of them`)
  const listed = await fetchFresh(`${service.baseUrl}/v2/accounts`, auth)
  t.equal(JSON.parse(listed.text).data.length, 3, 'a refused write changed nothing')
})

t.test('a scrape of /metrics on any thread counts the requests of every thread', async (t) => {
  const series = 'trueup_http_requests_total{method="GET",route="/healthz",status="200"}'
  const count = 'trueup_http_request_duration_seconds_count{method="GET",route="/healthz"}'
  const first = (await fetchFresh(`${service.baseUrl}/metrics`)).text
  const before = sample(first, series) ?? 0
  for (let n = 0; n < 2 * shards; n++) t.equal((await fetchFresh(`${service.baseUrl}/healthz`)).status, 200)
  // One scrape on each thread: both see all of them.
  for (let scrape = 0; scrape < shards; scrape++) {
    const reply = await fetchFresh(`${service.baseUrl}/metrics`)
    t.equal(reply.status, 200)
    t.match(reply.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
    t.equal(sample(reply.text, series), before + 2 * shards, `scrape ${scrape}: the healthz answers of both threads`)
    t.equal(sample(reply.text, count), before + 2 * shards, `scrape ${scrape}: and their latencies`)
    const lines = reply.text.split('\n')
    for (const once of ['# TYPE trueup_log_pending_records gauge', '# TYPE trueup_http_requests_total counter', '# TYPE process_start_time_seconds gauge']) {
      t.equal(lines.filter((line) => line === once).length, 1, `scrape ${scrape}: ${once} once`)
    }
    t.equal(lines.filter((line) => line.startsWith('trueup_log_pending_records ')).length, 1, `scrape ${scrape}: one pending-records gauge`)
  }
})

t.test('a revoked key is refused on every thread as soon as the revoke is answered', async (t) => {
  const { keyId, secret } = await workspaceWithKey('revoked', { writes_per_minute: 600, reads_per_minute: 3000 })
  for (let n = 0; n < shards; n++) t.equal((await fetchFresh(`${service.baseUrl}/v2/accounts`, { authorization: `Bearer ${secret}` })).status, 200, 'the key works')
  const revoked = await fetchFresh(`${service.baseUrl}/admin/keys/${keyId}`, { authorization: `Bearer ${service.adminToken}` }, { method: 'DELETE' })
  t.equal(revoked.status, 204)
  for (let n = 0; n < 2 * shards; n++) t.equal((await fetchFresh(`${service.baseUrl}/v2/accounts`, { authorization: `Bearer ${secret}` })).status, 401, `request ${n}: refused`)
})

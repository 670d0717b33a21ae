/** GET /metrics (src/edge/metrics.ts): Prometheus text with requests, latency, group commits, queue depth, 429s and process metrics; METRICS_TOKEN; never rate limited. */
import t from 'tap'
import { Counter, Histogram, Registry } from 'prom-client'
import { Metrics } from '../../src/edge/metrics.ts'
import { accountRoutes } from '../../src/api/routes/accounts.ts'
import { adminCreateKey, adminCreateWorkspace, createAccount, postEntryOk, raiseLimits, scopesAll } from '../support/api.ts'
import { call, startTestService } from '../support/service.ts'

/** The value of one sample line, e.g. `name{a="b"}`; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

t.test('the metrics of a service at work', async (t) => {
  const service = await startTestService()
  t.teardown(() => service.destroy())
  const { baseUrl, apiKey: key } = service
  await raiseLimits(service, 'default')
  await createAccount(baseUrl, key, 'assets:bank')
  await createAccount(baseUrl, key, 'income:sales')
  await Promise.all(Array.from({ length: 20 }, (_, i) => postEntryOk(baseUrl, key, [{ account: 'assets:bank', amount: i + 1 }, { account: 'income:sales', amount: -(i + 1) }])))
  await call(baseUrl, 'GET', '/v2/accounts/acc_nope', { key })
  await call(baseUrl, 'GET', '/v2/no/such/route', { key })
  const reply = await call(baseUrl, 'GET', '/metrics')
  t.equal(reply.status, 200)
  t.match(reply.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
  t.ok(reply.headers.get('request-id'), 'Request-Id')
  t.equal(reply.headers.get('x-ratelimit-limit'), null, 'not rate limited: no bucket')
  const text = reply.text
  t.equal(sample(text, 'trueup_http_requests_total{method="POST",route="/v2/entries",status="201"}'), 20, 'requests by route pattern and status')
  t.equal(sample(text, 'trueup_http_requests_total{method="GET",route="/v2/accounts/:id",status="404"}'), 1, 'the pattern, not the path')
  t.equal(sample(text, 'trueup_http_requests_total{method="*",route="unmatched",status="404"}'), 1, 'unknown routes share one label')
  t.equal(sample(text, 'trueup_http_request_duration_seconds_count{method="POST",route="/v2/entries"}'), 20, 'a latency histogram per route')
  t.ok(sample(text, 'trueup_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/healthz"}') === 0, 'routes are pre-resolved: present before their first request')
  const commits = sample(text, 'trueup_log_commit_records_count') ?? 0
  const records = sample(text, 'trueup_log_commit_records_sum') ?? 0
  t.ok(commits >= 1, `group commits counted (${commits})`)
  t.ok(records >= 22, `records committed (${records}: 2 accounts, 20 entries and the first start)`)
  t.ok(commits < records, 'concurrent writes shared commits')
  t.equal(sample(text, 'trueup_log_commit_duration_seconds_count'), commits, 'one fsync latency per commit')
  t.equal(sample(text, 'trueup_log_pending_records'), 0, 'nothing pending when idle')
  t.equal(sample(text, 'trueup_actor_queue_depth_records{workspace="default"}'), 0, 'queue depth per workspace')
  t.ok((sample(text, 'process_resident_memory_bytes') ?? 0) > 0, 'process RSS')
  t.match(text, /^nodejs_eventloop_lag_seconds \d/m, 'event-loop lag')
  t.notMatch(text, new RegExp(key), 'no secret in the metrics')
})

t.test('rate-limit rejections are counted by workspace and bucket; /metrics itself is never limited', async (t) => {
  const service = await startTestService()
  t.teardown(() => service.destroy())
  t.equal((await adminCreateWorkspace(service, 'tiny')).status, 201)
  t.equal((await call(service.baseUrl, 'PATCH', '/admin/workspaces/tiny', { key: service.adminToken, body: { limits: { writes_per_minute: 2, reads_per_minute: 2 } } })).status, 200)
  const tiny = await adminCreateKey(service, 'tiny', scopesAll)
  const statuses: number[] = []
  for (let i = 0; i < 4; i++) statuses.push((await call(service.baseUrl, 'GET', '/v2/accounts', { key: tiny.secret })).status)
  t.same(statuses, [200, 429, 429, 429], 'a bucket of one token')
  for (let i = 0; i < 30; i++) t.equal((await call(service.baseUrl, 'GET', '/metrics', { key: tiny.secret })).status, 200, `scrape ${i}`)
  const text = (await call(service.baseUrl, 'GET', '/metrics')).text
  t.equal(sample(text, 'trueup_rate_limited_total{workspace="tiny",bucket="reads"}'), 3)
  t.equal(sample(text, 'trueup_http_requests_total{method="GET",route="/v2/accounts",status="429"}'), 3)
})

t.test('METRICS_TOKEN: 401 without it or with another token, 200 with it', async (t) => {
  const service = await startTestService({ env: { METRICS_TOKEN: 'scrape-me' } })
  t.teardown(() => service.destroy())
  for (const [label, key] of [['no token', undefined], ['a wrong token', 'scrape-me-not'], ['the API key', service.apiKey], ['the admin token', service.adminToken]] as const) {
    const reply = await call(service.baseUrl, 'GET', '/metrics', { key })
    t.equal(reply.status, 401, `${label}: 401`)
    t.equal(reply.body?.error?.code, 'unauthenticated', `${label}: unauthenticated`)
  }
  const reply = await call(service.baseUrl, 'GET', '/metrics', { key: 'scrape-me' })
  t.equal(reply.status, 200)
  t.equal(sample(reply.text, 'trueup_http_requests_total{method="GET",route="/metrics",status="401"}'), 4, 'the refusals are counted too')
  t.equal((await call(service.baseUrl, 'GET', '/healthz')).status, 200, '/healthz stays open')
})

t.test('Metrics: one registry per service, label children resolved once', async (t) => {
  const first = new Metrics({ groupCommitRecordsMax: 8192, eventLoopLagResolutionMs: 10 })
  const second = new Metrics({ groupCommitRecordsMax: 100, eventLoopLagResolutionMs: 10 })
  const route = accountRoutes[0]
  first.addRoutes([route])
  for (let i = 0; i < 3; i++) first.observeRequest(route, 201, 2)
  first.observeRequest(null, 404, 1)
  first.observeCommit(5, 1.5)
  const late = { method: 'GET', pattern: '/v2/late' }
  first.observeRequest(late, 200, 1)
  const text = await first.render()
  t.equal(sample(text, `trueup_http_requests_total{method="POST",route="/v2/accounts",status="201"}`), 3)
  t.equal(sample(text, 'trueup_http_request_duration_seconds_sum{method="POST",route="/v2/accounts"}'), 0.006, 'seconds')
  t.equal(sample(text, 'trueup_http_requests_total{method="GET",route="/v2/late",status="200"}'), 1, 'a route unknown at start is resolved on first use')
  t.equal(sample(text, 'trueup_log_commit_records_bucket{le="8192"}'), 1, 'batch-size buckets reach groupCommitRecordsMax')
  t.equal(sample(text, 'trueup_log_commit_duration_seconds_sum'), 0.0015)
  const other = await second.render()
  t.equal(sample(other, `trueup_http_requests_total{method="POST",route="/v2/accounts",status="201"}`), undefined, 'the other service\'s registry is untouched')
  t.equal(sample(other, 'trueup_log_commit_records_bucket{le="100"}'), 0, 'its buckets follow its own limit')
})

/** The lines of one metric family (its HELP, TYPE and samples), sorted: series order means nothing to Prometheus. */
function family(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}_`) || line.startsWith(`${name} `) || line.startsWith(`${name}{`) || line.includes(` ${name} `)).sort()
}

t.test('the request series, counted in plain numbers, render as prom-client\'s own Counter and Histogram would, scrape after scrape', async (t) => {
  const metrics = new Metrics({ groupCommitRecordsMax: 8192, eventLoopLagResolutionMs: 10 })
  const reference = new Registry()
  const requests = new Counter({ name: 'trueup_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status (499: the client went away first)', labelNames: ['method', 'route', 'status'], registers: [reference] })
  const duration = new Histogram({ name: 'trueup_http_request_duration_seconds', help: 'Time from the request to its answer (including the wait for the log flush), by method and route pattern', labelNames: ['method', 'route'], buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [reference] })
  const routes = [{ method: '*', pattern: 'unmatched' }, ...accountRoutes]
  metrics.addRoutes(accountRoutes)
  for (const route of routes) duration.zero({ method: route.method, route: route.pattern })
  const observe = (index: number, status: number, durationMs: number): void => {
    const route = routes[index]
    metrics.observeRequest(index === 0 ? null : route, status, durationMs)
    requests.inc({ method: route.method, route: route.pattern, status: String(status) })
    duration.observe({ method: route.method, route: route.pattern }, durationMs / 1000)
  }
  // Durations on every side of the bounds, past the last one too (counted in +Inf only).
  const durationsMs = [0.1, 0.5, 0.7, 1, 2.5, 3, 9.99, 10, 10.01, 49, 250, 999, 2_500, 7_000, 10_000, 12_000]
  for (let i = 0; i < 200; i++) observe(i % routes.length, [200, 201, 404, 400, 429][i % 5], durationsMs[(i * 7) % durationsMs.length])
  const ours = await metrics.render()
  const theirs = await reference.metrics()
  for (const name of ['trueup_http_requests_total', 'trueup_http_request_duration_seconds']) {
    t.ok(family(theirs, name).length > 10, `${name}: the reference has samples`)
    t.same(family(ours, name), family(theirs, name), `${name}: the same lines`)
  }
  observe(2, 201, 0.3)
  observe(0, 404, 0.3)
  const again = await metrics.render()
  const theirsAgain = await reference.metrics()
  for (const name of ['trueup_http_requests_total', 'trueup_http_request_duration_seconds']) t.same(family(again, name), family(theirsAgain, name), `${name}: a second scrape adds only what came since the first`)
  t.same((await metrics.registry.getMetricsAsJSON()).find((metric) => metric.name === 'trueup_http_request_duration_seconds')?.values.length, (await reference.getMetricsAsJSON()).find((metric) => metric.name === 'trueup_http_request_duration_seconds')?.values.length, 'the JSON form too')
})

/**
 * The request latency histogram (src/edge/request-durations.ts) against prom-client's own Histogram: fed the same
 * observations under the same labels, a registry renders both to the same exposition text and the same JSON
 * (cumulative buckets, +Inf, _sum, _count, label sets in creation order); bucket edges are inclusive; values past
 * the last bound count in +Inf only; reset zeroes every series and keeps it.
 */
import { Histogram, Registry } from 'prom-client'
import t from 'tap'
import { DurationHistogram } from '../../src/edge/request-durations.ts'

const buckets = [0.001, 0.005, 0.01, 0.1, 1]
const observations: [Record<string, string>, number][] = [
  [{ method: 'GET', route: '/v2/accounts', status: '200' }, 0.0004],
  [{ method: 'GET', route: '/v2/accounts', status: '200' }, 0.001],
  [{ method: 'GET', route: '/v2/accounts', status: '200' }, 0.0051],
  [{ method: 'POST', route: '/v2/entries', status: '201' }, 0.1],
  [{ method: 'POST', route: '/v2/entries', status: '201' }, 2.5],
  [{ method: 'GET', route: '/v2/accounts', status: '200' }, 0.75],
  [{ method: 'POST', route: '/v2/entries', status: '422' }, 0],
]

function both(): { ours: DurationHistogram; theirs: Histogram; ourRegistry: Registry; theirRegistry: Registry; record: () => void } {
  const ourRegistry = new Registry()
  const theirRegistry = new Registry()
  const ours = new DurationHistogram({ name: 'http_request_duration_seconds', help: 'Request latency.', buckets, registers: [ourRegistry] })
  const theirs = new Histogram({ name: 'http_request_duration_seconds', help: 'Request latency.', buckets, labelNames: ['method', 'route', 'status'], registers: [theirRegistry] })
  const series = new Map<string, ReturnType<DurationHistogram['series']>>()
  const record = () => {
    for (const [labels, seconds] of observations) {
      const key = JSON.stringify(labels)
      if (!series.has(key)) series.set(key, ours.series(labels))
      DurationHistogram.observe(series.get(key)!, ours.bounds, seconds)
      theirs.observe(labels, seconds)
    }
  }
  return { ours, theirs, ourRegistry, theirRegistry, record }
}

t.test('the exposition text is prom-client\'s, byte for byte', async (t) => {
  const { ourRegistry, theirRegistry, record } = both()
  record()
  const text = await ourRegistry.metrics()
  t.equal(text, await theirRegistry.metrics())
  t.match(text, /http_request_duration_seconds_bucket\{le="0.001",method="GET",route="\/v2\/accounts",status="200"\} 2\n/, 'le inclusive: 0.0004 and 0.001')
  t.match(text, /http_request_duration_seconds_bucket\{le="1",method="POST",route="\/v2\/entries",status="201"\} 1\n/, '2.5 s only in +Inf')
  t.match(text, /http_request_duration_seconds_bucket\{le="\+Inf",method="POST",route="\/v2\/entries",status="201"\} 2\n/)
  t.match(text, /http_request_duration_seconds_count\{method="GET",route="\/v2\/accounts",status="200"\} 4\n/)
})

t.test('the JSON form is prom-client\'s, but for the exemplar member (null, no exemplars are kept)', async (t) => {
  const { ourRegistry, theirRegistry, record } = both()
  record()
  const withoutExemplars = (metrics: unknown) => JSON.parse(JSON.stringify(metrics, (key, value) => (key === 'exemplar' ? undefined : value)))
  t.same(await ourRegistry.getMetricsAsJSON(), withoutExemplars(await theirRegistry.getMetricsAsJSON()))
})

t.test('a series is present at 0 from its creation; reset zeroes each series and keeps it', async (t) => {
  const registry = new Registry()
  const histogram = new DurationHistogram({ name: 'd', help: 'h', buckets, registers: [registry] })
  const series = histogram.series({ route: '/x' })
  t.match(await registry.metrics(), /d_count\{route="\/x"\} 0\n/)
  DurationHistogram.observe(series, histogram.bounds, 0.002)
  DurationHistogram.observe(series, histogram.bounds, 0.002)
  t.same([...series.counts], [0, 2, 0, 0, 0], 'counts per bucket, not cumulative')
  t.equal(series.sum, 0.004)
  t.equal(series.count, 2)
  histogram.reset()
  t.same([...series.counts], [0, 0, 0, 0, 0])
  t.equal(series.sum, 0)
  t.equal(series.count, 0)
  t.match(await registry.metrics(), /d_bucket\{le="\+Inf",route="\/x"\} 0\n/, 'still rendered')
})

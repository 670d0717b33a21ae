/**
 * Several registries' metrics as one (src/edge/metrics-sum.ts): counters and histograms present in several are
 * summed sample by sample, a metric of one registry is kept as it is, and the text is what one registry holding
 * all of it would render.
 */
import t from 'tap'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { sumMetrics } from '../../src/edge/metrics-sum.ts'

function registryWith(requests: Record<string, number>, durations: readonly number[], gauge: number | null): Registry {
  const registry = new Registry()
  const counter = new Counter({ name: 'requests_total', help: 'requests', labelNames: ['route'], registers: [registry] })
  for (const [route, count] of Object.entries(requests)) counter.inc({ route }, count)
  const histogram = new Histogram({ name: 'duration_seconds', help: 'durations', buckets: [0.1, 1], registers: [registry] })
  for (const seconds of durations) histogram.observe(seconds)
  if (gauge !== null) new Gauge({ name: 'pending', help: 'pending', registers: [registry] }).set(gauge)
  return registry
}

t.test('sums what several have, keeps what one has, renders as one registry', async (t) => {
  const main = registryWith({}, [], 7)
  const first = registryWith({ '/a': 2, '/b': 1 }, [0.05, 0.5], null)
  const second = registryWith({ '/a': 3 }, [2], null)
  const text = await sumMetrics([await main.getMetricsAsJSON(), await first.getMetricsAsJSON(), await second.getMetricsAsJSON()]).metrics()
  const expected = registryWith({ '/a': 5, '/b': 1 }, [0.05, 0.5, 2], 7)
  t.equal(text, await expected.metrics(), 'the text of one registry that saw everything')
  t.match(text, /^requests_total\{route="\/a"\} 5$/m)
  t.match(text, /^duration_seconds_bucket\{le="\+Inf"\} 3$/m)
  t.match(text, /^pending 7$/m, 'a gauge of one registry once, as it is')
})

/**
 * @module Several registries' metrics as one (EDGE_THREADS=1: the main thread's and every shard thread's edge's),
 * in prom-client's JSON form (Registry.getMetricsAsJSON, which crosses threads as plain data). A metric only one
 * registry has is kept as it is (the process's, the shards' gauges: the main thread's alone); one several have
 * (the request counters and latency histograms, 429s) is their sum, sample by sample (the same name and labels).
 * The result renders as one registry does: the same Prometheus text, the metrics in the order first seen.
 */

import { Registry } from 'prom-client'

/** One metric of Registry.getMetricsAsJSON: its name, help, type and samples. */
export type MetricJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number]
type Metric = MetricJson
type Sample = MetricJson['values'][number] & { readonly metricName?: string }

/** A sample's identity: its name (a histogram has _bucket, _sum, _count) and its labels, in the order they came. */
function sampleKey(sample: Sample): string {
  return `${sample.metricName ?? ''}\u0000${JSON.stringify(sample.labels)}`
}

function summed(metrics: readonly Metric[]): Metric {
  const samples = new Map<string, Sample>()
  for (const metric of metrics) {
    for (const sample of metric.values as Sample[]) {
      const key = sampleKey(sample)
      const seen = samples.get(key)
      samples.set(key, seen === undefined ? { ...sample } : { ...seen, value: seen.value + sample.value })
    }
  }
  return { ...metrics[0], values: [...samples.values()] }
}

export function sumMetrics(parts: readonly (readonly Metric[])[]): Registry {
  const byName = new Map<string, Metric[]>()
  for (const part of parts) {
    for (const metric of part) {
      const same = byName.get(metric.name)
      if (same === undefined) byName.set(metric.name, [metric])
      else same.push(metric)
    }
  }
  const registry = new Registry()
  for (const metrics of byName.values()) {
    const metric = metrics.length === 1 ? metrics[0] : summed(metrics)
    // The registry renders what get() gives (prom-client's AggregatorRegistry registers its sums the same way).
    registry.registerMetric({ ...metric, get: () => metric } as never)
  }
  return registry
}

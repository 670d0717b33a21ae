/** @module The request latency histogram, per route: plain numbers on the request path, Prometheus samples on scrape. */

import type { Registry } from 'prom-client'

/** The bucket counts of one label set; `counts[i]` are the observations in (bounds[i-1], bounds[i]] (not cumulative). */
export class DurationSeries {
  readonly labels: Readonly<Record<string, string>>
  readonly counts: Float64Array
  sum = 0
  count = 0

  constructor(labels: Readonly<Record<string, string>>, bucketsCount: number) {
    this.labels = labels
    this.counts = new Float64Array(bucketsCount)
  }
}

interface Sample {
  readonly labels: Record<string, string | number>
  readonly sharedLabels: Readonly<Record<string, string>>
  readonly value: number
  readonly metricName: string
  readonly exemplar?: null
}

/**
 * A histogram that prom-client's registry renders as it renders its own Histogram (same samples, same
 * order: the buckets cumulative, `+Inf`, `_sum`, `_count` per label set, label sets in creation order).
 * prom-client's observe hashes the label values on every call (about a microsecond per request with
 * the counter beside it, docs/PERFORMANCE.md); here a request adds to numbers its route resolved once.
 */
export class DurationHistogram {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  readonly name: string
  readonly help: string
  readonly bounds: readonly number[]
  readonly #series: DurationSeries[] = []

  constructor(config: { readonly name: string; readonly help: string; readonly buckets: readonly number[]; readonly registers: readonly Registry[] }) {
    this.name = config.name
    this.help = config.help
    this.bounds = config.buckets
    // registerMetric is typed for prom-client's own classes; the registry only calls get() / getForPromString().
    for (const registry of config.registers) registry.registerMetric(this as never)
  }

  /** The series of these labels, present (at 0) from now on. */
  series(labels: Readonly<Record<string, string>>): DurationSeries {
    const series = new DurationSeries(labels, this.bounds.length)
    this.#series.push(series)
    return series
  }

  static observe(series: DurationSeries, bounds: readonly number[], seconds: number): void {
    series.sum += seconds
    series.count += 1
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]) {
        series.counts[i] += 1
        return
      }
    }
  }

  /** What prom-client's Registry renders (Histogram.getForPromString's shape). */
  getForPromString(): { name: string; help: string; type: string; values: Sample[]; aggregator: string } {
    const values: Sample[] = []
    const bucketName = `${this.name}_bucket`
    for (const series of this.#series) {
      let cumulative = 0
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += series.counts[i]
        values.push({ labels: { le: this.bounds[i] }, sharedLabels: series.labels, value: cumulative, metricName: bucketName, exemplar: null })
      }
      values.push({ labels: { le: '+Inf' }, sharedLabels: series.labels, value: series.count, metricName: bucketName, exemplar: null })
      values.push({ labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${this.name}_sum` })
      values.push({ labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }

  /** The JSON form (Registry.getMetricsAsJSON): shared labels merged into each sample's, as prom-client does. */
  get(): { name: string; help: string; type: string; values: { labels: Record<string, string | number>; value: number; metricName: string }[]; aggregator: string } {
    const data = this.getForPromString()
    return { ...data, values: data.values.map(({ labels, sharedLabels, value, metricName }) => ({ value, metricName, labels: { ...labels, ...sharedLabels } })) }
  }

  reset(): void {
    for (const series of this.#series) {
      series.counts.fill(0)
      series.sum = 0
      series.count = 0
    }
  }
}

import type { Metric, Registry } from 'prom-client';

export interface BucketHistogramOptions<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  /** Upper bounds, ascending (prom-client's `buckets`). */
  buckets: readonly number[];
  registers: Registry[];
}

/** One combination of label values: a count per bucket (not cumulative), the sum and the count. */
export class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    // prom-client refuses these too: a NaN would poison the sum for good.
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${String(value)}`);
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= (bounds[i] as number)) {
        (this.counts[i] as number)++;
        break;
      }
    }
    this.sum += value;
    this.count++;
  }
}

type SeriesTree = Map<string, SeriesTree | HistogramSeries>;

interface ExportedValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
  exemplar?: null;
  sharedLabels: Readonly<Record<string, string>>;
}

/**
 * A Prometheus histogram that costs a few Map lookups and an increment per observation, for metrics observed on every
 * request. prom-client's Histogram validates and hashes the label object on every observe, even through a child from
 * `labels()`; here a series is found by its label values and its buckets are made cumulative only when scraped.
 * Registered in the registry like prom-client's own, it exports the same values, so /metrics reads the same.
 */
export class BucketHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  private readonly bounds: readonly number[];
  private series: HistogramSeries[] = [];
  private tree: SeriesTree = new Map();

  constructor(options: BucketHistogramOptions<L>) {
    if (options.labelNames.length === 0) throw new Error('BucketHistogram: at least one label');
    if (options.labelNames.includes('le' as L)) throw new Error('le is a reserved label keyword');
    this.name = options.name;
    this.help = options.help;
    this.labelNames = [...options.labelNames];
    this.bounds = [...options.buckets];
    for (const registry of options.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** Counts `value` in the series of these label values, given in the order of `labelNames`. */
  observe(values: readonly string[], value: number): void {
    this.seriesOf(values).observe(value);
  }

  /** The series of these label values (in the order of `labelNames`), made on first use. */
  seriesOf(values: readonly string[]): HistogramSeries {
    const last = this.labelNames.length - 1;
    if (values.length !== last + 1) {
      throw new Error(`${this.name}: expected ${last + 1} label values, got ${values.length}`);
    }
    let node = this.tree;
    for (let i = 0; i < last; i++) {
      const value = values[i] as string;
      let next = node.get(value) as SeriesTree | undefined;
      if (!next) {
        next = new Map();
        node.set(value, next);
      }
      node = next;
    }
    const leaf = values[last] as string;
    let series = node.get(leaf) as HistogramSeries | undefined;
    if (!series) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i] as string));
      series = new HistogramSeries(labels, this.bounds);
      node.set(leaf, series);
      this.series.push(series);
    }
    return series;
  }

  reset(): void {
    this.series = [];
    this.tree = new Map();
  }

  /** What prom-client's Registry formats for /metrics: the series' values, labels kept apart as `sharedLabels`. */
  getForPromString(): Promise<{
    name: string;
    help: string;
    type: 'histogram';
    aggregator: 'sum';
    values: ExportedValue[];
  }> {
    const values: ExportedValue[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const series of this.series) {
      const shared = series.labels;
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i] as number;
        values.push({
          labels: { le: bound },
          value: cumulative,
          metricName: bucketName,
          exemplar: null,
          sharedLabels: shared,
        });
      });
      values.push(
        { labels: { le: '+Inf' }, value: series.count, metricName: bucketName, exemplar: null, sharedLabels: shared },
        { labels: {}, value: series.sum, metricName: `${this.name}_sum`, sharedLabels: shared },
        { labels: {}, value: series.count, metricName: `${this.name}_count`, sharedLabels: shared },
      );
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  /** As prom-client's `get()`: each value's labels with the series' labels merged in. */
  async get() {
    const exported = await this.getForPromString();
    const values = exported.values.map(({ sharedLabels, labels, ...rest }) => ({
      ...rest,
      labels: { ...labels, ...sharedLabels },
    }));
    return { ...exported, values };
  }
}

// A time-series chart drawn by uPlot (small, no dependencies, canvas), with the same numbers as a table for screen
// readers and for browsers without canvas (the chart is skipped there: happy-dom in component tests has none).
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  /** A CSS colour with enough contrast on white. */
  colour: string;
  values: (number | null)[];
  format: (value: number | null) => string;
}

const canDraw = () => typeof document !== 'undefined' && document.createElement('canvas').getContext('2d') !== null;

export function TimeChart({
  title,
  times,
  series,
  height = 220,
}: {
  title: string;
  /** Bucket starts, ISO 8601. */
  times: readonly string[];
  series: readonly ChartSeries[];
  height?: number;
}) {
  const target = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = target.current;
    if (!element || !canDraw()) return;
    const width = () => Math.max(280, element.clientWidth);
    const chart = new uPlot(
      {
        width: width(),
        height,
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: s.colour,
            fill: `${s.colour}33`,
            width: 2,
            points: { show: true, size: 5 },
            value: (_u: uPlot, v: number | null) => s.format(v),
          })),
        ],
        axes: [{}, { size: 60 }],
      },
      [times.map((t) => Date.parse(t) / 1000), ...series.map((s) => s.values)],
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: width(), height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [times, series, height]);

  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div ref={target} className="chart-canvas" aria-hidden="true" />
      <details>
        <summary>{title} as a table</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">From</th>
              {series.map((s) => (
                <th key={s.label} scope="col">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {times.map((t, i) => (
              <tr key={t}>
                <th scope="row">{new Date(t).toLocaleString()}</th>
                {series.map((s) => (
                  <td key={s.label}>{s.format(s.values[i] ?? null)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

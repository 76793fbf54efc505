// A connection test: the verdict, then each check (resolve, connect, authenticate...) with its latency, so a user
// sees which step failed and whether to fix the settings or try again.
import type { ConnectionTestResult } from '@conduit/sdk';
import { formatDuration, formatTime } from '../ui/format.js';

const ADVICE: Record<string, string> = {
  config_error: 'Fix the settings, save, and test again.',
  transient_error: 'The server may be busy or restarting: try again in a moment.',
};

export function TestResult({ result }: { result: ConnectionTestResult }) {
  return (
    <section aria-labelledby="test-title" className={`state ${result.ok ? 'state-ok' : 'state-error'}`}>
      <h2 id="test-title">
        {result.ok ? 'Connection works' : 'Connection failed'} ({formatDuration(Math.round(result.latency_ms))})
      </h2>
      <p>{result.message}</p>
      {result.error_class && <p>{ADVICE[result.error_class] ?? result.error_class}</p>}
      <table className="checks">
        <caption>Checks, in order, tested {formatTime(result.tested_at)}</caption>
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col">Result</th>
            <th scope="col">Latency</th>
            <th scope="col">Message</th>
          </tr>
        </thead>
        <tbody>
          {result.checks.map((check, index) => (
            <tr key={`${index}-${check.name}`}>
              <th scope="row">{check.name}</th>
              <td>
                <span className={`badge state-${check.ok ? 'succeeded' : 'failed'}`}>{check.ok ? 'ok' : 'failed'}</span>
              </td>
              <td>{formatDuration(Math.round(check.latency_ms))}</td>
              <td>{check.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

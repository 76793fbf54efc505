// The tenant's connectors, grouped by their type's category (database, files, messaging...), each with its last test.
import type { Connector, ConnectorType } from '@conduit/sdk';
import { Link } from '../routing/router.js';
import { paths } from '../routing/routes.js';
import { useSession } from '../session/session-context.js';
import { Empty, ErrorState, Loading } from '../ui/states.js';
import { useLoad } from '../ui/use-load.js';

/** Connectors by category, categories in alphabetical order; a type the API no longer lists goes under "other". */
export function byCategory(connectors: readonly Connector[], types: readonly ConnectorType[]): [string, Connector[]][] {
  const categoryOf = new Map(types.map((t) => [t.type, t.category]));
  const groups = new Map<string, Connector[]>();
  for (const connector of connectors) {
    const category = categoryOf.get(connector.type) ?? 'other';
    groups.set(category, [...(groups.get(category) ?? []), connector]);
  }
  return [...groups].sort(([a], [b]) => a.localeCompare(b));
}

export function ConnectorsPage() {
  const { client } = useSession();
  const loaded = useLoad(async () => {
    const [connectors, types] = await Promise.all([
      client.connectors.list({ pageSize: 200 }).toArray(1000),
      client.connectors.types(),
    ]);
    return byCategory(connectors, types);
  }, [client]);

  return (
    <section aria-labelledby="connectors-title">
      <div className="toolbar">
        <h1 id="connectors-title">Connectors</h1>
        <Link to={paths.newConnector()} className="button">
          New connector
        </Link>
      </div>
      {loaded.state === 'loading' && <Loading what="connectors" />}
      {loaded.state === 'failed' && <ErrorState error={loaded.error} retry={loaded.reload} />}
      {loaded.state === 'ready' && loaded.value.length === 0 && (
        <Empty>
          <p>No connectors yet.</p>
          <p>
            Press “New connector” to add a database, a file store or a message broker, then test it before pipelines use
            it.
          </p>
        </Empty>
      )}
      {loaded.state === 'ready' &&
        loaded.value.map(([category, connectors]) => (
          <section key={category} aria-labelledby={`category-${category}`}>
            <h2 id={`category-${category}`}>{category}</h2>
            <ul className="cards">
              {connectors.map((connector) => (
                <li key={connector.id} className="card">
                  <Link to={paths.connector(connector.id)}>{connector.name}</Link>{' '}
                  <span className={`badge connector-${connector.status}`}>{connector.status}</span>
                  <p>
                    {connector.type}
                    {connector.last_test && ` · ${connector.last_test.message}`}
                  </p>
                </li>
              ))}
            </ul>
          </section>
        ))}
    </section>
  );
}

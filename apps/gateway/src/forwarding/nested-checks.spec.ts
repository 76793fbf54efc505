import { CONNECTOR_CONFIG, DAG_SHAPE, nestedFaults } from './nested-checks.js';

const fault = (path: string) => ({ path, code: 'invalid_type', message: 'm' });
const dag = DAG_SHAPE.create!;
const config = CONNECTOR_CONFIG.create!;

describe('nestedFaults', () => {
  const body = { dag: { nodes: [{ id: 1 }], edges: [] }, type: 'postgres', config: { host: 1 } };

  it("reports a field's faults beside the body's others", () => {
    expect(nestedFaults(dag, body, [fault('name'), fault('dagger'), fault('k.dag')]).map((f) => f.path)).toEqual([
      'dag.nodes[0].id',
      'dag.nodes[0].type',
      'dag.nodes[0].config',
    ]);
    expect(nestedFaults(config, body, [fault('name')]).map((f) => f.path)).toEqual(
      expect.arrayContaining(['config.host', 'config.database', 'config.user']),
    );
  });

  it('reports nothing inside a field the body already has at fault as a whole', () => {
    for (const path of ['dag', 'dag.nodes', 'dag[0]'])
      expect(nestedFaults(dag, body, [fault('name'), fault(path)])).toEqual([]);
    expect(nestedFaults(config, body, [fault('config')])).toEqual([]);
  });

  it("caps a config's faults at 100, beside any number of the body's own", () => {
    const long = Array.from({ length: 20_000 }, (_, i) => fault(`${'.'.repeat(50)}${i}`));
    const many = {
      type: 'postgres',
      config: Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`c${i}`, 0])),
    };
    expect(nestedFaults(config, many, long)).toHaveLength(100);
  });

  it('checks a new connector only: an update is judged against the stored type', () => {
    expect(CONNECTOR_CONFIG.update).toBeUndefined();
    expect(config.faults({ type: 'no-such-type', config: {} })).toEqual([]);
  });
});

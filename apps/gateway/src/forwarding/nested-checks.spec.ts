import { withoutFaultsWithin } from './nested-checks.js';

const fault = (path: string) => ({ path, code: 'invalid_type', message: 'm' });

describe('withoutFaultsWithin', () => {
  it('drops the nested faults inside a field at fault as a whole, keeps the rest', () => {
    const nested = ['dag.nodes[0].id', 'dag.edges', 'dagger', 'config.port', 'config', 'configs.x'].map(fault);
    expect(withoutFaultsWithin(nested, [fault('dag')]).map((f) => f.path)).toEqual([
      'dagger',
      'config.port',
      'config',
      'configs.x',
    ]);
    expect(withoutFaultsWithin(nested, [fault('dag.nodes[0]'), fault('config')]).map((f) => f.path)).toEqual([
      'dag.edges',
      'dagger',
      'configs.x',
    ]);
    expect(withoutFaultsWithin(nested, [])).toEqual(nested);
  });
});

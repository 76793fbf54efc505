import { jestConfig } from '../../jest.preset.js';
// The tests' connectors use servers on this machine, which the default network policy refuses unless the operator
// allows private networks; the tests of the default policy unset it themselves.
process.env.CONNECTOR_ALLOW_PRIVATE_NETWORKS ??= 'true';
export default jestConfig();

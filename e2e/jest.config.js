import { jestConfig } from '../jest.preset.js';
export default jestConfig({
  testMatch: ['<rootDir>/**/*.e2e.ts'],
  testTimeout: 120000,
  globalSetup: '<rootDir>/support/platform-server-setup.mjs',
  globalTeardown: '<rootDir>/support/platform-server-teardown.mjs',
});

import { jestConfig } from '../jest.preset.js';
export default jestConfig({ testMatch: ['<rootDir>/**/*.e2e.ts'], testTimeout: 120000 });

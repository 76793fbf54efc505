// Jest global teardown: stops the platform's server that platform-server-setup.mjs started.
export default async function teardown() {
  await globalThis.conduitPlatformServer?.destroy();
}

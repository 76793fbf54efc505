/**
 * Webhook secrets at rest are bound to their tenant and webhook and name the key that sealed them: a secret copied
 * onto another webhook is never used to sign (the attempt fails, naming no secret), values of the earlier format
 * (`v1:`, bound to the webhook id) still sign and are re-sealed, and SECRETS_KEY rotates without a secret lost.
 */
import { describe, expect, it } from '@jest/globals';
import { useDispatcherSuite } from './support/dispatcher-suite.js';
import { createCipheriv, randomBytes } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import type { Delivery, Page, Webhook } from '@conduit/contracts';
import { SecretBox, keyIdOf } from '@conduit/secrets';
import { openWebhookSecret } from '../src/security/secret-box.js';
import { resealWebhookSecrets } from '../src/webhooks/webhook-reseal.js';
import { newTenant } from './support/db.js';
import { TEST_SECRETS_KEY } from './support/dispatcher-app.js';
import { waitFor } from '@conduit/testing';

const suite = useDispatcherSuite({
  dispatcher: { allowHttp: true, allowPrivateNetworks: true, retryScheduleMs: [], timeoutMs: 1000 },
});
const { caller, receiver } = suite;

const secretOf = () => `whk-secret-${randomBytes(12).toString('hex')}`;

async function createWebhook(tenant: string, url: string, secret: string): Promise<Webhook> {
  return caller.ok<Webhook>(tenant, 'webhooks.webhooks.create', { body: { url, events: ['job.failed'], secret } });
}

async function storedSecret(id: string): Promise<string> {
  const [row] = await suite.ds.query<
    {
      secret_sealed: string;
    }[]
  >(`SELECT secret_sealed FROM webhooks WHERE id = $1`, [id]);
  if (!row) throw new Error(`webhook ${id} is not stored`);
  return row.secret_sealed;
}

async function setStoredSecret(id: string, sealed: string): Promise<void> {
  await suite.ds.query(`UPDATE webhooks SET secret_sealed = $1 WHERE id = $2`, [sealed, id]);
}

/** A secret as the dispatcher stored it before key ids: `v1:`, bound to the webhook id only. */
function v1Sealed(key: Buffer, plain: string, webhookId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(webhookId, 'utf8'));
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return 'v1:' + Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64');
}

/** Pings the webhook and answers its one finished attempt. */
async function ping(tenant: string, webhookId: string): Promise<Delivery> {
  const first = await caller.ok<Delivery>(tenant, 'webhooks.webhooks.test', { id: webhookId });
  return waitFor(
    async () => {
      const page = await caller.ok<Page<Delivery>>(tenant, 'webhooks.deliveries.list', {
        webhook_id: webhookId,
        query: { limit: 10 },
      });
      return page.data.find((d) => d.event_id === first.event_id && d.status !== 'pending');
    },
    { what: 'the ping attempt to finish' },
  );
}

describe('a webhook secret copied onto another webhook', () => {
  it.each([
    ['of the same tenant', false],
    ['of another tenant', true],
  ])('does not open on a webhook %s: its attempt fails unsent, naming no secret', async (_, otherTenant) => {
    const victimTenant = newTenant();
    const thiefTenant = otherTenant ? newTenant() : victimTenant;
    const secret = secretOf();
    const victim = await createWebhook(victimTenant, receiver.endpoint().url, secret);
    const hook = receiver.endpoint();
    const thief = await createWebhook(thiefTenant, hook.url, secretOf());
    await setStoredSecret(thief.id, await storedSecret(victim.id));

    const copied = await storedSecret(thief.id);
    expect(() => openWebhookSecret(new SecretBox(TEST_SECRETS_KEY), thiefTenant, thief.id, copied)).toThrow(
      /could not be decrypted/,
    );
    const attempt = await ping(thiefTenant, thief.id);
    expect(attempt).toMatchObject({ status: 'failed', status_code: null });
    expect(attempt.error).toMatch(
      /^not sent: the webhook secret could not be decrypted: .*set the webhook's secret again$/,
    );
    expect(receiver.requests(hook.path)).toHaveLength(0);
    expect(JSON.stringify(attempt) + suite.dispatcher.logs()).not.toContain(secret);
  });
});

describe('re-seal and rotation', () => {
  it('signs with a stored v1: secret, re-seals it bound to tenant and webhook once, and still signs', async () => {
    const t = newTenant();
    const secret = secretOf();
    const hook = receiver.endpoint();
    const webhook = await createWebhook(t, hook.url, secretOf());
    await setStoredSecret(webhook.id, v1Sealed(TEST_SECRETS_KEY, secret, webhook.id));
    expect((await ping(t, webhook.id)).status).toBe('succeeded');

    const box = new SecretBox(TEST_SECRETS_KEY);
    expect(await resealWebhookSecrets(suite.ds, box)).toMatchObject({ resealed: 1, unreadable: 0, skipped: false });
    const resealed = await storedSecret(webhook.id);
    expect(resealed).toMatch(new RegExp(`^enc:v2:${keyIdOf(TEST_SECRETS_KEY)}:`));
    expect(openWebhookSecret(box, t, webhook.id, resealed)).toBe(secret);
    expect(() => openWebhookSecret(box, newTenant(), webhook.id, resealed)).toThrow(/could not be decrypted/);
    expect(await resealWebhookSecrets(suite.ds, box)).toMatchObject({ resealed: 0 });

    expect((await ping(t, webhook.id)).status).toBe('succeeded');
    const signed = receiver.requests(hook.path).at(-1);
    expect(
      new StandardWebhook(Buffer.from(secret, 'utf8').toString('base64')).verify(signed!.body, signed!.headers),
    ).toMatchObject({ type: 'ping' });
  });

  it('seal with A, rotate to B with A previous, re-seal, remove A: the secret still opens', async () => {
    const keyB = randomBytes(32);
    const t = newTenant();
    const secret = secretOf();
    const webhook = await createWebhook(t, receiver.endpoint().url, secret);
    const underA = await storedSecret(webhook.id);
    expect(underA).toMatch(new RegExp(`^enc:v2:${keyIdOf(TEST_SECRETS_KEY)}:`));

    // B alone does not open A's value: a rotation must list A in SECRETS_KEYS_PREVIOUS until the re-seal ran.
    expect(() => openWebhookSecret(new SecretBox(keyB), t, webhook.id, underA)).toThrow(
      /sealed under a key that is not configured/,
    );
    const rotating = new SecretBox({ current: keyB, previous: [TEST_SECRETS_KEY] });
    const outcome = await resealWebhookSecrets(suite.ds, rotating);
    expect(outcome.resealed).toBeGreaterThanOrEqual(1);
    expect(await storedSecret(webhook.id)).toMatch(new RegExp(`^enc:v2:${keyIdOf(keyB)}:`));
    expect(openWebhookSecret(new SecretBox(keyB), t, webhook.id, await storedSecret(webhook.id))).toBe(secret);
  });
});

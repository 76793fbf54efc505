/**
 * Publishes each row as a persistent JSON message on a confirm channel, waiting for the broker's confirms after
 * every batch. The target is `exchange` + `routing_key`, or `queue` (through the default exchange).
 */
import type { ConfirmChannel } from 'amqplib';
import { once } from 'node:events';
import { ConnectorError } from '../connector-error.js';
import { encodeMessage } from '../messaging/message-json.js';
import type { Row, WriteRequest } from '../types.js';
import type { AmqpConfig } from './amqp.config.js';
import { amqpSecrets, closeAmqp, connectAmqp, toAmqpError } from './connection.js';

function targetOf(req: WriteRequest): { exchange: string; routingKey: string } {
  const exchange = req['exchange'];
  const queue = req['queue'];
  const routingKey = req['routing_key'];
  if (typeof exchange === 'string' && exchange !== '') {
    return { exchange, routingKey: typeof routingKey === 'string' ? routingKey : '' };
  }
  if (typeof queue === 'string' && queue !== '') return { exchange: '', routingKey: queue };
  throw new ConnectorError('an amqp write needs an exchange (with routing_key) or a queue', 'config_error');
}

async function publish(channel: ConfirmChannel, exchange: string, routingKey: string, row: Row): Promise<void> {
  const accepted = channel.publish(exchange, routingKey, encodeMessage(row), {
    persistent: true,
    mandatory: true,
    contentType: 'application/json',
  });
  if (!accepted) await once(channel, 'drain');
}

export async function publishRows(
  cfg: AmqpConfig,
  req: WriteRequest,
  batches: AsyncIterable<Row[]>,
): Promise<{ rows_written: number }> {
  const { signal } = req;
  const { exchange, routingKey } = targetOf(req);
  const secrets = amqpSecrets(cfg);
  const connection = await connectAmqp(cfg, signal).catch((err: unknown) => {
    throw toAmqpError(err, secrets, signal);
  });
  connection.on('error', () => undefined);
  let written = 0;
  try {
    const channel = await connection.createConfirmChannel();
    let channelError: Error | undefined;
    channel.on('error', (err: Error) => (channelError = err));
    // A message the broker cannot route (no such queue / binding) is returned: refuse rather than lose it.
    channel.on(
      'return',
      () =>
        (channelError ??= new ConnectorError(
          `a message to "${exchange || routingKey}" could not be routed`,
          'config_error',
        )),
    );
    for await (const batch of batches) {
      signal?.throwIfAborted();
      for (const row of batch) {
        await publish(channel, exchange, routingKey, row);
      }
      await channel.waitForConfirms();
      if (channelError) throw channelError;
      written += batch.length;
    }
    await channel.close();
  } catch (err) {
    throw toAmqpError(err, secrets, signal);
  } finally {
    await closeAmqp(connection);
  }
  return { rows_written: written };
}

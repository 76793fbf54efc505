/** A connection to the local RabbitMQ for arranging and checking queues; fails loudly when the broker is absent. */
import amqp, { type Channel, type ChannelModel } from 'amqplib';

export const AMQP_CONFIG = { host: '127.0.0.1', port: 5672, username: 'guest', password: 'guest' };

export interface AmqpAdmin {
  channel: Channel;
  connection: ChannelModel;
  close(): Promise<void>;
}

export async function connectAmqpAdmin(): Promise<AmqpAdmin> {
  let connection: ChannelModel;
  try {
    connection = await amqp.connect('amqp://guest:guest@127.0.0.1:5672', { timeout: 5000 });
  } catch (err) {
    throw new Error(`these tests need RabbitMQ at 127.0.0.1:5672 (guest/guest): ${(err as Error).message}`, {
      cause: err,
    });
  }
  const channel = await connection.createChannel();
  return { connection, channel, close: () => connection.close() };
}

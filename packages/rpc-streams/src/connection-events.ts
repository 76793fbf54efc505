import type { Redis } from 'ioredis';

/** Events `on()` accepts; each callback first gets the name of the connection that emitted it. */
export type RedisStreamsEvents = {
  error: (connection: string, err: Error) => void;
  ready: (connection: string) => void;
  reconnecting: (connection: string) => void;
  end: (connection: string) => void;
};

export type RedisStreamsStatus = 'connected' | 'reconnecting' | 'disconnected';

export interface ConnectionListener {
  event: keyof RedisStreamsEvents;
  callback: (connection: string, ...args: unknown[]) => void;
}

/** Forwards an ioredis event from named connections to a user callback. */
export function attachListener(connections: Record<string, Redis>, listener: ConnectionListener): void {
  for (const [name, connection] of Object.entries(connections)) {
    connection.on(listener.event, (...args: unknown[]) => listener.callback(name, ...args));
  }
}

/**
 * Turns connection events into transport status, as Nest's own transports do: every
 * connection ready -> connected, any reconnecting -> reconnecting, any ended -> disconnected.
 */
export function trackStatus(
  connections: Redis[],
  emit: (status: RedisStreamsStatus) => void,
  isClosing: () => boolean,
): void {
  for (const connection of connections) {
    connection.on('ready', () => {
      if (connections.every((c) => c.status === 'ready')) emit('connected');
    });
    connection.on('reconnecting', () => {
      if (!isClosing()) emit('reconnecting');
    });
    connection.on('end', () => {
      if (!isClosing()) emit('disconnected');
    });
  }
}

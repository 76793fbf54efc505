export { OutboxRelay, type OutboxRelayOptions, type OutboxRow } from './outbox-relay.js';
export { writeOutbox, type OutboxMessage } from './outbox-writer.js';

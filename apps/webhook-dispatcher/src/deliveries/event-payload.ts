import {
  WEBHOOK_KIND_OF_RUN_EVENT,
  type AlertEvent,
  type RunEvent,
  type WebhookEventType,
  type WebhookPayload,
  type WebhookSourceEvent,
} from '@conduit/contracts';

/** The webhook kind of a source event, or null for one no webhook can subscribe to. */
export function webhookKindOf(event: WebhookSourceEvent): WebhookEventType | null {
  if (event.type === 'alert.opened' || event.type === 'alert.resolved') return event.type;
  return WEBHOOK_KIND_OF_RUN_EVENT[event.type] ?? null;
}

function runData(event: RunEvent): Record<string, unknown> {
  const r = event.run;
  return {
    job_id: r.job_id,
    run_id: r.id,
    pipeline_id: r.pipeline_id,
    status: r.status,
    trigger: r.trigger,
    started_at: r.started_at,
    finished_at: r.finished_at,
    duration_ms: r.duration_ms,
    error: r.error,
  };
}

function alertData(event: AlertEvent): Record<string, unknown> {
  return { ...event.alert };
}

/** What a webhook receives for the event (api.md): `{ id, type, created_at, data }`; null when it is not sent. */
export function webhookPayloadOf(event: WebhookSourceEvent): WebhookPayload | null {
  const type = webhookKindOf(event);
  if (type === null) return null;
  const data = 'run' in event ? runData(event) : alertData(event);
  return { id: event.event_id, type, created_at: event.created_at, data };
}

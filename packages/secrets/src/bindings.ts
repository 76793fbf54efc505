/**
 * The additional data of each stored secret: what binds it to where it belongs, so a ciphertext copied to another
 * field, resource or tenant does not open there. JSON arrays, so no id can be crafted to read as another.
 */

/** A connector's secret field at rest: its tenant, its connector and the field. */
export function connectorSecretAad(tenantId: string, connectorId: string, field: string): string {
  return JSON.stringify(['connector-secret', tenantId, connectorId, field]);
}

/** A webhook's signing secret at rest: its tenant and its webhook. */
export function webhookSecretAad(tenantId: string, webhookId: string): string {
  return JSON.stringify(['webhook-secret', tenantId, webhookId]);
}

/**
 * What v1 values at rest were bound to (before key ids): a connector secret to its field name only, a webhook secret
 * to its webhook id only. Read only, until the re-seal has sealed them again with the bindings above.
 */
export const V1_BINDING = {
  connectorSecret: (field: string): string => field,
  webhookSecret: (webhookId: string): string => webhookId,
} as const;

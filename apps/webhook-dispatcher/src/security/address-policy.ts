/**
 * Which addresses a webhook may reach: the connectors' one network policy (@conduit/connectors), so webhooks and
 * connectors refuse the same forms (NAT64, 6to4, Teredo, IPv4 written as IPv6, TEST-NET, multicast, reserved...).
 * Internal ranges are refused unless the operator allows private networks; cloud metadata addresses and the
 * platform's own Redis and database are refused whatever the settings.
 */
import { assertNotPlatform, refusalReason } from '@conduit/connectors';

/** Why a webhook may not reach `address` on `port`, or null when it may. */
export async function webhookAddressRefusal(
  address: string,
  port: number,
  allowPrivateNetworks: boolean,
): Promise<string | null> {
  const reason = refusalReason(address, { allowPrivateNetworks, allowedNetworks: [] });
  if (reason) return reason;
  try {
    await assertNotPlatform({ connectorType: 'webhook', address, port });
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

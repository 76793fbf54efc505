/** A pending attempt taken by this process (its row's claimed_at set), with what sending it needs. */
export interface ClaimedAttempt {
  id: string;
  tenant_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  /** The claim's own mark (claimed_at, ms precision as stored): an outcome is written only while the claim is still ours. */
  claimed_at: Date;
  url: string;
  webhook_status: 'active' | 'disabled';
  secret_sealed: string;
  body: string;
}

/**
 * GCRA (the generic cell rate algorithm, as in redis-cell and Stripe's limiter) in one Lua script:
 * one key per credential holding its "theoretical arrival time" (TAT) in microseconds. It allows a
 * burst of `limit` requests, then one every 60 s / limit, refusing exactly once the bucket is empty.
 * Chosen over a sliding log (memory grows with the limit) and fixed windows (double bursts at the
 * edges). Time comes from Redis, so replicas with skewed clocks agree.
 *
 * A call takes up to `wanted` requests' worth at once (a gateway replica's lease, see rate-limiter.ts):
 * as many as the bucket holds, at least one or none.
 *
 * KEYS[1] bucket key; ARGV[1] limit per minute; ARGV[2] wanted (>= 1).
 * Returns { granted (0 = refused), remaining, reset_us (until the bucket is full again), retry_after_us }.
 */
export const GCRA_SCRIPT = `
local limit = tonumber(ARGV[1])
local wanted = tonumber(ARGV[2])
local window = 60000000
local interval = window / limit
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local available = math.floor((now + window - tat) / interval)
if available < 1 then
  return { 0, 0, math.ceil(tat - now), math.ceil(tat + interval - window - now) }
end
local granted = math.min(wanted, available)
local new_tat = tat + granted * interval
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX', math.ceil((new_tat - now) / 1000))
return { granted, available - granted, math.ceil(new_tat - now), 0 }
`;

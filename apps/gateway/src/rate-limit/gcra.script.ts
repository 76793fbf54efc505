/**
 * GCRA (the generic cell rate algorithm, as in redis-cell and Stripe's limiter) in one Lua script:
 * one key per credential holding its "theoretical arrival time" (TAT) in microseconds. It allows a
 * burst of `limit` requests, then one every 60 s / limit, refusing exactly once the bucket is empty.
 * Chosen over a sliding log (memory grows with the limit) and fixed windows (double bursts at the
 * edges). Time comes from Redis, so replicas with skewed clocks agree.
 *
 * KEYS[1] bucket key; ARGV[1] limit per minute.
 * Returns { allowed (1/0), remaining, reset_us (until the bucket is full again), retry_after_us }.
 */
export const GCRA_SCRIPT = `
local limit = tonumber(ARGV[1])
local window = 60000000
local interval = window / limit
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local new_tat = tat + interval
local allow_at = new_tat - window
if now < allow_at then
  return { 0, 0, math.ceil(tat - now), math.ceil(allow_at - now) }
end
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX', math.ceil((new_tat - now) / 1000))
local remaining = math.floor((now - allow_at) / interval)
return { 1, remaining, math.ceil(new_tat - now), 0 }
`;

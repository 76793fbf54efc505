/** Bucket sizes a series may use, in seconds, smallest first: round numbers a chart reads well. */
const SIZES_S = [1, 5, 10, 30, 60, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800];
/**
 * A window spans at most this many bucket sizes. Buckets are aligned on the epoch, so a window that does not start on a
 * boundary touches one more: a series has at most MAX_BUCKETS + 1 buckets, the first and last partial.
 */
export const MAX_BUCKETS = 60;

/** The smallest round bucket size that covers a window of `windowS` seconds in at most MAX_BUCKETS buckets. */
export function bucketSizeFor(windowS: number): number {
  return SIZES_S.find((size) => windowS / size <= MAX_BUCKETS) ?? SIZES_S[SIZES_S.length - 1]!;
}

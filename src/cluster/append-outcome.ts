/**
 * @module A group commit's append that survives a failover of the database (docs/CLUSTER.md, "A group commit in
 * flight"). When the append's answer is lost (the connection dropped, the server shut down or turned read only), the
 * append may or may not have committed: a commit that reached a synchronous standby survives on the promoted one,
 * one that did not is gone. The outcome is settled on whichever server is the primary now, by reading back the
 * shard's rows for those seqs (after any append holding the placement row has finished):
 *
 * - all there, under this owner's epoch, byte for byte: it committed; the group's answers may go out;
 * - none there, and the placement still this owner's at this epoch: it did not; it is appended again (fenced as
 *   always, so it is never written twice: the primary key (shard, seq) would refuse a second copy anyway);
 * - anything else (other rows at those seqs, the placement another's): the shard was taken over; FencedError;
 * - no answer from any server within the window: AppendOutcomeUnknown; the caller steps down, so the group's
 *   answers are errors, never a 2xx for a write that might not be in the database.
 */

import { isFailoverError } from './pg-connect.js'
import { FencedError, type OwnedShard, type PgLog } from './pg-log.js'

/**
 * How long an append's unknown outcome is worked on (reconnecting, reading back, appending again) before giving up;
 * a try started within it may still wait for PrimaryPool's find window (30 s), so the answers wait at most about 55 s.
 */
export const outcomeWindowMs = 25_000
const backoffFirstMs = 100
const backoffLastMs = 2_000

/** The database could not be asked within the window: whether the group commit is in it is unknown. */
export class AppendOutcomeUnknown extends Error {
  constructor(readonly shard: number, readonly firstSeq: number, readonly lastSeq: number, cause: unknown) {
    super(`shard ${shard}: whether seqs ${firstSeq}..${lastSeq} reached the database is unknown (${cause instanceof Error ? cause.message : String(cause)})`)
    this.name = 'AppendOutcomeUnknown'
  }
}

/** Errors after which the append's outcome is unknown, or known to be committed (a duplicate key: an earlier try's rows). */
function leavesOutcomeOpen(error: unknown): boolean {
  if (error instanceof FencedError) return false
  return isFailoverError(error) || (error as { code?: unknown }).code === '23505'
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** 'committed' when the rows read back are this append's; 'absent' when none are and the shard is still ours. */
async function settle(log: PgLog, owned: OwnedShard, firstSeq: number, records: readonly Uint8Array[]): Promise<'committed' | 'absent'> {
  const found = await log.readBack(owned.shard, firstSeq, records.length)
  const ours = found.records.length === records.length && found.records.every((row, index) =>
    row.seq === firstSeq + index && row.epoch === owned.epoch && row.record.equals(records[index]))
  if (ours) {
    owned.confirm(firstSeq, records.length)
    return 'committed'
  }
  const held = found.placement !== null && found.placement.owner === log.node && found.placement.epoch === owned.epoch
  if (found.records.length > 0 || !held) throw new FencedError(owned.shard, owned.epoch)
  return 'absent'
}

/**
 * Appends one group commit; resolves once it is in the database (settled as above after a failover). Rejects with
 * FencedError, AppendOutcomeUnknown, or an error after which nothing was written (the statement itself refused).
 */
export async function appendThroughFailover(log: PgLog, owned: OwnedShard, records: readonly Uint8Array[], windowMs = outcomeWindowMs): Promise<void> {
  const firstSeq = owned.nextSeq
  let last: unknown
  try {
    await owned.append(records)
    return
  } catch (error) {
    if (!leavesOutcomeOpen(error)) throw error
    last = error
  }
  const deadline = Date.now() + windowMs
  for (let backoffMs = backoffFirstMs; Date.now() < deadline; backoffMs = Math.min(backoffMs * 2, backoffLastMs)) {
    try {
      if (await settle(log, owned, firstSeq, records) === 'committed') return
      await owned.append(records)
      return
    } catch (error) {
      if (!leavesOutcomeOpen(error)) throw error
      last = error
    }
    await sleep(Math.min(backoffMs, Math.max(0, deadline - Date.now())))
  }
  throw new AppendOutcomeUnknown(owned.shard, firstSeq, firstSeq + records.length - 1, last)
}

/** @module The rate budgets of every workspace: a read bucket and a write bucket each, following admin limits. */

import type { WorkspaceRecord } from '../ledger/system.js'
import { TokenBucket } from './rate-limit.js'

export interface WorkspaceBuckets {
  readonly reads: TokenBucket
  readonly writes: TokenBucket
}

export class RateBuckets {
  readonly #buckets = new Map<string, WorkspaceBuckets>()

  /**
   * The buckets of a workspace, created full on first use. A limit changed since the last request applies
   * as of the change (the PATCH's time), not as of now: the time between refills at the new rate.
   */
  of(workspace: WorkspaceRecord, nowMs: number): WorkspaceBuckets {
    let buckets = this.#buckets.get(workspace.id)
    if (buckets === undefined) {
      buckets = { reads: new TokenBucket(workspace.limits.reads_per_minute, nowMs), writes: new TokenBucket(workspace.limits.writes_per_minute, nowMs) }
      this.#buckets.set(workspace.id, buckets)
    }
    // A change stamped after now (the clock stepped back since) counts from now: no refill for time not yet passed.
    const changedAtMs = Math.min(workspace.limitsChangedAtMs, nowMs)
    if (buckets.reads.limitPerMinute !== workspace.limits.reads_per_minute) buckets.reads.setRate(workspace.limits.reads_per_minute, changedAtMs)
    if (buckets.writes.limitPerMinute !== workspace.limits.writes_per_minute) buckets.writes.setRate(workspace.limits.writes_per_minute, changedAtMs)
    return buckets
  }
}

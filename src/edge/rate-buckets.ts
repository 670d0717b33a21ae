/** @module The rate budgets of every workspace: a read bucket and a write bucket each, following admin limits. */

import type { WorkspaceRecord } from '../ledger/system.js'
import { TokenBucket } from './rate-limit.js'

export interface WorkspaceBuckets {
  readonly reads: TokenBucket
  readonly writes: TokenBucket
}

export class RateBuckets {
  readonly #buckets = new Map<string, WorkspaceBuckets>()

  /** The buckets of a workspace, created full on first use; limit changes apply at once. */
  of(workspace: WorkspaceRecord, nowMs: number): WorkspaceBuckets {
    let buckets = this.#buckets.get(workspace.id)
    if (buckets === undefined) {
      buckets = { reads: new TokenBucket(workspace.limits.reads_per_minute, nowMs), writes: new TokenBucket(workspace.limits.writes_per_minute, nowMs) }
      this.#buckets.set(workspace.id, buckets)
    }
    if (buckets.reads.limitPerMinute !== workspace.limits.reads_per_minute) buckets.reads.setRate(workspace.limits.reads_per_minute, nowMs)
    if (buckets.writes.limitPerMinute !== workspace.limits.writes_per_minute) buckets.writes.setRate(workspace.limits.writes_per_minute, nowMs)
    return buckets
  }
}

/** @module When a workspace whose last snapshot write failed is tried again: at the next check, then after a bounded, doubling wait. */

/** The longest wait between attempts, in snapshot checks (at 5 s a check, about five minutes). */
export const snapshotRetryChecksMax = 63

interface Retry {
  failures: number
  /** Checks still to let pass before the next attempt. */
  checksLeft: number
}

/**
 * A snapshot is an optimisation (the log is complete without it), but one that failed should not wait for
 * another full interval of commands: the workspace is due again at the next check, and after repeated
 * failures (a full disk) every 2, 4, … checks, at most every snapshotRetryChecksMax + 1.
 */
export class SnapshotRetries {
  readonly #retries = new Map<string, Retry>()

  /** Whether the workspace's snapshot is due at this check: as its interval says, or as its retry says after a failure. */
  due(workspaceId: string, intervalReached: boolean): boolean {
    const retry = this.#retries.get(workspaceId)
    if (retry === undefined) return intervalReached
    if (retry.checksLeft === 0) return true
    retry.checksLeft--
    return false
  }

  failed(workspaceId: string): void {
    const failures = (this.#retries.get(workspaceId)?.failures ?? 0) + 1
    this.#retries.set(workspaceId, { failures, checksLeft: Math.min(2 ** (failures - 1) - 1, snapshotRetryChecksMax) })
  }

  succeeded(workspaceId: string): void {
    this.#retries.delete(workspaceId)
  }

  /** Consecutive failures of the workspace's snapshot writes; 0 once one commits. */
  failures(workspaceId: string): number {
    return this.#retries.get(workspaceId)?.failures ?? 0
  }
}

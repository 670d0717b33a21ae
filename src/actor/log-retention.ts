/** @module Log retention: records no recovery reads are deleted once older than the setting, in small background batches. */

import { setImmediate as nextTurn } from 'node:timers/promises'
import { snapshotSeqsOnDisk, type SnapshotSeqs } from '../log/snapshot.js'
import type { Runtime } from './runtime.js'

export interface RetentionOptions {
  /** The log keeps at least its last this many records (LOG_RETENTION_COMMANDS). */
  readonly commandsKept: number
  /** Records deleted in one write transaction at most (LOG_RETENTION_BATCH_RECORDS_MAX). */
  readonly batchRecordsMax: number
  readonly warn: (line: string) => void
}

export interface RetentionPlan {
  /** Records below this seq may be deleted (none when it is at or below the log's first seq). */
  readonly deleteBelowSeq: number
  /** Snapshots that hold the log back past the retention setting: written first, deleted from next round on. */
  readonly snapshotWorkspaces: readonly string[]
  readonly snapshotSystem: boolean
}

/**
 * What may go. Recovery (Runtime.replay) begins after the oldest of the system snapshot and every workspace
 * snapshot, and only when the system snapshot exists and every workspace it holds has a snapshot; else it
 * reads the log from its first record. So records below that floor are read by no recovery; they are
 * deleted once they are also older than the last `commandsKept` records. The last durable record always
 * stays. When the snapshots hold the floor below what the setting keeps, the ones too old are named, to
 * be written again at the durable end (an idle workspace's snapshot does not move by itself).
 */
export function retentionPlan(seqs: SnapshotSeqs, workspaceIds: Iterable<string>, durableSeq: number, firstSeq: number, commandsKept: number): RetentionPlan {
  const keepFromSeq = keepFromSeqOf(durableSeq, commandsKept)
  if (keepFromSeq <= firstSeq) return { deleteBelowSeq: firstSeq, snapshotWorkspaces: [], snapshotSystem: false }
  const covered = seqs.system !== null && seqs.system.workspaceIds.every((id) => seqs.workspaces.has(id))
  const floorSeq = covered ? Math.min(seqs.system!.seq, ...seqs.workspaces.values()) + 1 : 1
  const tooOld = (seq: number | undefined) => seq === undefined || seq + 1 < keepFromSeq
  const snapshotWorkspaces = floorSeq >= keepFromSeq ? [] : [...workspaceIds].filter((id) => tooOld(seqs.workspaces.get(id)))
  const snapshotSystem = floorSeq < keepFromSeq && tooOld(seqs.system?.seq)
  return { deleteBelowSeq: Math.min(floorSeq, keepFromSeq), snapshotWorkspaces, snapshotSystem }
}

/** The first of the records the setting keeps: the last `commandsKept`, and the last durable one whatever it says. */
function keepFromSeqOf(durableSeq: number, commandsKept: number): number {
  return Math.min(durableSeq, durableSeq + 1 - commandsKept)
}

/**
 * Runs the plan against the live log: `step()` (called with the periodic snapshot check) starts a round
 * unless one is running. A round deletes `batchRecordsMax` records per write transaction and yields the
 * event loop between transactions, so requests and group commits interleave with it.
 */
export class LogRetention {
  readonly #runtime: Runtime
  readonly #options: RetentionOptions
  #round: Promise<void> | null = null
  #stopping = false
  /** The in-memory snapshot seqs when the disk was last read, and that read: read again only when they moved. */
  #seenKey = ''
  #seen: SnapshotSeqs | null = null
  /** The seq of the last system snapshot asked for (memory knows workspace snapshots asked for: actor.snapshotSeq). */
  #systemAskedSeq = 0
  /** Records deleted since start (metrics, tests). */
  deleted = 0

  constructor(runtime: Runtime, options: RetentionOptions) {
    this.#runtime = runtime
    this.#options = options
  }

  step(): Promise<void> {
    if (this.#round === null && !this.#stopping) this.#round = this.#run().finally(() => { this.#round = null })
    return this.#round ?? Promise.resolve()
  }

  /** Lets the running round finish its transaction and stops; no round starts after. */
  async stop(): Promise<void> {
    this.#stopping = true
    await this.#round
  }

  async #run(): Promise<void> {
    const log = this.#runtime.log
    // Nothing older than the setting keeps: the snapshot heads need not be read.
    const keepFromSeq = keepFromSeqOf(log.durableSeq, this.#options.commandsKept)
    if (log.failure !== null || keepFromSeq <= log.firstSeq) return
    const plan = retentionPlan(this.#snapshotSeqs(), this.#runtime.system.workspaces.keys(), log.durableSeq, log.firstSeq, this.#options.commandsKept)
    // Not again while one asked for is not yet on disk (memory has its seq before the disk does).
    const workspaceIds = plan.snapshotWorkspaces.filter((id) => (this.#runtime.actors.get(id)?.snapshotSeq ?? 0) + 1 < keepFromSeq)
    const system = plan.snapshotSystem && this.#systemAskedSeq + 1 < keepFromSeq
    if (workspaceIds.length > 0 || system) {
      this.#runtime.snapshotForRetention(workspaceIds, system)
      if (system) this.#systemAskedSeq = log.durableSeq
      this.#seenKey = ''
    }
    try {
      while (!this.#stopping && log.failure === null && log.firstSeq < plan.deleteBelowSeq) {
        this.deleted += await log.removeBelow(plan.deleteBelowSeq, this.#options.batchRecordsMax)
        await nextTurn()
      }
    } catch (error) {
      this.#options.warn(`trueup: warning: log retention could not delete records below ${plan.deleteBelowSeq} (${error instanceof Error ? error.message : String(error)}); it tries again later.`)
    }
  }

  /**
   * The disk's snapshot seqs (heads are decoded), read again only when a snapshot was asked for since. A read
   * that does not show every snapshot memory knows of (a write not yet committed) is not kept.
   */
  #snapshotSeqs(): SnapshotSeqs {
    const actors = [...this.#runtime.actors.values()]
    const key = actors.map((actor) => actor.snapshotSeq).join(',')
    if (this.#seen !== null && key === this.#seenKey) return this.#seen
    const seen = snapshotSeqsOnDisk(this.#runtime.log.root)
    const committed = actors.every((actor) => actor.snapshotSeq === 0 || seen.workspaces.get(actor.id) === actor.snapshotSeq)
    this.#seen = seen
    this.#seenKey = committed ? key : ''
    return seen
  }
}

/** @module Log retention: records no recovery reads are deleted once older than the settings, in small background batches. */

import assert from 'node:assert/strict'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { snapshotSeqsOnDisk, type SnapshotSeqs } from '../log/snapshot.js'
import { RetainedBytes } from './retained-bytes.js'
import type { Runtime } from './runtime.js'

/**
 * What the log keeps besides what recovery reads. Either setting, or both: then a record goes only once
 * neither keeps it (the log keeps what either asks). At least one is set.
 */
export interface RetentionOptions {
  /** The log keeps at least its last this many records (LOG_RETENTION_COMMANDS); null: no count kept. */
  readonly commandsKept: number | null
  /** The log keeps at least its newest records that add up to this many bytes (LOG_RETENTION_BYTES); null: no bytes kept. */
  readonly bytesKept: number | null
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
 * deleted once they are also below `keepFromSeq`, the first record the settings keep. The last durable record always
 * stays. When the snapshots hold the floor below what the setting keeps, the ones too old are named, to
 * be written again at the durable end (an idle workspace's snapshot does not move by itself).
 */
export function retentionPlan(seqs: SnapshotSeqs, workspaceIds: Iterable<string>, durableSeq: number, firstSeq: number, keepFromSeq: number): RetentionPlan {
  if (keepFromSeq <= firstSeq) return { deleteBelowSeq: firstSeq, snapshotWorkspaces: [], snapshotSystem: false }
  const covered = seqs.system !== null && seqs.system.workspaceIds.every((id) => seqs.workspaces.has(id))
  const floorSeq = covered ? Math.min(seqs.system!.seq, ...seqs.workspaces.values()) + 1 : 1
  const tooOld = (seq: number | undefined) => seq === undefined || seq + 1 < keepFromSeq
  const snapshotWorkspaces = floorSeq >= keepFromSeq ? [] : [...workspaceIds].filter((id) => tooOld(seqs.workspaces.get(id)))
  const snapshotSystem = floorSeq < keepFromSeq && tooOld(seqs.system?.seq)
  return { deleteBelowSeq: Math.min(floorSeq, keepFromSeq), snapshotWorkspaces, snapshotSystem }
}

/** The first of the records the setting keeps: the last `commandsKept`, and the last durable one whatever it says. */
export function keepFromSeqOf(durableSeq: number, commandsKept: number): number {
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
  readonly #retainedBytes: RetainedBytes | null
  /** Records deleted since start (metrics, tests). */
  deleted = 0

  constructor(runtime: Runtime, options: RetentionOptions) {
    assert.ok(options.commandsKept !== null || options.bytesKept !== null, 'log retention needs LOG_RETENTION_COMMANDS or LOG_RETENTION_BYTES')
    this.#runtime = runtime
    this.#options = options
    this.#retainedBytes = options.bytesKept === null ? null : new RetainedBytes(options.bytesKept)
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
    const durableSeq = log.durableSeq
    // Nothing older than the settings keep: the snapshot heads need not be read.
    const keepFromSeq = await this.#keepFromSeq(durableSeq)
    if (log.failure !== null || keepFromSeq <= log.firstSeq) return
    const plan = retentionPlan(this.#snapshotSeqs(), this.#runtime.system.workspaces.keys(), durableSeq, log.firstSeq, keepFromSeq)
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

  /** The first record either setting keeps: the lower of the two when both are set. */
  async #keepFromSeq(durableSeq: number): Promise<number> {
    const { commandsKept } = this.#options
    const byCommands = commandsKept === null ? Number.POSITIVE_INFINITY : keepFromSeqOf(durableSeq, commandsKept)
    const byBytes = this.#retainedBytes === null ? Number.POSITIVE_INFINITY : await this.#retainedBytes.keepFromSeq(this.#runtime.log, durableSeq)
    return Math.min(byCommands, byBytes)
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

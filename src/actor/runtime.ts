/** @module The runtime: system state, the workspace actors, the log, and start-up replay through the same execute. */

import assert from 'node:assert/strict'
import { reject } from '../errors.js'
import type { Outcome } from '../ledger/outcome.js'
import { restoreSystem } from '../ledger/restore.js'
import type { WorkspaceState } from '../ledger/state.js'
import { createSystemState, executeSystem, type SystemCommand, type SystemState } from '../ledger/system.js'
import type { CommandLog, SideWrites } from '../log/command-log.js'
import type { LogRecord } from '../log/codec.js'
import { recordsRetainedAway, snapshotAhead } from '../log/damage.js'
import {
  loadSnapshots, loadSystemSnapshot, writeSnapshot, writeSystemSnapshot, type LoadedSnapshot, type SnapshotWriteFailed, type SystemSnapshotRead,
  type UnusableSnapshot,
} from '../log/snapshot.js'
import { sha256Hex } from '../exports/seal-hash.js'
import { ed25519Signer, newSealKeyPair } from '../exports/seal-signature.js'
import { Submitted } from './completion.js'
import { SnapshotRetries } from './snapshot-retries.js'
import { WorkspaceActor } from './workspace-actor.js'

/**
 * Cluster mode: the records a node read from the database at its start, before its memory was built (a standby's
 * catch-up, or an owner's records its local log lacked), from `fromSeq` on. Replay computes what the owner wrote
 * beside each of them (webhook outbox items, the same bytes as for a followed record) into `into`, for the caller
 * to keep: without them a takeover would never deliver those records' pending events.
 */
export interface CaughtUpSideWrites {
  readonly fromSeq: number
  readonly into: SideWrites[]
}

export interface ReplayReport {
  /** Log records applied (those below a snapshot are skipped, not counted). */
  readonly records: number
  readonly snapshots: number
  /**
   * Log records the log still holds below where replay began (retention deletes them in time): not read,
   * since no recovery from these snapshots needs them (docs/ARCHITECTURE.md, "What recovery reads").
   */
  readonly recordsSkipped: number
  /** Snapshots that failed their checks: ignored, their state rebuilt from the log (and warned about). */
  readonly unusableSnapshots: readonly UnusableSnapshot[]
  /** Of durationMs: reading the snapshots and rebuilding their state (the indexes included). */
  readonly snapshotsLoadMs: number
  readonly durationMs: number
}

/** The key_id of the seal.key commands the service makes at start-up (no API key made them): their history events show it. */
export const sealKeyGiver = 'system'

/** Where warnings go when the caller names no place: stderr, never lost. */
const warnToStderr = (line: string) => { process.stderr.write(`${line}\n`) }

/** Writes a workspace snapshot of the state at a durable seq; resolves whether it committed (a failure is reported to `failed`). */
export type WorkspaceSnapshotWriter = (state: WorkspaceState, seq: number, failed: SnapshotWriteFailed) => Promise<boolean>

export interface RuntimeOptions {
  /** Default: writeSnapshot into the log's store. Tests inject failing writes. */
  readonly writeSnapshot?: WorkspaceSnapshotWriter
}

export class Runtime {
  readonly system: SystemState = createSystemState()
  readonly actors = new Map<string, WorkspaceActor>()
  readonly log: CommandLog
  readonly #snapshotCommandsInterval: number
  /** Seq of the last accepted system command. */
  #systemSeq = 0
  /** Told of each accepted live system command (WebSocket sessions close when their key is revoked). */
  readonly systemObservers = new Set<(command: SystemCommand) => void>()
  /** Only during replay: the snapshots an actor starts from when its workspace.create is replayed. */
  #snapshots = new Map<string, LoadedSnapshot>()

  readonly #warn: (line: string) => void
  readonly #snapshotWriteFailed: SnapshotWriteFailed
  readonly #writeSnapshot: WorkspaceSnapshotWriter
  readonly #snapshotRetries = new SnapshotRetries()

  constructor(log: CommandLog, snapshotCommandsInterval: number, warn: (line: string) => void = warnToStderr, options: RuntimeOptions = {}) {
    this.log = log
    this.#snapshotCommandsInterval = snapshotCommandsInterval
    this.#warn = warn
    this.#snapshotWriteFailed = (name, error) => warn(`trueup: warning: the snapshot of ${name} could not be written (${error.message}); the log is complete without it. It is tried again shortly.`)
    this.#writeSnapshot = options.writeSnapshot ?? ((state, seq, failed) => writeSnapshot(log.root, state, seq, failed))
  }

  /**
   * Rebuilds memory: the latest usable snapshot of each workspace, then every log record after it.
   * A damaged snapshot is ignored with a warning (the log is complete, so replay rebuilds its state);
   * a damaged or missing log record throws StoreDamaged: no start on state that could be wrong.
   */
  replay(nowMs: () => number, caughtUp: CaughtUpSideWrites | null = null): ReplayReport {
    const startedMs = nowMs()
    const loaded = loadSnapshots(this.log.root, sha256Hex, ed25519Signer)
    const snapshots = loaded.workspaces
    const system = loadSystemSnapshot(this.log.root)
    const unusable = system === undefined || system.ok ? loaded.unusable : [...loaded.unusable, system.unusable]
    const snapshotsLoadedMs = nowMs()
    this.#assertSnapshotsWithinLog(snapshots, system)
    for (const { name, reason } of unusable) {
      this.#warn(`trueup: warning: the snapshot of ${name} is damaged (${reason}); ignoring it and rebuilding that state from the log. The next snapshot replaces it.`)
    }
    this.#snapshots = snapshots
    let startSeq = 1
    if (system !== undefined && system.ok) {
      // When every workspace has a snapshot of its own (a forced round writes them with the system's),
      // the log below the oldest snapshot holds nothing left to apply.
      restoreSystem(this.system, system.state)
      this.#systemSeq = system.seq
      for (const workspaceId of this.system.workspaces.keys()) this.#createActor(workspaceId)
      const covered = [...this.system.workspaces.keys()].every((workspaceId) => snapshots.has(workspaceId))
      if (covered) startSeq = Math.min(system.seq, ...[...snapshots.values()].map((snapshot) => snapshot.seq)) + 1
    }
    // Retention deleted the records below firstSeq once snapshots covered them; a snapshot found unusable
    // now (or missing) would need them: no start on a state that cannot be rebuilt.
    if (startSeq < this.log.firstSeq) throw recordsRetainedAway(this.log.path, startSeq, this.log.firstSeq, unusable.map(({ name }) => name))
    const records = this.#replayLog(startSeq, snapshots, caughtUp)
    this.#snapshots = new Map()
    return {
      records, snapshots: snapshots.size, recordsSkipped: startSeq - this.log.firstSeq, unusableSnapshots: unusable,
      snapshotsLoadMs: snapshotsLoadedMs - startedMs, durationMs: nowMs() - startedMs,
    }
  }

  /** Snapshots are only of durable state: one past the log's end means the log lost acknowledged records. */
  #assertSnapshotsWithinLog(snapshots: ReadonlyMap<string, LoadedSnapshot>, system: SystemSnapshotRead | undefined): void {
    const lastSeq = this.log.lastSeq
    for (const [workspaceId, snapshot] of snapshots) {
      if (snapshot.seq > lastSeq) throw snapshotAhead(this.log.path, `workspace ${workspaceId}`, snapshot.seq, lastSeq)
    }
    if (system !== undefined && system.ok && system.seq > lastSeq) throw snapshotAhead(this.log.path, 'the system', system.seq, lastSeq)
  }

  /** Applies every log record from startSeq that no snapshot covers; returns how many. */
  #replayLog(startSeq: number, snapshots: ReadonlyMap<string, LoadedSnapshot>, caughtUp: CaughtUpSideWrites | null): number {
    let records = 0
    for (const { seq, record } of this.log.readFrom(startSeq)) {
      if (record.workspace === null) {
        if (seq <= this.#systemSeq) continue
        this.#applySystem(seq, record.command)
        records++
        continue
      }
      const snapshot = snapshots.get(record.workspace)
      if (snapshot !== undefined && seq <= snapshot.seq) continue
      const actor = this.actors.get(record.workspace)
      assert.ok(actor !== undefined, `log record ${seq} names unknown workspace ${record.workspace}`)
      if (caughtUp === null || seq < caughtUp.fromSeq) actor.replay(seq, record.command)
      else {
        const side = actor.replay(seq, record.command, true)
        if (side !== undefined) caughtUp.into.push(side)
      }
      records++
    }
    return records
  }

  /**
   * Cluster mode, a standby: one record the shard's owner committed, once the local log holds it, applied as
   * replay applies it (src/cluster/shard-replica.ts), so that a takeover starts from memory already up to date.
   */
  applyFollowed(seq: number, record: LogRecord): SideWrites | undefined {
    if (record.workspace === null) return void this.#applySystem(seq, record.command)
    const actor = this.actors.get(record.workspace)
    assert.ok(actor !== undefined, `followed record ${seq} names unknown workspace ${record.workspace}`)
    // What the owner wrote beside the record (webhook outbox items): the caller keeps it for a takeover.
    return actor.replay(seq, record.command, true)
  }

  #applySystem(seq: number, command: SystemCommand): void {
    const outcome = executeSystem(this.system, command)
    assert.ok(outcome.ok, `replay of system record ${seq} (${command.type}) was rejected`)
    this.#systemSeq = seq
    if (command.type === 'workspace.create') this.#createActor(command.id)
  }

  #createActor(workspaceId: string): WorkspaceActor {
    const record = this.system.workspaces.get(workspaceId)
    assert.ok(record !== undefined)
    const snapshot = this.#snapshots.get(workspaceId)
    const actor = new WorkspaceActor(workspaceId, record.tag, this.log, snapshot?.state, record.sealKeyAtCreation ? record.sealKey : null)
    if (snapshot !== undefined) {
      actor.lastAppliedSeq = snapshot.seq
      actor.snapshotSeq = snapshot.seq
    }
    this.actors.set(workspaceId, actor)
    return actor
  }

  submitSystem(command: SystemCommand): Submitted {
    if (!this.log.canAppend()) return new Submitted(reject('unavailable', 'The log cannot take more writes now.'), 0, this.log)
    const outcome: Outcome = executeSystem(this.system, command)
    if (outcome.ok) {
      this.#systemSeq = this.log.append({ v: 1, workspace: null, command })
      if (command.type === 'workspace.create') this.#createActor(command.id)
      for (const observer of this.systemObservers) observer(command)
    }
    return new Submitted(outcome, this.#systemSeq, this.log)
  }

  /**
   * After replay (docs/API.md, "The seal"): each workspace made before seal keys existed gets one, by a logged
   * system command, and its state gets it by a logged seal.key command, which signs the windows it closed
   * before; a start that stopped between the two finishes the second. Returns the workspaces given a key.
   */
  giveSealKeys(atMs: number): string[] {
    const given: string[] = []
    for (const record of this.system.workspaces.values()) {
      if (record.sealKey === null) {
        const pair = newSealKeyPair()
        const outcome = this.submitSystem({ type: 'workspace.seal_key', at_ms: atMs, id: record.id, seal_private_key: pair.privateKey, seal_public_key: pair.publicKey }).outcome
        assert.ok(outcome.ok, `cannot give workspace ${record.id} a seal key: ${outcome.ok ? '' : outcome.message}`)
      }
      const actor = this.actor(record.id)
      if (actor.state.sealKey !== null) continue
      const key = record.sealKey!
      const outcome = actor.submit({ type: 'seal.key', at_ms: atMs, key_id: sealKeyGiver, visibility: null, private_key: key.privateKey, public_key: key.publicKey }).outcome
      assert.ok(outcome.ok, `cannot give workspace ${record.id}'s state its seal key: ${outcome.ok ? '' : outcome.message}`)
      given.push(record.id)
    }
    return given
  }

  /** An outcome decided outside the system state machine: it waits for the system's barrier like a command's. */
  answerSystem(outcome: Outcome): Submitted {
    return new Submitted(outcome, this.#systemSeq, this.log)
  }

  /** For the metrics: log records appended but not yet durable. */
  get pendingRecords(): number { return this.log.pendingCount }

  /** For the metrics: the log's durable end. */
  get durableSeq(): number { return this.log.durableSeq }

  /** For the metrics: webhook deliveries not yet done (LMDB keeps the count in the database's header: O(1)). */
  outboxItems(): number {
    return (this.log.sideDb('outbox').getStats() as { entryCount?: number }).entryCount ?? 0
  }

  get systemSeq(): number { return this.#systemSeq }

  actor(workspaceId: string): WorkspaceActor {
    const actor = this.actors.get(workspaceId)
    assert.ok(actor !== undefined, `no actor for workspace ${workspaceId}`)
    return actor
  }

  /**
   * For log retention (log-retention.ts): snapshots at the durable end of the named workspaces, moved or
   * not (an idle workspace's old snapshot would otherwise hold every record after it), and with `system`
   * of the system state. Only durable state; a workspace ahead of the durable end is left for next time.
   */
  snapshotForRetention(workspaceIds: Iterable<string>, system: boolean): void {
    if (this.log.failure !== null) return
    const seq = this.log.durableSeq
    for (const workspaceId of workspaceIds) {
      const actor = this.actors.get(workspaceId)
      if (actor === undefined || actor.lastAppliedSeq > seq || actor.busy) continue
      this.#snapshot(actor)
    }
    if (system && this.#systemSeq <= seq) writeSystemSnapshot(this.log.root, seq, this.system, this.#snapshotWriteFailed)
  }

  /**
   * Writes a snapshot of every workspace that has moved on enough since its last one, or whose last
   * write failed (SnapshotRetries says when to try again); with force, of every workspace that moved
   * at all, and then of the system state, which lets the next start skip the log below the oldest
   * snapshot. Returns how many writes it started; each records its seq only once committed.
   */
  snapshotDue(force: boolean): number {
    // After a failed commit memory holds records the log does not: nothing of it may be snapshotted.
    if (this.log.failure !== null) return 0
    let written = 0
    let complete = true
    for (const actor of this.actors.values()) {
      // A forced round gives every workspace a snapshot, even an empty one, so the system snapshot covers all.
      if (actor.commandsSinceSnapshot === 0 && !(force && actor.snapshotSeq === 0)) continue
      // Only durable state: a snapshot must never run ahead of the log records it stands for (nor hold a
      // statement import half applied: workspace-actor.ts, busy).
      if (actor.lastAppliedSeq > this.log.durableSeq || actor.busy) {
        complete = false
        continue
      }
      if (!force && !this.#snapshotRetries.due(actor.id, actor.commandsSinceSnapshot >= this.#snapshotCommandsInterval)) continue
      this.#snapshot(actor)
      written++
    }
    // The system state is the same at every seq from its last command to the durable end (a later system
    // command would have moved #systemSeq), so the snapshot stands for the durable end: the next start then
    // begins the log after the workspace snapshots, instead of reading (and skipping) every record from
    // the last system command on.
    if (force && complete && this.#systemSeq <= this.log.durableSeq) writeSystemSnapshot(this.log.root, this.log.durableSeq, this.system, this.#snapshotWriteFailed)
    return written
  }

  /**
   * Starts one workspace snapshot of the durable state. The commands it covers stop counting now (so the
   * next checks do not write it again while it commits) and count again if it fails, which makes the
   * workspace due again; snapshotSeq moves only once the write committed.
   */
  #snapshot(actor: WorkspaceActor): void {
    const seq = this.log.durableSeq
    assert.ok(seq >= actor.lastAppliedSeq, 'a snapshot must not run ahead of the log')
    const commands = actor.commandsSinceSnapshot
    const settle = (committed: boolean) => {
      if (committed) {
        actor.snapshotSeq = Math.max(actor.snapshotSeq, seq)
        this.#snapshotRetries.succeeded(actor.id)
      } else {
        actor.commandsSinceSnapshot += commands
        this.#snapshotRetries.failed(actor.id)
      }
    }
    actor.commandsSinceSnapshot = 0
    let written: Promise<boolean>
    try {
      written = this.#writeSnapshot(actor.state, seq, this.#snapshotWriteFailed)
    } catch (error) {
      // Encoding failed before anything was queued: a bug, not the disk; the commands still count.
      actor.commandsSinceSnapshot += commands
      throw error
    }
    void written.then(settle, (error: unknown) => {
      this.#snapshotWriteFailed(`workspace ${actor.id}`, error instanceof Error ? error : new Error(String(error)))
      settle(false)
    })
  }

  /** Consecutive failed snapshot writes of a workspace (0 once one commits): for tests and operators. */
  snapshotFailures(workspaceId: string): number {
    return this.#snapshotRetries.failures(workspaceId)
  }
}

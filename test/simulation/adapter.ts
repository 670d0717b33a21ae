/**
 * @module Simulation: the one file that couples the simulation to the service's public seams (Runtime,
 * WorkspaceActor, CommandLog and its commit fault hooks, snapshots, the idempotency lookup). When those
 * seams move (restore in src/ledger/restore.ts, the lifecycle as data, 64-bit seqs), re-point this file.
 */

import assert from 'node:assert/strict'
import { Runtime } from '../../src/actor/runtime.ts'
import type { MatchBatch, WorkspaceCommand } from '../../src/ledger/commands.ts'
import { autoMatchWhatIf } from '../../src/ledger/auto-match.ts'
import { whatIfBatch } from '../../src/ledger/match-batch.ts'
import type { Outcome } from '../../src/ledger/outcome.ts'
import { proposalsAnswer, runToEnd, type ProposalQuery } from '../../src/ledger/proposals.ts'
import type { Visibility } from '../../src/ledger/visibility.ts'
import { sha256Hex } from '../../src/exports/seal-hash.ts'
import { ed25519Signer } from '../../src/exports/seal-signature.ts'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.ts'
import { createSystemState, executeSystem, type SystemCommand, type SystemState } from '../../src/ledger/system.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'
import { CommandLog } from '../../src/log/command-log.ts'
import { LiveWatches, windowMessage, windowTopic } from '../../src/shard/live-watch.ts'

/** Where a crash strikes the next group commit: before LMDB gets the batch (lost) or before its fsync is known (kept, unacknowledged). */
export type CrashKind = 'transaction' | 'flush'

/** What a client is told: the outcome, and whether it is a stored answer replayed for an Idempotency-Key. */
export interface Reply {
  readonly outcome: Outcome
  readonly replayed: boolean
}

/** The states a triple check compares: the system and every workspace by id. */
export interface States {
  readonly system: SystemState
  readonly workspaces: ReadonlyMap<string, WorkspaceState>
}

const groupCommitRecordsMax = 10_000
const pendingRecordsMax = 10_000

/** An accepted outcome's body as the client reads it: a batch writes its answer as JSON text, not as its body object. */
function onTheWire(outcome: Outcome): Outcome {
  return outcome.ok && outcome.json !== undefined ? { ...outcome, body: JSON.parse(outcome.json) } : outcome
}

/** One running "process": a log on a data dir, the runtime replayed from it, and a crash switch on its commits. */
export class SimNode {
  readonly #log: CommandLog
  readonly #runtime: Runtime
  /** The shard's live updates of the WebSocket API, every window watched: by topic, the last message a subscriber got. */
  readonly #watches: LiveWatches
  readonly #lastUpdate = new Map<string, string>()
  readonly #crash: { kind: CrashKind | null }
  #armedAtSeq = 0
  readonly #snapshotCommandsInterval: number
  /** The records start-up applied (the log after the snapshots). */
  readonly replayedRecords: number

  private constructor(log: CommandLog, runtime: Runtime, crash: { kind: CrashKind | null }, interval: number, replayedRecords: number) {
    this.#log = log
    this.#runtime = runtime
    this.#crash = crash
    this.#snapshotCommandsInterval = interval
    this.replayedRecords = replayedRecords
    this.#watches = new LiveWatches(runtime, (topic, text) => void this.#lastUpdate.set(topic, text))
  }

  /** Subscribes to every window not watched yet: its current value first, as a subscription answers. */
  watchWindows(): void {
    for (const [workspace, actor] of this.#runtime.actors) {
      for (const window of actor.state.windows.windows) {
        const topic = windowTopic(window)
        if (this.#lastUpdate.has(topic)) continue
        this.#lastUpdate.set(topic, windowMessage(actor.state, window))
        this.#watches.watch(workspace, topic)
      }
    }
  }

  /**
   * Once durable, every watched window's last update is the window as it is now: a command that changed a
   * window without telling its subscribers leaves them with a stale one. Returns the stale windows' ids.
   */
  staleWindows(): string[] {
    const stale: string[] = []
    for (const actor of this.#runtime.actors.values()) {
      for (const window of actor.state.windows.windows) {
        const last = this.#lastUpdate.get(windowTopic(window))
        if (last !== undefined && last !== windowMessage(actor.state, window)) stale.push(window.id)
      }
    }
    return stale
  }

  /** Opens the data dir and rebuilds memory from snapshots and log, as a start of the service does. */
  static open(dir: string, snapshotCommandsInterval: number, nowMs: () => number): SimNode {
    const crash: { kind: CrashKind | null } = { kind: null }
    const strike = (stage: CrashKind) => (firstSeq: number, lastSeq: number) => {
      if (crash.kind === stage) throw new Error(`simulated crash at the ${stage} of records ${firstSeq}..${lastSeq}`)
    }
    const log = new CommandLog({ path: dir, groupCommitRecordsMax, pendingRecordsMax, faults: { transaction: strike('transaction'), flush: strike('flush') } })
    const runtime = new Runtime(log, snapshotCommandsInterval, (line) => { throw new Error(`unexpected runtime warning: ${line}`) })
    const report = runtime.replay(nowMs)
    return new SimNode(log, runtime, crash, snapshotCommandsInterval, report.records)
  }

  submitSystem(command: SystemCommand): Outcome {
    return this.#runtime.submitSystem(command).outcome
  }

  /**
   * A workspace command as the shard applies it: its Idempotency-Key looked up in the same step (a stored
   * answer with the same fingerprint is replayed, another fingerprint is a conflict), else applied.
   */
  submit(workspace: string, command: WorkspaceCommand): Reply {
    const outcome = this.#runtime.actor(workspace).submit(command, command.idempotency !== undefined).outcome
    if (outcome.ok && outcome.keyReplayed === true) return { outcome: { ok: true, status: outcome.status, body: outcome.json === '' ? null : JSON.parse(outcome.json!) }, replayed: true }
    return { outcome: onTheWire(outcome), replayed: false }
  }

  /** A match batch's dry run, as the route runs it: a read through the actor. */
  dryRunMatches(workspace: string, command: MatchBatch): Reply {
    return { outcome: this.query(workspace, (state) => whatIfBatch(state, command)), replayed: false }
  }

  /** GET proposals, its slices run to the end in one read (the actor would interleave other requests between them). */
  proposals(workspace: string, windowId: string, query: ProposalQuery, visibility: Visibility): Reply {
    return { outcome: this.query(workspace, (state) => runToEnd(proposalsAnswer(state, windowId, query, visibility))), replayed: false }
  }

  /** An auto-match's dry run, its slices run to the end in one read. */
  autoMatchWhatIf(workspace: string, windowId: string, visibility: Visibility): Reply {
    return { outcome: this.query(workspace, (state) => runToEnd(autoMatchWhatIf(state, windowId, visibility))), replayed: false }
  }

  query(workspace: string, run: (state: WorkspaceState) => Outcome): Outcome {
    return this.#runtime.actor(workspace).query(run).outcome
  }

  /** Resolves once every appended record is durable; throws when the log failed (a crash was struck). */
  async durable(): Promise<void> {
    await this.#log.idle()
    if (this.#log.failure !== null) throw this.#log.failure
    assert.equal(this.#log.durableSeq, this.#log.lastSeq)
  }

  get durableSeq(): number { return this.#log.durableSeq }

  /** The runtime's own snapshot round (as the service's timer runs it), waited for until on disk. */
  async snapshot(force: boolean): Promise<number> {
    const written = this.#runtime.snapshotDue(force)
    await this.#log.root.flushed
    return written
  }

  /** The next group commit fails at this stage (null: it does not); memory then runs ahead of the log until the restart. */
  armCrash(kind: CrashKind | null): void {
    this.#crash.kind = kind
    this.#armedAtSeq = this.#log.lastSeq
  }

  /** Whether a record was appended since the crash was armed (so that a commit is there for it to strike). */
  get appendedSinceArmed(): boolean {
    return this.#log.lastSeq > this.#armedAtSeq
  }

  /**
   * The process goes: an armed crash strikes the commit of what was appended after it was armed, and the log is
   * let go. Returns the stage it struck at, or null (nothing appended since: the log simply stops).
   */
  async crash(): Promise<CrashKind | null> {
    const kind = this.#crash.kind
    await this.#log.idle()
    const struck = kind !== null && this.appendedSinceArmed
    if (struck) assert.ok(this.#log.failure !== null, `the armed ${kind} crash did not strike`)
    await this.#log.close()
    return struck ? kind : null
  }

  async close(): Promise<void> {
    await this.#log.close()
  }

  /** Live memory. */
  live(): States {
    const workspaces = new Map<string, WorkspaceState>()
    for (const [id, actor] of this.#runtime.actors) workspaces.set(id, actor.state)
    return { system: this.#runtime.system, workspaces }
  }

  /** Every record of the log applied from seq 1 to fresh states through the same execute functions (no snapshot). */
  replayedFromLog(): States {
    const system = createSystemState()
    const workspaces = new Map<string, WorkspaceState>()
    for (const { seq, record } of this.#log.readFrom(1)) {
      if (record.workspace === null) {
        const outcome = executeSystem(system, record.command)
        assert.ok(outcome.ok, `replay of system record ${seq} was rejected`)
        if (record.command.type === 'workspace.create') {
          const { id, tag, seal_private_key: privateKey, seal_public_key: publicKey } = record.command
          workspaces.set(id, createWorkspaceState(id, tag, sha256Hex, ed25519Signer, privateKey === undefined || publicKey === undefined ? null : { privateKey, publicKey }))
        }
        continue
      }
      const state = workspaces.get(record.workspace)
      assert.ok(state !== undefined, `record ${seq} names unknown workspace ${record.workspace}`)
      const outcome = executeWorkspace(state, record.command)
      assert.ok(outcome.ok, `replay of record ${seq} (${record.command.type}) was rejected: ${outcome.ok ? '' : outcome.code}`)
    }
    return { system, workspaces }
  }

  /** What a restart builds now: the latest snapshots plus the log after them (a second runtime on the same log). */
  restoredFromSnapshots(nowMs: () => number): States {
    const runtime = new Runtime(this.#log, this.#snapshotCommandsInterval, (line) => { throw new Error(`unexpected warning on restore: ${line}`) })
    runtime.replay(nowMs)
    const workspaces = new Map<string, WorkspaceState>()
    for (const [id, actor] of runtime.actors) workspaces.set(id, actor.state)
    return { system: runtime.system, workspaces }
  }
}

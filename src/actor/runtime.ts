/** @module The runtime: system state, the workspace actors, the log, and start-up replay through the same execute. */

import assert from 'node:assert/strict'
import { reject } from '../errors.js'
import type { Outcome } from '../ledger/outcome.js'
import { createSystemState, executeSystem, type SystemCommand, type SystemState } from '../ledger/system.js'
import type { CommandLog } from '../log/command-log.js'
import { loadSnapshots, loadSystemSnapshot, restoreSystem, writeSnapshot, writeSystemSnapshot, type LoadedSnapshot } from '../log/snapshot.js'
import { WorkspaceActor, type Submitted } from './workspace-actor.js'

export interface ReplayReport {
  /** Log records applied (those below a snapshot are skipped, not counted). */
  readonly records: number
  readonly snapshots: number
  readonly durationMs: number
}

export class Runtime {
  readonly system: SystemState = createSystemState()
  readonly actors = new Map<string, WorkspaceActor>()
  readonly log: CommandLog
  readonly #snapshotCommandsInterval: number
  /** Seq of the last accepted system command. */
  #systemSeq = 0
  /** Only during replay: the snapshots an actor starts from when its workspace.create is replayed. */
  #snapshots = new Map<string, LoadedSnapshot>()

  constructor(log: CommandLog, snapshotCommandsInterval: number) {
    this.log = log
    this.#snapshotCommandsInterval = snapshotCommandsInterval
  }

  /** Rebuilds memory: the latest snapshot of each workspace, then every log record after it. */
  replay(nowMs: () => number): ReplayReport {
    const startedMs = nowMs()
    const snapshots = loadSnapshots(this.log.root)
    this.#snapshots = snapshots
    const system = loadSystemSnapshot(this.log.root)
    let startSeq = 1
    if (system !== undefined) {
      // When every workspace has a snapshot of its own (a forced round writes them with the system's),
      // the log below the oldest snapshot holds nothing left to apply.
      restoreSystem(this.system, system.state)
      this.#systemSeq = system.seq
      for (const workspaceId of this.system.workspaces.keys()) this.#createActor(workspaceId)
      const covered = [...this.system.workspaces.keys()].every((workspaceId) => snapshots.has(workspaceId))
      if (covered) startSeq = Math.min(system.seq, ...[...snapshots.values()].map((snapshot) => snapshot.seq)) + 1
    }
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
      actor.replay(seq, record.command)
      records++
    }
    this.#snapshots = new Map()
    return { records, snapshots: snapshots.size, durationMs: nowMs() - startedMs }
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
    const actor = new WorkspaceActor(workspaceId, record.tag, this.log, snapshot?.state)
    if (snapshot !== undefined) {
      actor.lastAppliedSeq = snapshot.seq
      actor.snapshotSeq = snapshot.seq
    }
    this.actors.set(workspaceId, actor)
    return actor
  }

  submitSystem(command: SystemCommand): Submitted {
    if (!this.log.canAppend()) return { outcome: reject('unavailable', 'The log cannot take more writes now.'), barrierSeq: 0 }
    const outcome: Outcome = executeSystem(this.system, command)
    if (outcome.ok) {
      this.#systemSeq = this.log.append({ v: 1, workspace: null, command })
      if (command.type === 'workspace.create') this.#createActor(command.id)
    }
    return { outcome, barrierSeq: this.#systemSeq }
  }

  get systemSeq(): number { return this.#systemSeq }

  actor(workspaceId: string): WorkspaceActor {
    const actor = this.actors.get(workspaceId)
    assert.ok(actor !== undefined, `no actor for workspace ${workspaceId}`)
    return actor
  }

  /**
   * Writes a snapshot of every workspace that has moved on enough since its last one; with force,
   * of every workspace that moved at all, and then of the system state, which lets the next start
   * skip the log below the oldest snapshot.
   */
  snapshotDue(force: boolean): number {
    let written = 0
    let complete = true
    for (const actor of this.actors.values()) {
      // A forced round gives every workspace a snapshot, even an empty one, so the system snapshot covers all.
      if (actor.commandsSinceSnapshot === 0 && !(force && actor.snapshotSeq === 0)) continue
      // Only durable state: a snapshot must never run ahead of the log records it stands for.
      if (actor.lastAppliedSeq > this.log.durableSeq) {
        complete = false
        continue
      }
      if (!force && actor.commandsSinceSnapshot < this.#snapshotCommandsInterval) continue
      writeSnapshot(this.log.root, actor, this.log.durableSeq)
      actor.commandsSinceSnapshot = 0
      actor.snapshotSeq = this.log.durableSeq
      written++
    }
    if (force && complete && this.#systemSeq <= this.log.durableSeq) writeSystemSnapshot(this.log.root, this.#systemSeq, this.system)
    return written
  }
}

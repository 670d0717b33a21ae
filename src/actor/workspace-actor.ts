/** @module One single writer per workspace: applies commands in order, appends accepted ones to the log. */

import assert from 'node:assert/strict'
import { reject } from '../errors.js'
import type { WorkspaceCommand } from '../ledger/commands.js'
import type { Outcome } from '../ledger/outcome.js'
import { createWorkspaceState, type WorkspaceState } from '../ledger/state.js'
import { executeWorkspace } from '../ledger/workspace.js'
import type { CommandLog } from '../log/command-log.js'

export interface Submitted {
  readonly outcome: Outcome
  /** The answer may be sent once the log is durable up to here: nothing a crash could take back. */
  readonly barrierSeq: number
}

export class WorkspaceActor {
  readonly id: string
  readonly state: WorkspaceState
  readonly #log: CommandLog
  /** Seq of the last accepted command of this workspace (live or replayed). */
  lastAppliedSeq = 0
  commandsSinceSnapshot = 0
  /** Log seq of this workspace's newest snapshot, 0 when it has none. */
  snapshotSeq = 0

  constructor(id: string, tag: string, log: CommandLog, state?: WorkspaceState) {
    this.id = id
    this.state = state ?? createWorkspaceState(id, tag)
    this.#log = log
  }

  /** Applies a live command; a rejection is never logged, an acceptance joins the next group commit. */
  submit(command: WorkspaceCommand): Submitted {
    if (!this.#log.canAppend()) return { outcome: reject('unavailable', 'The log cannot take more writes now.'), barrierSeq: 0 }
    const outcome = executeWorkspace(this.state, command)
    if (outcome.ok) {
      this.lastAppliedSeq = this.#log.append({ v: 1, workspace: this.id, command })
      this.commandsSinceSnapshot++
    }
    return { outcome, barrierSeq: this.lastAppliedSeq }
  }

  /** Re-applies a logged command at start-up; it was accepted once, so it must be accepted again. */
  replay(seq: number, command: WorkspaceCommand): void {
    const outcome = executeWorkspace(this.state, command)
    assert.ok(outcome.ok, `replay of log record ${seq} (${command.type}) was rejected: ${outcome.ok ? '' : outcome.code}`)
    this.lastAppliedSeq = seq
    this.commandsSinceSnapshot++
  }

  /** Runs a query against current state; its answer waits for the same barrier as a write's. */
  query(run: (state: WorkspaceState) => Outcome): Submitted {
    return { outcome: run(this.state), barrierSeq: this.lastAppliedSeq }
  }
}

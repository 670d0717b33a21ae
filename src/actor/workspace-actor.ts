/** @module One single writer per workspace: applies commands in order, appends accepted ones (and their webhook outbox items) to the log. */

import assert from 'node:assert/strict'
import { reject } from '../errors.js'
import type { WorkspaceCommand } from '../ledger/commands.js'
import type { Accepted, Outcome } from '../ledger/outcome.js'
import { createWorkspaceState, type WorkspaceState } from '../ledger/state.js'
import { executeWorkspace } from '../ledger/workspace.js'
import type { CommandLog, SideWrites } from '../log/command-log.js'
import { outboxWrites } from '../webhooks/outbox.js'

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
      this.lastAppliedSeq = this.#log.append({ v: 1, workspace: this.id, command }, this.#sideWrites(command, outcome))
      this.commandsSinceSnapshot++
    }
    return { outcome, barrierSeq: this.lastAppliedSeq }
  }

  /**
   * Webhook deliveries are written in the transaction of the command that emitted their events, so an
   * event is in the outbox exactly when its command is in the log. A deleted subscription is named too,
   * so that the deliverer drops what was still queued for it.
   */
  #sideWrites(command: WorkspaceCommand, outcome: Accepted): ((seq: number) => SideWrites) | undefined {
    if (command.type === 'webhook.delete') return () => ({ puts: [], notify: [command.webhook] })
    if (outcome.events === undefined) return undefined
    return outboxWrites(this.state, outcome.events, command.at_ms) ?? undefined
  }

  /** The log this actor appends to (the deliveries list reads the outbox beside it). */
  get log(): CommandLog {
    return this.#log
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

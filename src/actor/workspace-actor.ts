/** @module One single writer per workspace: applies commands in order, appends accepted ones (and their webhook outbox items) to the log. */

import assert from 'node:assert/strict'
import { reject } from '../errors.js'
import type { WorkspaceCommand } from '../ledger/commands.js'
import { idempotencyFor, resolveKey, type IdempotencyLookup } from '../ledger/idempotency.js'
import type { Accepted, Outcome } from '../ledger/outcome.js'
import type { Page } from '../ledger/pages.js'
import { createWorkspaceState, type SealKeyPair, type WorkspaceState } from '../ledger/state.js'
import type { Visibility } from '../ledger/visibility.js'
import { executeWorkspace, executeWorkspaceInSlices } from '../ledger/workspace.js'
import { sha256Hex } from '../exports/seal-hash.js'
import { ed25519Signer } from '../exports/seal-signature.js'
import type { CommandLog, SideWrites } from '../log/command-log.js'
import { listDeliveries, outboxWrites } from '../webhooks/outbox.js'
import { Submitted } from './completion.js'
import { runSlice, sliceClockDefault, type SliceClock } from './slice-runner.js'

export { Submitted } from './completion.js'

/** Told of each accepted live command as it is applied, with its completion (live updates: src/stream/hub.ts). */
export interface CommandObserver {
  accepted(state: WorkspaceState, command: WorkspaceCommand, outcome: Accepted, completion: Submitted): void
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
  /** Null while nobody watches this workspace live: then a command costs nothing more. */
  observer: CommandObserver | null = null

  /** sealKey: the workspace's key when it was made with it (a new state starts where its log does). */
  constructor(id: string, tag: string, log: CommandLog, state?: WorkspaceState, sealKey: SealKeyPair | null = null) {
    this.id = id
    this.state = state ?? createWorkspaceState(id, tag, sha256Hex, ed25519Signer, sealKey)
    this.#log = log
  }

  /**
   * Applies a live command; a rejection is never logged, an acceptance joins the next group commit. With
   * `keyed`, its Idempotency-Key is looked up in this same step (ledger/idempotency.ts resolveKey): a stored
   * answer or a conflict is answered at the barrier, nothing applied.
   */
  submit(command: WorkspaceCommand, keyed = false): Submitted {
    assert.ok(!this.#busy, 'a command submitted while another runs in slices')
    const resolved = keyed ? resolveKey(this.state, command) : command
    if ('ok' in resolved) return this.answer(resolved)
    if (!this.#log.canAppend()) return new Submitted(reject('unavailable', 'The log cannot take more writes now.'), 0, this.#log)
    return this.#settled(resolved, executeWorkspace(this.state, resolved))
  }

  #settled(command: WorkspaceCommand, outcome: Outcome): Submitted {
    if (outcome.ok && outcome.replayed !== true) {
      this.lastAppliedSeq = this.#log.append({ v: 1, workspace: this.id, command }, this.#sideWrites(command, outcome))
      this.commandsSinceSnapshot++
    }
    const submitted = new Submitted(outcome, this.lastAppliedSeq, this.#log)
    if (outcome.ok && this.observer !== null) this.observer.accepted(this.state, command, outcome, submitted)
    return submitted
  }

  /**
   * True while a command runs in slices (a statement import): its state is then half applied, so the
   * workspace's other requests wait (whenIdle), and no snapshot is taken of it.
   */
  get busy(): boolean {
    return this.#busy
  }

  #busy = false
  /** The requests that came while busy, run in arrival order once it is done; bounded by the requests in flight. */
  readonly #waiting: (() => void)[] = []

  /** Runs `run` now, or once the command running in slices is done. */
  whenIdle(run: () => void): void {
    if (this.#busy) this.#waiting.push(run)
    else run()
  }

  /**
   * Applies a command in slices of about clock.sliceMsMax each, one per turn of the event loop (see
   * querySliced): other workspaces are served between slices, this one's requests wait in whenIdle, so no
   * one sees it half applied and it stays all or nothing. With `keyed`, its Idempotency-Key is looked up in
   * the first slice, before anything changes (a stored answer or a conflict is answered instead). The log
   * record is appended once it is applied; the log may have no room at that moment: it then waits, turn by
   * turn, for the group commit.
   */
  submitInSlices(given: WorkspaceCommand, keyed: boolean, done: (completion: Submitted) => void, clock: SliceClock = sliceClockDefault): void {
    this.whenIdle(() => {
      const command = keyed ? resolveKey(this.state, given) : given
      if ('ok' in command) return done(this.answer(command))
      if (!this.#log.canAppend()) return done(new Submitted(reject('unavailable', 'The log cannot take more writes now.'), 0, this.#log))
      this.#busy = true
      const run = executeWorkspaceInSlices(this.state, command)
      const step = (): void => {
        const next = runSlice(run, clock)
        if (next.done === true) return this.#finishSliced(command, next.value, done)
        setImmediate(step)
      }
      step()
    })
  }

  #finishSliced(command: WorkspaceCommand, outcome: Outcome, done: (completion: Submitted) => void): void {
    const needsLog = outcome.ok && outcome.replayed !== true
    if (needsLog && !this.#log.canAppend()) {
      // Memory holds the applied import: on a failed log the process stops and recovers from the log.
      if (this.#log.failure !== null) return this.#release(() => done(new Submitted(reject('unavailable', 'The log cannot be written.'), 0, this.#log)))
      return void setImmediate(() => this.#finishSliced(command, outcome, done))
    }
    const submitted = this.#settled(command, outcome)
    this.#release(() => done(submitted))
  }

  /** Not busy any more: the answer, then the requests that waited, in order, until one runs in slices again. */
  #release(answer: () => void): void {
    this.#busy = false
    answer()
    while (!this.#busy && this.#waiting.length > 0) this.#waiting.shift()!()
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

  /**
   * Re-applies a logged command at start-up; it was accepted once, so it must be accepted again. `withSideWrites`
   * (a standby following its owner's log): also what the owner wrote beside it (webhook outbox items), the same
   * bytes, so that this node delivers them if it takes the shard over.
   */
  replay(seq: number, command: WorkspaceCommand, withSideWrites = false): SideWrites | undefined {
    const outcome = executeWorkspace(this.state, command)
    assert.ok(outcome.ok, `replay of log record ${seq} (${command.type}) was rejected: ${outcome.ok ? '' : outcome.code}`)
    this.lastAppliedSeq = seq
    this.commandsSinceSnapshot++
    return withSideWrites ? this.#sideWrites(command, outcome)?.(seq) : undefined
  }

  /** Runs a query against current state; its answer waits for the same barrier as a write's. */
  query(run: (state: WorkspaceState) => Outcome): Submitted {
    return new Submitted(run(this.state), this.lastAppliedSeq, this.#log)
  }

  /**
   * Runs a read in slices of about clock.sliceMsMax each (slice-runner.ts), one per turn of the event
   * loop: setImmediate runs after the loop's I/O poll, so requests that arrived meanwhile are served
   * between slices (a microtask or process.nextTick would run before any I/O and starve them). `done`
   * gets the completion, its barrier the last seq applied when the read ends (it may rest on anything
   * applied while it ran).
   */
  querySliced(start: (state: WorkspaceState) => Generator<undefined, Outcome, undefined>, done: (completion: Submitted) => void, clock: SliceClock = sliceClockDefault): void {
    const run = start(this.state)
    const step = (): void => {
      const next = runSlice(run, clock)
      if (next.done === true) return done(new Submitted(next.value, this.lastAppliedSeq, this.#log))
      setImmediate(step)
    }
    step()
  }

  /** An outcome decided outside the state machine (a refusal of the request's shape): it waits like a query's. */
  answer(outcome: Outcome): Submitted {
    return new Submitted(outcome, this.lastAppliedSeq, this.#log)
  }

  /** The stored answer an Idempotency-Key names for this caller, if it may see it (ledger/idempotency.ts). */
  idempotency(key: string, keyId: string, visibility: Visibility, nowMs: number): IdempotencyLookup {
    return idempotencyFor(this.state, key, keyId, visibility, nowMs)
  }

  /** A page of a subscription's deliveries, read from the outbox beside the log; null for a foreign cursor. */
  deliveries(subscription: string, limit: number, cursor: string | null): Page<object> | null {
    return listDeliveries(this.#log, subscription, limit, cursor)
  }
}

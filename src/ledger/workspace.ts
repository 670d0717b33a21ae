/** @module The workspace state machine: one command in, one outcome (and the events it emits) out; no I/O, no clock, no randomness. */

import assert from 'node:assert/strict'
import { answerAccountSeqs, behaviourOf, eventsOf } from './command-table.js'
import type { WorkspaceCommand } from './commands.js'
import { expireIdempotency, storeIdempotency } from './idempotency.js'
import { answerText, type Outcome } from './outcome.js'
import type { WorkspaceState } from './state.js'

export { isSlicedCommand } from './command-table.js'

/**
 * Applies a command. Same state and command, same outcome: live traffic and log replay share this path.
 * A rejection leaves the state exactly as it was; an accepted command with an Idempotency-Key stores
 * its answer in the same step, so the log can never hold one without the other.
 */
export function executeWorkspace(state: WorkspaceState, command: WorkspaceCommand): Outcome {
  return settle(state, command, behaviourOf(command).apply(state, command))
}

/**
 * executeWorkspace with yield points, for the actor to run in slices the commands whose table entry has a sliced
 * apply (isSlicedCommand): a statement import, which may hold tens of thousands of statements (statement-import.ts),
 * and an auto-match (auto-match.ts); any other command at once. The same outcome and state as executeWorkspace,
 * which replay uses.
 */
export function* executeWorkspaceInSlices(state: WorkspaceState, command: WorkspaceCommand): Generator<undefined, Outcome, undefined> {
  const behaviour = behaviourOf(command)
  const outcome = behaviour.applyInSlices === undefined ? behaviour.apply(state, command) : yield* behaviour.applyInSlices(state, command)
  return settle(state, command, outcome)
}

/** What every accepted command does besides its own work: expiry, its idempotency record, its events. */
function settle(state: WorkspaceState, command: WorkspaceCommand, outcome: Outcome): Outcome {
  // A replayed answer changed nothing; it is not logged, so it must not expire or store anything either.
  if (!outcome.ok || outcome.replayed === true) return outcome
  expireIdempotency(state, command.at_ms)
  if (command.idempotency !== undefined) {
    // A failed approve is kept (the approval records it) and answers the action's error: stored like any answer.
    assert((outcome.status >= 200 && outcome.status < 300) || command.type === 'approval.decide')
    storeIdempotency(state, {
      key: command.idempotency.key,
      fingerprint: command.idempotency.fingerprint,
      status: outcome.status,
      body: outcome.status === 204 ? '' : answerText(outcome),
      createdAtMs: command.at_ms,
      keyId: command.key_id,
      accountSeqs: answerAccountSeqs(state, command, outcome),
    })
  }
  // Events exist for webhooks; a workspace without a subscription pays nothing for them (nor does its replay).
  if (state.webhooks.subscriptions.size === 0) return outcome
  const events = eventsOf(state, command, outcome)
  // body named: a posting's answer keeps it on its prototype (entries.ts), where a spread does not look.
  return events.length === 0 ? outcome : { ...outcome, body: outcome.body, events }
}

/** @module The workspace state machine: one command in, one outcome (and the events it emits) out; no I/O, no clock, no randomness. */

import assert from 'node:assert/strict'
import { createAccount, updateAccount } from './accounts.js'
import { unknownCommand, type WorkspaceCommand } from './commands.js'
import { postEntry } from './entries.js'
import { postEntryBatch } from './entry-batch.js'
import { reverseEntry } from './entry-reversal.js'
import { eventsOf } from './events.js'
import { annotateLine } from './exceptions.js'
import { autoMatch } from './auto-match.js'
import { approvalGate, decideApproval } from './approvals.js'
import { answerAccountSeqs, expireIdempotency, storeIdempotency } from './idempotency.js'
import { createAdjustedWriteOff } from './match-adjustment.js'
import { createMatchBatch } from './match-batch.js'
import { createMatch, reverseMatch } from './matches.js'
import { createMatchingRule, deleteMatchingRule, updateMatchingRule } from './matching-rules.js'
import { answerText, type Outcome } from './outcome.js'
import { runToEnd } from './proposals.js'
import type { WorkspaceState } from './state.js'
import { importStatements, importStatementsInSlices } from './statement-import.js'
import { giveSealKey } from './seal-key.js'
import { createWebhook, deleteWebhook } from './webhooks.js'
import { addStatementLines, openWindow, transitionWindow } from './windows.js'

/**
 * Applies a command. Same state and command, same outcome: live traffic and log replay share this path.
 * A rejection leaves the state exactly as it was; an accepted command with an Idempotency-Key stores
 * its answer in the same step, so the log can never hold one without the other.
 */
export function executeWorkspace(state: WorkspaceState, command: WorkspaceCommand): Outcome {
  return settle(state, command, dispatch(state, command))
}

/**
 * executeWorkspace with yield points, for the actor to run in slices: a statement import, which may hold
 * tens of thousands of statements (statement-import.ts), and an auto-match (auto-match.ts); any other
 * command at once. The same outcome and state as executeWorkspace, which replay uses.
 */
export function* executeWorkspaceInSlices(state: WorkspaceState, command: WorkspaceCommand): Generator<undefined, Outcome, undefined> {
  const outcome = command.type === 'statements.import' ? yield* importStatementsInSlices(state, command)
    : command.type === 'match.auto' ? yield* autoMatch(state, command)
    : dispatch(state, command)
  return settle(state, command, outcome)
}

/** The commands the actor runs in slices (executeWorkspaceInSlices). */
export function isSlicedCommand(command: WorkspaceCommand): boolean {
  return command.type === 'statements.import' || command.type === 'match.auto'
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

function dispatch(state: WorkspaceState, command: WorkspaceCommand): Outcome {
  switch (command.type) {
    case 'account.create': return createAccount(state, command)
    case 'account.update': return updateAccount(state, command)
    case 'entry.post': return postEntry(state, command)
    case 'entry.batch': return postEntryBatch(state, command)
    case 'entry.reverse': return reverseEntry(state, command)
    case 'window.open': return openWindow(state, command)
    case 'window.lines.add': return addStatementLines(state, command)
    case 'statements.import': return importStatements(state, command)
    case 'match.create': return approvalGate(state, command) ?? (command.adjustment === undefined ? createMatch(state, command) : createAdjustedWriteOff(state, command))
    case 'match.batch': return approvalGate(state, command) ?? createMatchBatch(state, command)
    case 'match.reverse': return reverseMatch(state, command)
    case 'window.transition': return approvalGate(state, command) ?? transitionWindow(state, command)
    case 'approval.decide': return decideApproval(state, command)
    case 'webhook.create': return createWebhook(state, command)
    case 'webhook.delete': return deleteWebhook(state, command)
    case 'matching_rule.create': return createMatchingRule(state, command)
    case 'matching_rule.update': return updateMatchingRule(state, command)
    case 'matching_rule.delete': return deleteMatchingRule(state, command)
    case 'match.auto': return runToEnd(autoMatch(state, command))
    case 'seal.key': return giveSealKey(state, command)
    case 'window.line.annotate': return annotateLine(state, command)
    default: return unknownCommand(command)
  }
}

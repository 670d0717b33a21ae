/** @module The workspace state machine: one command in, one outcome (and the events it emits) out; no I/O, no clock, no randomness. */

import assert from 'node:assert/strict'
import { createAccount, updateAccount } from './accounts.js'
import type { WorkspaceCommand } from './commands.js'
import { postEntry } from './entries.js'
import { eventsOf } from './events.js'
import { answerAccountSeqs, expireIdempotency, storeIdempotency } from './idempotency.js'
import { createMatch, reverseMatch } from './matches.js'
import type { Outcome } from './outcome.js'
import type { WorkspaceState } from './state.js'
import { createWebhook, deleteWebhook } from './webhooks.js'
import { addStatementLines, openWindow, transitionWindow } from './windows.js'

/**
 * Applies a command. Same state and command, same outcome: live traffic and log replay share this path.
 * A rejection leaves the state exactly as it was; an accepted command with an Idempotency-Key stores
 * its answer in the same step, so the log can never hold one without the other.
 */
export function executeWorkspace(state: WorkspaceState, command: WorkspaceCommand): Outcome {
  const outcome = dispatch(state, command)
  if (!outcome.ok) return outcome
  expireIdempotency(state, command.at_ms)
  if (command.idempotency !== undefined) {
    assert(outcome.status >= 200 && outcome.status < 300)
    storeIdempotency(state, {
      key: command.idempotency.key,
      fingerprint: command.idempotency.fingerprint,
      status: outcome.status,
      body: outcome.status === 204 ? '' : outcome.json ?? JSON.stringify(outcome.body),
      createdAtMs: command.at_ms,
      keyId: command.key_id,
      accountSeqs: answerAccountSeqs(state, command, outcome),
    })
  }
  // Events exist for webhooks; a workspace without a subscription pays nothing for them (nor does its replay).
  if (state.webhooks.subscriptions.size === 0) return outcome
  const events = eventsOf(state, command, outcome)
  return events.length === 0 ? outcome : { ...outcome, events }
}

function dispatch(state: WorkspaceState, command: WorkspaceCommand): Outcome {
  switch (command.type) {
    case 'account.create': return createAccount(state, command)
    case 'account.update': return updateAccount(state, command)
    case 'entry.post': return postEntry(state, command)
    case 'window.open': return openWindow(state, command)
    case 'window.lines.add': return addStatementLines(state, command)
    case 'match.create': return createMatch(state, command)
    case 'match.reverse': return reverseMatch(state, command)
    case 'window.transition': return transitionWindow(state, command)
    case 'webhook.create': return createWebhook(state, command)
    case 'webhook.delete': return deleteWebhook(state, command)
  }
}

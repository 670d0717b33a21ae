/**
 * @module Everything the ledger does per workspace command type, in one table: how the command is applied (at once,
 * and in slices where it may be long), the events it emits, what it changed for live subscribers, and the accounts
 * its stored answer shows. The table is keyed by every type of WorkspaceCommand, so a type without its entry (or any
 * part of it) does not compile; executeWorkspace, the events, the live changes and the idempotency record all read it.
 */

import { createAccount, findAccount, updateAccount } from './accounts.js'
import { approvalWindow, approvedAction } from './approval-actions.js'
import { approvalGate, decideApproval } from './approvals.js'
import { autoMatch } from './auto-match.js'
import { accountChanges, batchChanges, importChanges, matchCreateChanges, noChanges, postingChangesOf, sealChanges, windowChanges, type Changes } from './changes.js'
import { unknownCommand, type WorkspaceCommand } from './commands.js'
import { postEntry } from './entries.js'
import { postEntryBatch, postedCountOf } from './entry-batch.js'
import { reverseEntry } from './entry-reversal.js'
import { batchEvents, gatheredEvents, importEvents, matchCreateEvents, matchReverseEvents, noEvents, openedEvents, postingEvents, transitionEvents } from './events.js'
import { annotateLine } from './exceptions.js'
import type { LedgerEvent } from './ledger-event.js'
import { createAdjustedWriteOff } from './match-adjustment.js'
import { createMatchBatch } from './match-batch.js'
import { createMatch, reverseMatch } from './matches.js'
import { createMatchingRule, deleteMatchingRule, updateMatchingRule } from './matching-rules.js'
import type { Accepted, Outcome } from './outcome.js'
import { runToEnd } from './proposals.js'
import { giveSealKey } from './seal-key.js'
import type { WorkspaceState } from './state.js'
import { importStatements, importStatementsInSlices } from './statement-import.js'
import { createWebhook, deleteWebhook } from './webhooks.js'
import { findWindow } from './window-effects.js'
import { addStatementLines, openWindow, transitionWindow } from './windows.js'

/** What the ledger does with one command type C. Every function but apply reads an accepted command's answer and the state right after it. */
export interface CommandBehaviour<C extends WorkspaceCommand> {
  /** Applies the command (workspace.ts settles it: expiry, the idempotency record, the events). A rejection changes nothing. */
  readonly apply: (state: WorkspaceState, command: C) => Outcome
  /** The same outcome and state as apply, with yield points, for a command that may run long (the actor runs it in slices). */
  readonly applyInSlices?: (state: WorkspaceState, command: C) => Generator<undefined, Outcome, undefined>
  /** The events it emits (webhooks), in the order they happened (events.ts). */
  readonly events: (state: WorkspaceState, command: C, outcome: Accepted) => LedgerEvent[]
  /** The windows and accounts it changed, for live updates (changes.ts). */
  readonly changes: (state: WorkspaceState, command: C, outcome: Accepted) => Changes
  /** The accounts its answer shows (by seq), for who may be replayed a stored answer (idempotency.ts), or null when it shows a secret. */
  readonly answerAccountSeqs: (state: WorkspaceState, command: C, outcome: Accepted) => readonly number[] | null
}

/** One entry per command type, each typed with its own command. */
export type CommandTable = { readonly [T in WorkspaceCommand['type']]: CommandBehaviour<Extract<WorkspaceCommand, { type: T }>> }

/** The account an account command answers with. */
function answerAccount(state: WorkspaceState, outcome: Accepted): number[] {
  const account = findAccount(state, (outcome.body as { id: string }).id, null)
  return account === undefined ? [] : [account.seq]
}

function windowAccountSeqs(state: WorkspaceState, id: string): readonly number[] {
  return findWindow(state, id, null)?.accountSeqs ?? []
}

/** The accounts of the last `count` entries, each once. */
function lastEntriesAccountSeqs(state: WorkspaceState, count: number): number[] {
  const seqs = new Set<number>()
  for (let index = state.entries.length - count; index < state.entries.length; index++) {
    const entry = state.entries[index]
    for (let line = 0; line < entry.lineCount; line++) seqs.add(entry.lineAccountSeq(line))
  }
  return [...seqs]
}

function lastEntryAccountSeqs(state: WorkspaceState): readonly number[] {
  return state.entries[state.entries.length - 1].accountSeqs()
}

/** A rule names no account, nor does a seal key (made by the service at start-up, never with an Idempotency-Key): the answer may go to any key. */
const noAccounts = (): readonly number[] => []
/** A webhook's answer shows its secret: kept for the key that made it only. */
const privateAnswer = (): null => null

export const commandTable: CommandTable = {
  'account.create': { apply: createAccount, events: noEvents, changes: () => noChanges, answerAccountSeqs: (state, _, outcome) => answerAccount(state, outcome) },
  'account.update': {
    apply: updateAccount,
    events: noEvents,
    changes: (state, command, outcome) => accountChanges(state, command, (outcome.body as { id: string }).id),
    answerAccountSeqs: (state, _, outcome) => answerAccount(state, outcome),
  },
  'entry.post': { apply: postEntry, events: postingEvents, changes: postingChangesOf, answerAccountSeqs: lastEntryAccountSeqs },
  'entry.reverse': { apply: reverseEntry, events: postingEvents, changes: postingChangesOf, answerAccountSeqs: lastEntryAccountSeqs },
  'entry.batch': {
    apply: postEntryBatch,
    events: batchEvents,
    changes: (state, _, outcome) => batchChanges(state, outcome),
    answerAccountSeqs: (state, _, outcome) => lastEntriesAccountSeqs(state, postedCountOf(outcome.body)),
  },
  'window.open': {
    apply: openWindow,
    events: openedEvents,
    changes: (state, _, outcome) => windowChanges(state, (outcome.body as { id: string }).id, true),
    answerAccountSeqs: (state, _, outcome) => windowAccountSeqs(state, (outcome.body as { id: string }).id),
  },
  // Lines move no figure the residual rests on (no flip): no event.
  'window.lines.add': {
    apply: addStatementLines, events: noEvents, changes: (state, command) => windowChanges(state, command.window, false), answerAccountSeqs: (state, command) => windowAccountSeqs(state, command.window),
  },
  // The windows an import opens are new (no one watches them yet), but may be the previous window of later ones.
  'statements.import': {
    apply: importStatements,
    applyInSlices: importStatementsInSlices,
    events: importEvents,
    changes: (state, _, outcome) => importChanges(state, outcome),
    answerAccountSeqs: (state, _, outcome) => (outcome.body as { data: { id: string }[] }).data.flatMap((window) => windowAccountSeqs(state, window.id)),
  },
  'match.create': {
    apply: (state, command) => approvalGate(state, command) ?? (command.adjustment === undefined ? createMatch(state, command) : createAdjustedWriteOff(state, command)),
    events: matchCreateEvents,
    changes: matchCreateChanges,
    // A write-off's adjustment names its entry, whose lines are on the window's account and the adjustment's.
    answerAccountSeqs: (state, command, outcome) => command.adjustment === undefined || outcome.status === 202 ? windowAccountSeqs(state, command.window)
      : [...new Set([...windowAccountSeqs(state, command.window), ...lastEntryAccountSeqs(state)])],
  },
  // createMatchBatch gathered the events of its matches one by one (match-batch.ts).
  'match.batch': {
    apply: (state, command) => approvalGate(state, command) ?? createMatchBatch(state, command),
    events: (_, __, outcome) => gatheredEvents(outcome),
    changes: (state, command) => windowChanges(state, command.window, false),
    answerAccountSeqs: (state, command) => windowAccountSeqs(state, command.window),
  },
  'match.reverse': {
    apply: reverseMatch, events: matchReverseEvents, changes: (state, command) => windowChanges(state, command.window, false), answerAccountSeqs: (state, command) => windowAccountSeqs(state, command.window),
  },
  'window.transition': {
    apply: (state, command) => approvalGate(state, command) ?? transitionWindow(state, command),
    events: transitionEvents,
    // An abandoned window is no longer the previous window of those after it (docs/API.md, "Continuity").
    changes: (state, command) => windowChanges(state, command.window, command.state === 'abandoned'),
    answerAccountSeqs: (state, command) => windowAccountSeqs(state, command.window),
  },
  // An approve emits, changes and shows what the action it ran did; a rejection or a failure no event, and any decision changes the approval's window (its history).
  'approval.decide': {
    apply: decideApproval,
    events: (state, command, outcome) => {
      const action = approvedAction(state, command, outcome)
      return action === null ? [] : eventsOf(state, action.command, action.outcome)
    },
    changes: (state, command, outcome) => {
      const action = approvedAction(state, command, outcome)
      if (action !== null) return changesOf(state, action.command, action.outcome)
      const window = approvalWindow(state, command)
      return window === undefined ? noChanges : { windows: [window], accountSeqs: [] }
    },
    answerAccountSeqs: (state, command, outcome) => {
      const action = approvedAction(state, command, outcome)
      return action !== null ? answerAccountSeqs(state, action.command, action.outcome) : approvalWindow(state, command)?.accountSeqs ?? []
    },
  },
  'webhook.create': { apply: createWebhook, events: noEvents, changes: () => noChanges, answerAccountSeqs: privateAnswer },
  'webhook.delete': { apply: deleteWebhook, events: noEvents, changes: () => noChanges, answerAccountSeqs: privateAnswer },
  'matching_rule.create': { apply: createMatchingRule, events: noEvents, changes: () => noChanges, answerAccountSeqs: noAccounts },
  'matching_rule.update': { apply: updateMatchingRule, events: noEvents, changes: () => noChanges, answerAccountSeqs: noAccounts },
  'matching_rule.delete': { apply: deleteMatchingRule, events: noEvents, changes: () => noChanges, answerAccountSeqs: noAccounts },
  // autoMatch gathered the events of its matches one by one (auto-match.ts).
  'match.auto': {
    apply: (state, command) => runToEnd(autoMatch(state, command)),
    applyInSlices: autoMatch,
    events: (_, __, outcome) => gatheredEvents(outcome),
    changes: (state, command) => windowChanges(state, command.window, false),
    answerAccountSeqs: (state, command) => windowAccountSeqs(state, command.window),
  },
  // A seal signed on upgrade changes no figure of its window and has no event (docs/API.md, "The seal"); its windows' seal and history changed.
  'seal.key': { apply: giveSealKey, events: noEvents, changes: (state, _, outcome) => sealChanges(state, outcome), answerAccountSeqs: noAccounts },
  // A line's assignee and note are bookkeeping of the team's work: no event (docs/API.md, Exceptions), in no window object or balance.
  'window.line.annotate': { apply: annotateLine, events: noEvents, changes: () => noChanges, answerAccountSeqs: (state, command) => windowAccountSeqs(state, command.window) },
}

/** The entry of a command's type; a command of no known type (a damaged or newer log record) stops the process rather than being applied or reported as nothing. */
export function behaviourOf<C extends WorkspaceCommand>(command: C): CommandBehaviour<C> {
  if (!Object.hasOwn(commandTable, command.type)) return unknownCommand(command as never)
  return commandTable[command.type] as unknown as CommandBehaviour<C>
}

/** Whether a command has a sliced apply (false for a type the table does not hold). */
export function isSlicedCommand(command: WorkspaceCommand): boolean {
  return Object.hasOwn(commandTable, command.type) && commandTable[command.type].applyInSlices !== undefined
}

/** The events of an accepted command (webhooks), in the order they happened. */
export function eventsOf(state: WorkspaceState, command: WorkspaceCommand, outcome: Accepted): LedgerEvent[] {
  return behaviourOf(command).events(state, command, outcome)
}

/** What an accepted command changed that a live subscriber can watch. */
export function changesOf(state: WorkspaceState, command: WorkspaceCommand, outcome: Accepted): Changes {
  return behaviourOf(command).changes(state, command, outcome)
}

/** The accounts an accepted answer shows (by seq), or null when it shows a secret instead (a webhook). */
export function answerAccountSeqs(state: WorkspaceState, command: WorkspaceCommand, outcome: Accepted): readonly number[] | null {
  return behaviourOf(command).answerAccountSeqs(state, command, outcome)
}

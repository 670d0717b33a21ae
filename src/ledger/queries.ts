/**
 * @module The reads of a workspace as data: a query is a name and its parameters (plain values, no closure),
 * so it can cross to whichever thread holds the workspace, and one table says how each is answered. A
 * name missing from the table does not compile. A sliced query (proposals) is a generator run a slice at a time.
 */

import { reject, type Rejection } from '../errors.js'
import { accountView, findAccount, listAccounts, type AccountListQuery } from './accounts.js'
import { balanceAt } from './balances.js'
import type { EntryBatch, MatchBatch, MatchCreate } from './commands.js'
import { firstRefusal, itemRejection } from './entry-batch.js'
import { listExceptions, type ExceptionListQuery } from './exceptions.js'
import { getEntry } from './entries.js'
import { listEntries, type EntryListQuery } from './entry-list.js'
import { autoMatchWhatIf } from './auto-match.js'
import { getApproval, listApprovals, type ApprovalListQuery } from './approvals.js'
import { whatIfBatch, whatIfMatch } from './match-batch.js'
import { getMatchingRule, listMatchingRules } from './matching-rules.js'
import { listMatches } from './matches.js'
import { accept, type Outcome } from './outcome.js'
import { proposalsAnswer, type ProposalQuery } from './proposals.js'
import { reconciliationStatus } from './reconciliation-status.js'
import type { WorkspaceState } from './state.js'
import type { Visibility } from './visibility.js'
import { listWindowEntries, type WindowEntriesQuery } from './window-entries.js'
import { getWebhook, listWebhooks } from './webhooks.js'
import { getWindow, listLines, listWindows, windowHistory, type LineListQuery, type PositionListQuery, type WindowListQuery } from './windows.js'

/** Every read of a workspace by name, with its parameters. */
export interface QueryParams {
  'account.list': AccountListQuery
  'account.get': { readonly account: string }
  'account.balance': { readonly account: string; readonly atMs: number }
  'account.reconciliation-status': { readonly account: string }
  'entry.get': { readonly entry: string }
  'entry.list': EntryListQuery
  /** An atomic batch with an item refused for its shape: the first refusal by the ledger's rules before it wins (docs/API.md, Bulk postings). */
  'entry.batch.refusal': { readonly command: Pick<EntryBatch, 'entries' | 'at_ms' | 'key_id' | 'visibility' | 'rules'>; readonly index: number; readonly refused: Rejection }
  'window.list': WindowListQuery
  'window.get': { readonly window: string }
  'window.lines': LineListQuery & { readonly window: string }
  'window.matches': PositionListQuery & { readonly window: string }
  'window.history': PositionListQuery & { readonly window: string }
  'window.entries': WindowEntriesQuery & { readonly window: string }
  /** A dry run of a match or a batch of matches: what they would leave, nothing kept. */
  'match.what-if': { readonly command: MatchCreate }
  'match.batch.what-if': { readonly command: MatchBatch }
  'webhook.list': { readonly limit: number; readonly cursor: string | null }
  'webhook.get': { readonly webhook: string }
  'matching-rule.list': { readonly limit: number; readonly cursor: string | null }
  'matching-rule.get': { readonly rule: string }
  'approval.list': ApprovalListQuery
  'approval.get': { readonly approval: string }
  'exception.list': ExceptionListQuery
}

/** Reads that run in slices, one per turn of the event loop (docs/ARCHITECTURE.md, How a request flows). */
export interface SlicedQueryParams {
  proposals: ProposalQuery & { readonly window: string }
  /** An auto-match's dry run (a plan over the whole window). */
  'match.auto.what-if': { readonly window: string }
}

export type QueryName = keyof QueryParams
export type SlicedQueryName = keyof SlicedQueryParams

/** A read as data: what crosses to the workspace's shard. */
export type WorkspaceQuery = { [N in QueryName]: { readonly name: N; readonly params: QueryParams[N] } }[QueryName]
export type WorkspaceSlicedQuery = { [N in SlicedQueryName]: { readonly name: N; readonly params: SlicedQueryParams[N] } }[SlicedQueryName]

type QueryTable = { readonly [N in QueryName]: (state: WorkspaceState, params: QueryParams[N], visibility: Visibility) => Outcome }
type SlicedQueryTable = { readonly [N in SlicedQueryName]: (state: WorkspaceState, params: SlicedQueryParams[N], visibility: Visibility) => Generator<undefined, Outcome, undefined> }

const queries: QueryTable = {
  'account.list': (state, params, visibility) => listAccounts(state, params, visibility),
  'account.get': (state, { account }, visibility) => {
    const found = findAccount(state, account, visibility)
    return found === undefined ? reject('not_found', 'No such account.') : accept(200, accountView(found))
  },
  'account.balance': (state, { account, atMs }, visibility) => balanceAt(state, account, atMs, visibility),
  'account.reconciliation-status': (state, { account }, visibility) => reconciliationStatus(state, account, visibility),
  'entry.get': (state, { entry }, visibility) => getEntry(state, entry, visibility),
  'entry.list': (state, params, visibility) => listEntries(state, params, visibility),
  'entry.batch.refusal': (state, { command, index, refused }) => {
    const earlier = firstRefusal(state, command, index)
    return 'ok' in earlier ? earlier : itemRejection(index, refused)
  },
  'window.list': (state, params, visibility) => listWindows(state, params, visibility),
  'window.get': (state, { window }, visibility) => getWindow(state, window, visibility),
  'window.lines': (state, params, visibility) => listLines(state, params.window, params, visibility),
  'window.matches': (state, params, visibility) => listMatches(state, params.window, params, visibility),
  'window.history': (state, params, visibility) => windowHistory(state, params.window, params, visibility),
  'window.entries': (state, params, visibility) => listWindowEntries(state, params.window, params, visibility),
  'match.what-if': (state, { command }) => whatIfMatch(state, command),
  'match.batch.what-if': (state, { command }) => whatIfBatch(state, command),
  'webhook.list': (state, { limit, cursor }) => listWebhooks(state, limit, cursor),
  'webhook.get': (state, { webhook }) => getWebhook(state, webhook),
  'matching-rule.list': (state, { limit, cursor }) => listMatchingRules(state, limit, cursor),
  'matching-rule.get': (state, { rule }) => getMatchingRule(state, rule),
  'approval.list': (state, params, visibility) => listApprovals(state, params, visibility),
  'approval.get': (state, { approval }, visibility) => getApproval(state, approval, visibility),
  'exception.list': (state, params, visibility) => listExceptions(state, params, visibility),
}

const slicedQueries: SlicedQueryTable = {
  proposals: (state, params, visibility) => proposalsAnswer(state, params.window, params, visibility),
  'match.auto.what-if': (state, { window }, visibility) => autoMatchWhatIf(state, window, visibility),
}

/** Answers a read against the state as it stands; pure, like executeWorkspace. */
export function executeQuery(state: WorkspaceState, query: WorkspaceQuery, visibility: Visibility): Outcome {
  const run = queries[query.name] as (state: WorkspaceState, params: unknown, visibility: Visibility) => Outcome
  return run(state, query.params, visibility)
}

/** A sliced read's generator: the caller resumes it a slice at a time. */
export function executeSlicedQuery(state: WorkspaceState, query: WorkspaceSlicedQuery, visibility: Visibility): Generator<undefined, Outcome, undefined> {
  const run = slicedQueries[query.name] as (state: WorkspaceState, params: unknown, visibility: Visibility) => Generator<undefined, Outcome, undefined>
  return run(state, query.params, visibility)
}

export function isSlicedQuery(query: WorkspaceQuery | WorkspaceSlicedQuery): query is WorkspaceSlicedQuery {
  return query.name in slicedQueries
}

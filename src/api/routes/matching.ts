/** @module Matching routes (docs/API.md, Reconciliation windows; Matching help): attach a match or a batch of them (each with a dry run), proposals, a window's entries. */

import { Type } from 'typebox'
import { reject } from '../../errors.js'
import { matchBatchItemsMax, type MatchBatch, type MatchCreate, type MatchItem } from '../../ledger/commands.js'
import { dateToleranceDaysMax, maxGroupMax, maxGroupMin, proposalDefaults } from '../../ledger/proposals.js'
import { v2Route, type V2Route } from '../route.js'
import { cursorQuery, enumQuery, integerQuery, limitQuery } from '../query.js'
import { matchBatch, matchCreate } from '../schemas/ledger.js'
import { dryRunBatch, dryRunMatch, match, matchBatchDone, proposalPage, windowEntryPage } from '../schemas/responses.js'
import { validator } from '../schemas/validate.js'
import { withApprovals, withLockClosed } from './entry-fields.js'

const matchCreateBody = validator(matchCreate)
const matchBatchBody = validator(matchBatch)

const cursor = cursorQuery(1024)
const statusQuery = enumQuery('status', ['matched', 'unmatched'] as const, 'Only entries that are (not) covered by an active match of this window')
const toleranceQuery = integerQuery('date_tolerance_days', 0, dateToleranceDaysMax, proposalDefaults.dateToleranceDays, 'How many days apart a line and an entry of a proposal may be')
const maxGroupQuery = integerQuery('max_group', maxGroupMin, maxGroupMax, proposalDefaults.maxGroup, 'The most items on the many side of an N:1 or 1:N proposal')
const matchErrors = [
  'request_invalid', 'not_found', 'recon_state_invalid', 'line_already_matched', 'entry_already_matched',
  'entry_outside_window', 'match_amount_mismatch', 'match_date_mismatch', 'amount_out_of_range',
] as const

/** A body asking for a dry run: a read (reads budget, no Idempotency-Key). Sees the body before its schema check. */
function isDryRun(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { dry_run?: unknown }).dry_run === true
}

/** One write token per match of a batch (docs/API.md, Matching help: proposals, dry runs, batches), within 1..1,000 whatever the body (its schema is checked after the budget). */
function batchTokens(body: unknown): number {
  const matches = typeof body === 'object' && body !== null ? (body as { matches?: unknown }).matches : undefined
  return Array.isArray(matches) ? Math.min(matchBatchItemsMax, Math.max(1, matches.length)) : 1
}

function itemOf(body: { statement_lines: string[]; entries?: string[]; strategy: MatchItem['strategy']; reason?: string | null; date_tolerance_days?: number }): MatchItem {
  const item: MatchItem = { statement_lines: body.statement_lines, entries: body.entries ?? [], strategy: body.strategy, reason: body.reason ?? null }
  return body.date_tolerance_days === undefined ? item : { ...item, date_tolerance_days: body.date_tolerance_days }
}

export const matchingRoutes: V2Route[] = [
  v2Route({
    method: 'POST', pattern: '/v2/reconciliations/:id/matches', scope: 'recon:write', summary: 'Attach a match (or, with dry_run, see what it would leave)',
    body: { validate: matchCreateBody },
    isRead: isDryRun,
    errors: [...matchErrors, 'account_unknown', 'currency_mismatch', 'period_locked'],
    response: { status: 200, description: 'The match, with the window\'s residual and state after it; with dry_run, only those figures; a write-off the workspace holds for approval answers 202 with the pending approval (docs/API.md, Approvals)', schema: Type.Union([match, dryRunMatch]) },
    handle: ({ envelope, body, params, workspace }) => {
      if (body.adjustment !== undefined) {
        // An adjustment posts an entry, which a dry run could not take back (match-undo.ts undoes matches only).
        if (body.dry_run === true) return reject('request_invalid', 'A dry run cannot carry an adjustment.', [{ path: '/adjustment', message: 'not with dry_run' }])
        const adjustment = { account: body.adjustment.account, description: body.adjustment.description ?? null }
        return withApprovals(withLockClosed({ ...envelope, type: 'match.create', window: params.id, ...itemOf(body), adjustment } satisfies MatchCreate, workspace), workspace)
      }
      const command: MatchCreate = { ...envelope, type: 'match.create', window: params.id, ...itemOf(body) }
      // A dry run is a read (isRead): the lifecycle took no Idempotency-Key for it, and it keeps nothing.
      return body.dry_run === true ? { read: { name: 'match.what-if', params: { command } } } : withApprovals(command, workspace)
    },
  }),
  v2Route({
    method: 'POST', pattern: '/v2/reconciliations/:id/matches/batch', scope: 'recon:write', summary: 'Attach up to 1,000 matches at once, all or nothing (or, with dry_run, see what they would leave)',
    body: { validate: matchBatchBody, limit: 'import' },
    isRead: isDryRun,
    writeTokens: batchTokens,
    writeTokensCharge: 'owe',
    errors: [...matchErrors],
    response: { status: 200, description: 'The matches in the order given, and the window\'s residual and state after all of them; with dry_run, the figures only', schema: Type.Union([matchBatchDone, dryRunBatch]) },
    handle: ({ envelope, body, params, workspace }) => {
      const matches = body.matches.map(itemOf)
      const command: MatchBatch = { ...envelope, type: 'match.batch', window: params.id, matches }
      return body.dry_run === true ? { read: { name: 'match.batch.what-if', params: { command } } } : withApprovals(command, workspace)
    },
  }),
  v2Route({
    method: 'GET', pattern: '/v2/reconciliations/:id/proposals', scope: 'recon:read', summary: 'Proposed matches of the window\'s unmatched lines and entries',
    query: [toleranceQuery, maxGroupQuery, limitQuery, cursor],
    errors: ['request_invalid', 'not_found'],
    response: { status: 200, description: 'A page of proposals, best score first (then the earliest line)', schema: proposalPage },
    handle: ({ params, query }) => ({
      read: { name: 'proposals', params: { window: params.id, dateToleranceDays: query.date_tolerance_days, maxGroup: query.max_group, limit: query.limit, cursor: query.cursor } },
    }),
  }),
  v2Route({
    method: 'GET', pattern: '/v2/reconciliations/:id/entries', scope: 'recon:read', summary: 'The entries of the window\'s period on its accounts, with their amount for the window and match',
    query: [limitQuery, statusQuery, cursor],
    errors: ['request_invalid', 'not_found'],
    response: { status: 200, description: 'A page of entries, by effective_at then id', schema: windowEntryPage },
    handle: ({ params, query }) => ({ read: { name: 'window.entries', params: { window: params.id, status: query.status, limit: query.limit, cursor: query.cursor } } }),
  }),
]

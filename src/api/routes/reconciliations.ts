/** @module /v2/reconciliations routes: windows, statement lines (JSON or CSV), matches, transitions, history. */

import type { Static } from 'typebox'
import { reject } from '../../errors.js'
import type { CommandEnvelope, StatementLineInput } from '../../ledger/commands.js'
import { zeroAmountRejection } from '../../ledger/money.js'
import { canonicalTimeZone } from '../../ledger/time-zone-name.js'
import { v2Route, type Built, type V2Route } from '../route.js'
import { cursorQuery, enumQuery, limitQuery, textQuery } from '../query.js'
import { linesAdd, windowOpen, windowTransition } from '../schemas/ledger.js'
import { history, linesAdded, linePage, match, matchPage, reconciliationWindow, windowPage, windowStates } from '../schemas/responses.js'
import { validator, type Validator } from '../schemas/validate.js'
import { formatQuery, lineInputOf, statementAccountsOf, StatementsRead } from '../statement-file.js'
import { parseStatementCsv } from '../statement-csv.js'
import { withApprovals } from './entry-fields.js'

const windowOpenBody = validator(windowOpen)
const windowTransitionBody = validator(windowTransition)
const linesAddJson = validator(linesAdd)
/** JSON or CSV lines as the schema says, or a statement file's statements, read by the `parse` stage. */
const linesAddBody: Validator<Static<typeof linesAdd> | StatementsRead> = Object.assign(
  (value: unknown) => (value instanceof StatementsRead ? { ok: true as const, value } : linesAddJson(value)),
  { schema: linesAdd },
)

const cursor = cursorQuery(1024)
const stateQuery = enumQuery('state', windowStates, 'Only windows in this state')
const accountQuery = textQuery('account', 'Only windows that cover this account (name or id)')
const statusQuery = enumQuery('status', ['matched', 'unmatched'] as const, 'Only lines that are (not) part of an active match')
const windowAnswer = { status: 200, description: 'The window with live figures', schema: reconciliationWindow }
const csvFormat = {
  mediaType: 'text/csv',
  description: 'A header row naming date, amount, reference, description (any order, case-insensitive; reference and description optional), then one line per row: date YYYY-MM-DD, amount an integer in minor units; an empty reference or description is null.',
}

/** A statement file's lines for one window: read and balanced by the `parse` stage, then checked against the window by the ledger. */
function statementLinesCommand(envelope: CommandEnvelope, window: string, file: StatementsRead): Built {
  const lines = file.statements.flatMap((statement) => statement.entries.map(lineInputOf))
  if (lines.length === 0) return reject('request_invalid', 'The statement file holds no lines.', [{ path: '/lines', message: 'empty' }])
  return { ...envelope, type: 'window.lines.add', window, lines, keep_outside: true, statements: statementAccountsOf(file.statements) }
}

function counterpartyOf(counterparty: { name?: string | null; account?: string | null } | null | undefined): StatementLineInput['counterparty'] {
  if (counterparty === undefined || counterparty === null) return null
  return { name: counterparty.name ?? null, account: counterparty.account ?? null }
}

export const reconciliationRoutes: V2Route[] = [
  v2Route({
    method: 'POST', pattern: '/v2/reconciliations', scope: 'recon:write', summary: 'Open a window',
    body: { validate: windowOpenBody },
    errors: ['request_invalid', 'window_invalid', 'account_unknown', 'window_overlap', 'currency_mismatch', 'amount_out_of_range'],
    response: { ...windowAnswer, status: 201 },
    handle: ({ envelope, body, workspace }) => {
      return {
        ...envelope, type: 'window.open', label: body.label, accounts: body.accounts, from: body.window.from, to: body.window.to,
        claimed_movement: body.claimed_movement, opening_balance: body.opening_balance ?? null, closing_balance: body.closing_balance ?? null, statement_ref: body.statement_ref ?? null, tolerance: body.tolerance ?? 0, time_zone: canonicalTimeZone(workspace.timeZone) ?? workspace.timeZone,
      }
    },
  }),
  v2Route({
    method: 'GET', pattern: '/v2/reconciliations', scope: 'recon:read', summary: 'List windows',
    query: [limitQuery, stateQuery, accountQuery, cursor],
    errors: ['request_invalid', 'account_unknown'],
    response: { status: 200, description: 'A page of windows, in creation order', schema: windowPage },
    handle: ({ query }) => ({ read: { name: 'window.list', params: { state: query.state, account: query.account, limit: query.limit, cursor: query.cursor } } }),
  }),
  v2Route({
    method: 'GET', pattern: '/v2/reconciliations/:id', scope: 'recon:read', summary: 'Read a window with live figures',
    errors: ['not_found'],
    response: windowAnswer,
    handle: ({ params }) => ({ read: { name: 'window.get', params: { window: params.id } } }),
  }),
  v2Route({
    method: 'PATCH', pattern: '/v2/reconciliations/:id', scope: 'recon:write', summary: 'Close or abandon a window',
    body: { validate: windowTransitionBody },
    errors: ['request_invalid', 'not_found', 'recon_state_invalid'],
    response: { status: 200, description: 'The window, closed or abandoned; a close the workspace holds for approval answers 202 with the pending approval (docs/API.md, Approvals)', schema: reconciliationWindow },
    handle: ({ envelope, body, params, key, workspace }) => {
      // A missing abandon reason is a schema failure (docs/API.md, Conventions), so it answers before the window's state rules.
      if (body.state === 'abandoned' && (body.reason ?? '') === '') return reject('request_invalid', 'Abandoning a window needs a reason.', [{ path: '/reason', message: 'required when state is abandoned' }])
      if (body.lock_period === true && body.state !== 'closed') return reject('request_invalid', 'lock_period locks a closed period; it goes with state closed.', [{ path: '/lock_period', message: 'only with state closed' }])
      const transition = { ...envelope, type: 'window.transition' as const, window: params.id, state: body.state, reason: body.reason ?? null, key_name: key.name }
      const locked = body.lock_period === true ? { ...transition, lock_period: true } : transition
      return body.state === 'closed' ? withApprovals(locked, workspace) : locked
    },
  }),
  v2Route({
    method: 'POST', pattern: '/v2/reconciliations/:id/lines', scope: 'recon:write', summary: 'Add statement lines (JSON, text/csv, or a statement file)',
    body: {
      validate: linesAddBody, limit: 'import', parseFormat: csvFormat, statementFile: 'named',
      parse: (bytes) => parseStatementCsv(bytes),
    },
    query: [formatQuery],
    errors: ['request_invalid', 'statement_invalid', 'not_found', 'account_unknown', 'recon_state_invalid', 'line_outside_window', 'statement_unbalanced', 'currency_mismatch'],
    response: { status: 201, description: 'The lines added, with their ids', schema: linesAdded },
    handle: ({ envelope, body, params }) => {
      if (body instanceof StatementsRead) return statementLinesCommand(envelope, params.id, body)
      const zero = zeroAmountRejection(body.lines, 'Statement line')
      if (zero !== null) return zero
      const lines: StatementLineInput[] = body.lines.map((line) => ({
        amount: line.amount, date: line.date, reference: line.reference ?? null, description: line.description ?? null, value_date: line.value_date ?? null, counterparty: counterpartyOf(line.counterparty),
      }))
      return { ...envelope, type: 'window.lines.add', window: params.id, lines }
    },
  }),
  v2Route({
    method: 'GET', pattern: '/v2/reconciliations/:id/lines', scope: 'recon:read', summary: 'List statement lines',
    query: [limitQuery, statusQuery, cursor],
    errors: ['request_invalid', 'not_found'],
    response: { status: 200, description: 'A page of statement lines, in import order', schema: linePage },
    handle: ({ params, query }) => ({ read: { name: 'window.lines', params: { window: params.id, status: query.status, limit: query.limit, cursor: query.cursor } } }),
  }),
  v2Route({
    method: 'GET', pattern: '/v2/reconciliations/:id/matches', scope: 'recon:read', summary: 'List matches, active and reversed',
    query: [limitQuery, cursor],
    errors: ['request_invalid', 'not_found'],
    response: { status: 200, description: 'A page of matches, in creation order', schema: matchPage },
    handle: ({ params, query }) => ({ read: { name: 'window.matches', params: { window: params.id, limit: query.limit, cursor: query.cursor } } }),
  }),
  v2Route({
    method: 'DELETE', pattern: '/v2/reconciliations/:id/matches/:match_id', scope: 'recon:write', summary: 'Reverse a match (unmatch)',
    errors: ['not_found', 'recon_state_invalid', 'match_already_reversed', 'amount_out_of_range'],
    response: { status: 200, description: 'The match with reversed_at; residual and state are the window\'s after the reversal', schema: match },
    handle: ({ envelope, params }) => ({ ...envelope, type: 'match.reverse', window: params.id, match: params.match_id }),
  }),
  v2Route({
    method: 'GET', pattern: '/v2/reconciliations/:id/history', scope: 'recon:read', summary: 'The audit trail of a window',
    query: [limitQuery, cursor],
    errors: ['request_invalid', 'not_found'],
    response: { status: 200, description: 'A page of the window\'s events, oldest first', schema: history },
    handle: ({ params, query }) => ({ read: { name: 'window.history', params: { window: params.id, limit: query.limit, cursor: query.cursor } } }),
  }),
]

/** @module The exceptions queue (docs/API.md, Exceptions): the unmatched lines of live windows, oldest first, and a line's assignee and note. */

import { Type } from 'typebox'
import { reject } from '../../errors.js'
import { exceptionAgeDaysMax } from '../../ledger/exceptions.js'
import { v2Route, type V2Route } from '../route.js'
import { cursorQuery, limitQuery, textQuery, type QueryParam } from '../query.js'
import { lineAnnotate } from '../schemas/ledger.js'
import { exceptionPage, listedStatementLine } from '../schemas/responses.js'
import { validator } from '../schemas/validate.js'

const lineAnnotateBody = validator(lineAnnotate)

const cursor = cursorQuery(1024)
const accountQuery = textQuery('account', 'Only lines of windows that cover this account (name or id)')
const assigneeQuery = textQuery('assignee', 'Only lines assigned to exactly this assignee', 200)

/** older_than_days: absent means no age filter (integerQuery always has a default). */
const olderThanQuery: QueryParam<number | null, 'older_than_days'> = {
  name: 'older_than_days', schema: Type.Integer({ minimum: 0, maximum: exceptionAgeDaysMax }), description: 'Only lines at least this many whole days old',
  parse: (query) => {
    const text = query.get('older_than_days')
    if (text === null) return { ok: true, value: null }
    const value = Number(text)
    if (!/^\d{1,6}$/.test(text) || value > exceptionAgeDaysMax) {
      const message = `must be an integer from 0 to ${exceptionAgeDaysMax}`
      return reject('request_invalid', `Query parameter older_than_days: ${message}.`, [{ path: '/older_than_days', message }])
    }
    return { ok: true, value }
  },
}

export const exceptionRoutes: V2Route[] = [
  v2Route({
    method: 'GET', pattern: '/v2/exceptions', scope: 'recon:read', summary: 'The unmatched statement lines of every window neither closed nor abandoned, oldest first',
    query: [accountQuery, olderThanQuery, assigneeQuery, limitQuery, cursor],
    errors: ['request_invalid', 'account_unknown'],
    response: { status: 200, description: 'A page of lines, by date, then window, then line', schema: exceptionPage },
    handle: ({ query, atMs }) => ({
      read: { name: 'exception.list', params: { account: query.account, olderThanDays: query.older_than_days, assignee: query.assignee, limit: query.limit, cursor: query.cursor, nowMs: atMs } },
    }),
  }),
  v2Route({
    method: 'PATCH', pattern: '/v2/reconciliations/:id/lines/:line', scope: 'recon:write', summary: 'Set or clear a statement line\'s assignee and note',
    body: { validate: lineAnnotateBody },
    errors: ['request_invalid', 'not_found', 'recon_state_invalid'],
    response: { status: 200, description: 'The line as the window\'s line list shows it', schema: listedStatementLine },
    handle: ({ envelope, body, params }) => ({
      ...envelope, type: 'window.line.annotate', window: params.id, line: params.line,
      ...(body.assignee === undefined ? {} : { assignee: body.assignee }),
      ...(body.note === undefined ? {} : { note: body.note }),
    }),
  }),
]

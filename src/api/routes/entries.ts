/** @module /v2/entries routes: post a balanced entry, read one, list with filters. No PATCH or DELETE. */

import { entryRulesVersion } from '../../ledger/commands.js'
import { v2Route, type V2Route } from '../route.js'
import { cursorQuery, limitQuery, textQuery, timestampQuery } from '../query.js'
import { entryPost } from '../schemas/ledger.js'
import { entry, entryPage } from '../schemas/responses.js'
import { validator } from '../schemas/validate.js'
import { entryFieldsOf } from './entry-fields.js'

const entryPostBody = validator(entryPost)

const listQuery = {
  account: textQuery('account', 'Entries with a line on this account (name or id)'),
  reconciliation: textQuery('reconciliation', 'Entries effective in this window\'s period that touch its accounts (rec_…)'),
  cursor: cursorQuery(1024),
  from: timestampQuery('from', 'effective_at at or after this instant'),
  to: timestampQuery('to', 'effective_at before this instant'),
}

export const entryRoutes: V2Route[] = [
  v2Route({
    method: 'POST', pattern: '/v2/entries', scope: 'entries:write', summary: 'Post a balanced entry',
    body: { validate: entryPostBody },
    errors: ['request_invalid', 'account_unknown', 'entry_unbalanced', 'amount_out_of_range'],
    response: { status: 201, description: 'The entry', schema: entry },
    handle: ({ envelope, body }) => {
      const fields = entryFieldsOf(body)
      if ('ok' in fields) return fields
      // Every field written out: `{ ...envelope, type, …fields }` took V8's slow path (about 10 µs a posting, and a slower object after).
      const { at_ms, key_id, visibility, idempotency } = envelope
      const { lines, effective_at_ms, description, metadata } = fields
      const type = 'entry.post'
      const rules = entryRulesVersion
      if (idempotency === undefined) return { at_ms, key_id, visibility, type, lines, effective_at_ms, description, rules, metadata }
      return { at_ms, key_id, visibility, idempotency, type, lines, effective_at_ms, description, rules, metadata }
    },
  }),
  v2Route({
    method: 'GET', pattern: '/v2/entries/:id', scope: 'entries:read', summary: 'Read one entry',
    errors: ['not_found'],
    response: { status: 200, description: 'The entry', schema: entry },
    handle: ({ params }) => ({ read: { name: 'entry.get', params: { entry: params.id } } }),
  }),
  v2Route({
    method: 'GET', pattern: '/v2/entries', scope: 'entries:read', summary: 'List entries, ordered by effective_at then id',
    query: [limitQuery, listQuery.account, listQuery.reconciliation, listQuery.cursor, listQuery.from, listQuery.to],
    errors: ['request_invalid', 'account_unknown', 'not_found'],
    response: { status: 200, description: 'A page of entries', schema: entryPage },
    handle: ({ query }) => {
      const { account, reconciliation, from, to, limit, cursor } = query
      return { read: { name: 'entry.list', params: { account, reconciliation, fromMs: from, toMs: to, limit, cursor } } }
    },
  }),
]

/** @module /v2/entries routes: post a balanced entry, reverse one, read one, list with filters. No PATCH or DELETE: an entry is undone by its reversal. */

import { reject } from '../../errors.js'
import { parseTimestampMs } from '../../ledger/calendar.js'
import { entryRulesVersion, type EntryPost, type EntryReverse } from '../../ledger/commands.js'
import { v2Route, type V2Route } from '../route.js'
import { cursorQuery, limitQuery, textQuery, timestampQuery } from '../query.js'
import { entryPost, entryReverse } from '../schemas/ledger.js'
import { entry, entryPage } from '../schemas/responses.js'
import { validator } from '../schemas/validate.js'
import { entryFieldsOf, withLockClosed } from './entry-fields.js'

const entryPostBody = validator(entryPost)
const entryReverseBody = validator(entryReverse)

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
    errors: ['request_invalid', 'account_unknown', 'entry_unbalanced', 'amount_out_of_range', 'period_locked'],
    response: { status: 201, description: 'The entry', schema: entry },
    handle: ({ envelope, body, workspace }) => {
      const fields = entryFieldsOf(body)
      if ('ok' in fields) return fields
      // Every field written out: `{ ...envelope, type, …fields }` took V8's slow path (about 10 µs a posting, and a slower object after).
      const { at_ms, key_id, visibility, idempotency } = envelope
      const { lines, effective_at_ms, description, metadata } = fields
      const type = 'entry.post'
      const rules = entryRulesVersion
      const command: EntryPost = idempotency === undefined
        ? { at_ms, key_id, visibility, type, lines, effective_at_ms, description, rules, metadata }
        : { at_ms, key_id, visibility, idempotency, type, lines, effective_at_ms, description, rules, metadata }
      return withLockClosed(command, workspace)
    },
  }),
  v2Route({
    method: 'POST', pattern: '/v2/entries/:id/reverse', scope: 'entries:write', summary: 'Reverse an entry: a new entry with every line negated',
    body: { validate: entryReverseBody },
    errors: ['request_invalid', 'not_found', 'entry_already_reversed', 'amount_out_of_range', 'period_locked'],
    response: { status: 201, description: 'The reversing entry, with `reverses`', schema: entry },
    handle: ({ envelope, body, params, workspace }) => {
      let effectiveAtMs: number | null = null
      if (body.effective_at !== undefined) {
        effectiveAtMs = parseTimestampMs(body.effective_at)
        if (effectiveAtMs === null) return reject('request_invalid', 'effective_at must be an RFC 3339 timestamp.', [{ path: '/effective_at', message: 'must be an RFC 3339 timestamp' }])
      }
      const command: EntryReverse = { ...envelope, type: 'entry.reverse', entry: params.id, effective_at_ms: effectiveAtMs, description: body.description ?? null }
      return withLockClosed(command, workspace)
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

/** @module POST /v2/entries/batch (docs/API.md, Bulk postings): each item checked as POST /v2/entries checks its body, then one entry.batch command. */

import type { Rejection } from '../../errors.js'
import { entryRulesVersion, type EntryBatch, type EntryBatchItem } from '../../ledger/commands.js'
import { v2Route, type Built } from '../route.js'
import { entryBatch, entryBatchOuter, entryBatchSizeMax, entryPost } from '../schemas/ledger.js'
import { entryBatchAnswer } from '../schemas/responses.js'
import { validator } from '../schemas/validate.js'
import { entryFieldsOf, withLockClosed } from './entry-fields.js'

const itemBody = validator(entryPost)
// Items are checked one by one below (a refused item answers with its index, or in place); the
// document publishes the batch with its item schema.
const batchBody = Object.assign(validator(entryBatchOuter), { schema: entryBatch })

export const entryBatchRoute = v2Route({
  method: 'POST', pattern: '/v2/entries/batch', scope: 'entries:write', summary: 'Post up to 8,190 entries in one request and one log record',
  body: { validate: batchBody, limit: 'import' },
  // One write token per entry (docs/API.md, Bulk postings): the rate stage asks before the body is checked, so a body
  // of more entries than a batch may hold (refused by its schema next) is charged as the largest batch.
  writeTokens: (value) => {
    const entries = (value as { entries?: unknown } | null)?.entries
    return Array.isArray(entries) && entries.length > 0 ? Math.min(entries.length, entryBatchSizeMax) : 1
  },
  errors: ['request_invalid', 'account_unknown', 'entry_unbalanced', 'amount_out_of_range', 'period_locked'],
  response: { status: 201, description: 'The entries posted, in request order (per item mode: a refused item as its error envelope)', schema: entryBatchAnswer },
  handle: ({ envelope, body, workspace }): Built => {
    const atomic = body.atomic ?? true
    const entries: EntryBatch['entries'][number][] = []
    for (let index = 0; index < body.entries.length; index++) {
      const valid = itemBody(body.entries[index])
      const item: EntryBatchItem | { refused: Rejection } = valid.ok ? refusedOr(entryFieldsOf(valid.value)) : { refused: valid }
      if (atomic && 'refused' in item) {
        // An item refused for its shape answers unless one before it is refused by the ledger's rules.
        const command = withLockClosed({ ...envelope, entries, rules: entryRulesVersion }, workspace)
        return { read: { name: 'entry.batch.refusal', params: { command, index, refused: item.refused } } }
      }
      entries.push(item)
    }
    return withLockClosed({ ...envelope, type: 'entry.batch', atomic, entries, rules: entryRulesVersion }, workspace)
  },
})

function refusedOr(fields: ReturnType<typeof entryFieldsOf>): EntryBatchItem | { refused: Rejection } {
  return 'ok' in fields ? { refused: fields } : fields
}

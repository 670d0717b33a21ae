/** @module POST /v2/statements: a bank statement file (any format of statements/formats.ts) opens a window per statement, all or none (docs/API.md, Bank statement formats). */

import { Type } from 'typebox'
import { reject } from '../../errors.js'
import { canonicalTimeZone } from '../../ledger/time-zone-name.js'
import { enumQuery } from '../query.js'
import { v2Route, type Built, type V2Route } from '../route.js'
import { statementImported } from '../schemas/responses.js'
import type { Validator } from '../schemas/validate.js'
import { formatQuery, labelQuery, statementInputsLater, StatementsRead } from '../statement-file.js'

/** The `parse` stage hands on the file's statements, read and balanced. */
export const statementFileBody: Validator<StatementsRead> = Object.assign(
  (value: unknown) => (value instanceof StatementsRead ? { ok: true as const, value } : reject('request_invalid', 'The body is a statement file: send its bytes.', [{ path: '/', message: 'not a statement file' }])),
  { schema: Type.String({ description: 'The statement file' }) },
)

const autoMatchQuery = enumQuery('auto_match', ['true', 'false'] as const, 'true: the auto_match rules run on each window the file opens, in the same command (docs/API.md, Matching rules)')

export const statementRoutes: V2Route[] = [
  v2Route({
    method: 'POST', pattern: '/v2/statements', scope: 'recon:write', summary: 'Import a bank statement file: each statement opens a window with its lines',
    body: { validate: statementFileBody, limit: 'import', statementFile: 'every' },
    query: [formatQuery, labelQuery, autoMatchQuery],
    errors: [
      'request_invalid', 'statement_invalid', 'window_invalid', 'account_unknown', 'idempotency_conflict', 'window_overlap',
      'statement_unbalanced', 'currency_mismatch', 'amount_out_of_range',
    ],
    response: { status: 201, description: 'The windows opened, one per statement in file order (a statement imported before: its window, with Replayed: true when all were)', schema: statementImported },
    handle: async ({ envelope, body, query, workspace }): Promise<Built> => {
      const command: Built = { ...envelope, type: 'statements.import', statements: await statementInputsLater(body.statements, query.label), time_zone: canonicalTimeZone(workspace.timeZone) ?? workspace.timeZone }
      return query.auto_match === 'true' ? { ...command, auto_match: true } : command
    },
  }),
]

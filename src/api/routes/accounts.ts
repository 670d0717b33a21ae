/** @module /v2/accounts routes: create, list, read, rename or re-tag, and balance at a time. */

import { v2Route, type V2Route } from '../route.js'
import { cursorQuery, limitQuery, timestampQuery } from '../query.js'
import { accountCreate, accountUpdate } from '../schemas/ledger.js'
import { account, accountPage, balance, reconciliationStatus as reconciliationStatusSchema } from '../schemas/responses.js'
import { validator } from '../schemas/validate.js'

const accountCreateBody = validator(accountCreate)
const accountUpdateBody = validator(accountUpdate)

const accountCursor = cursorQuery(256)
const atQuery = timestampQuery('at', 'The instant of the balance; default now')

export const accountRoutes: V2Route[] = [
  v2Route({
    method: 'POST', pattern: '/v2/accounts', scope: 'accounts:write', summary: 'Create an account',
    body: { validate: accountCreateBody },
    errors: ['request_invalid', 'scope_missing', 'account_exists'],
    response: { status: 201, description: 'The account', schema: account },
    handle: ({ envelope, body, workspace }) => {
      // The default is stamped here, so the log says which currency the account got (commands.ts).
      return { ...envelope, type: 'account.create', name: body.name, tags: body.tags ?? [], currency: body.currency ?? workspace.currency, external_id: body.external_id ?? null }
    },
  }),
  v2Route({
    method: 'GET', pattern: '/v2/accounts', scope: 'accounts:read', summary: 'List accounts',
    query: [limitQuery, accountCursor],
    errors: ['request_invalid'],
    response: { status: 200, description: 'A page of accounts, in creation order', schema: accountPage },
    handle: ({ query }) => ({ read: { name: 'account.list', params: { limit: query.limit, cursor: query.cursor } } }),
  }),
  v2Route({
    method: 'GET', pattern: '/v2/accounts/:id', scope: 'accounts:read', summary: 'Read an account by id or URL-encoded name',
    errors: ['not_found'],
    response: { status: 200, description: 'The account', schema: account },
    handle: ({ params }) => ({ read: { name: 'account.get', params: { account: params.id } } }),
  }),
  v2Route({
    method: 'PATCH', pattern: '/v2/accounts/:id', scope: 'accounts:write', summary: 'Rename, re-tag, change the currency or external_id of an account',
    body: { validate: accountUpdateBody },
    errors: ['not_found', 'request_invalid', 'scope_missing', 'account_exists', 'account_in_use'],
    response: { status: 200, description: 'The account', schema: account },
    handle: ({ envelope, body, params }) => {
      return { ...envelope, type: 'account.update', account: params.id, name: body.name, tags: body.tags, currency: body.currency, external_id: body.external_id }
    },
  }),
  v2Route({
    method: 'GET', pattern: '/v2/accounts/:id/balance', scope: 'accounts:read', summary: 'Balance at an optional time',
    query: [atQuery],
    errors: ['request_invalid', 'not_found'],
    response: { status: 200, description: 'The sum of every entry line on the account with effective_at ≤ at', schema: balance },
    handle: ({ params, query, atMs }) => ({ read: { name: 'account.balance', params: { account: params.id, atMs: query.at ?? atMs } } }),
  }),
  v2Route({
    method: 'GET', pattern: '/v2/accounts/:id/reconciliation-status', scope: 'recon:read', summary: 'How far the account\'s windows reconcile it: open windows, gaps, breaks',
    errors: ['not_found'],
    response: { status: 200, description: 'The account\'s reconciliation status (docs/API.md, Reconciliation windows, "Continuity")', schema: reconciliationStatusSchema },
    handle: ({ params }) => ({ read: { name: 'account.reconciliation-status', params: { account: params.id } } }),
  }),
]

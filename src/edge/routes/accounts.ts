/** @module /v2/accounts routes: create, list, read, rename or re-tag, and balance at a time. */

import { reject } from '../../errors.js'
import { accountView, findAccount, listAccounts } from '../../ledger/accounts.js'
import { balanceAt } from '../../ledger/balances.js'
import { accept } from '../../ledger/outcome.js'
import type { V2Route } from '../route.js'
import { cursorQuery, limitQuery, timestampQuery } from '../query.js'
import { accountCreate, accountUpdate } from '../schemas/ledger.js'
import { account, accountPage, balance } from '../schemas/responses.js'
import { validator } from '../schemas/validate.js'

const accountCursor = cursorQuery(256)
const atQuery = timestampQuery('at', 'The instant of the balance; default now')

export const accountRoutes: V2Route[] = [
  {
    method: 'POST', pattern: '/v2/accounts', scope: 'accounts:write', summary: 'Create an account',
    body: { validate: validator(accountCreate) },
    errors: ['request_invalid', 'scope_missing', 'account_exists'],
    response: { status: 201, description: 'The account', schema: account },
    handle: ({ actor, envelope, body }) => {
      const input = body as { name: string; tags?: string[] }
      return actor.submit({ ...envelope, type: 'account.create', name: input.name, tags: input.tags ?? [] })
    },
  },
  {
    method: 'GET', pattern: '/v2/accounts', scope: 'accounts:read', summary: 'List accounts',
    query: [limitQuery, accountCursor],
    errors: ['request_invalid'],
    response: { status: 200, description: 'A page of accounts, in creation order', schema: accountPage },
    handle: ({ actor, query, key }) => {
      const limit = limitQuery.parse(query)
      if (!limit.ok) return limit
      const cursor = accountCursor.parse(query)
      if (!cursor.ok) return cursor
      return actor.query((state) => listAccounts(state, { limit: limit.value, cursor: cursor.value }, key.accounts))
    },
  },
  {
    method: 'GET', pattern: '/v2/accounts/:id', scope: 'accounts:read', summary: 'Read an account by id or URL-encoded name',
    errors: ['not_found'],
    response: { status: 200, description: 'The account', schema: account },
    handle: ({ actor, params, key }) => actor.query((state) => {
      const account = findAccount(state, params.id, key.accounts)
      return account === undefined ? reject('not_found', 'No such account.') : accept(200, accountView(account))
    }),
  },
  {
    method: 'PATCH', pattern: '/v2/accounts/:id', scope: 'accounts:write', summary: 'Rename or re-tag an account',
    body: { validate: validator(accountUpdate) },
    errors: ['not_found', 'request_invalid', 'scope_missing', 'account_exists'],
    response: { status: 200, description: 'The account', schema: account },
    handle: ({ actor, envelope, body, params }) => {
      const input = body as { name?: string; tags?: string[] }
      return actor.submit({ ...envelope, type: 'account.update', account: params.id, name: input.name, tags: input.tags })
    },
  },
  {
    method: 'GET', pattern: '/v2/accounts/:id/balance', scope: 'accounts:read', summary: 'Balance at an optional time',
    query: [atQuery],
    errors: ['request_invalid', 'not_found'],
    response: { status: 200, description: 'The sum of every entry line on the account with effective_at ≤ at', schema: balance },
    handle: ({ actor, params, key, query, atMs }) => {
      const at = atQuery.parse(query)
      if (!at.ok) return at
      return actor.query((state) => balanceAt(state, params.id, at.value ?? atMs, key.accounts))
    },
  },
]

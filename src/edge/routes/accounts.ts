/** @module /v2/accounts routes: create, list, read, rename or re-tag, and balance at a time. */

import { reject } from '../../errors.js'
import { accountView, findAccount } from '../../ledger/accounts.js'
import { balanceAt } from '../../ledger/entries.js'
import { accept } from '../../ledger/outcome.js'
import { collectPage, decodeCursor } from '../../ledger/pages.js'
import { isVisible } from '../../ledger/visibility.js'
import type { V2Route } from '../route.js'
import { limitParam, textParam, timestampParam } from '../query.js'
import { accountCreate, accountUpdate } from '../schemas/ledger.js'
import { validator } from '../schemas/validate.js'

export const accountRoutes: V2Route[] = [
  {
    method: 'POST', pattern: '/v2/accounts', scope: 'accounts:write', summary: 'Create an account',
    body: { validate: validator(accountCreate) },
    handle: ({ actor, envelope, body }) => {
      const input = body as { name: string; tags?: string[] }
      return actor.submit({ ...envelope, type: 'account.create', name: input.name, tags: input.tags ?? [] })
    },
  },
  {
    method: 'GET', pattern: '/v2/accounts', scope: 'accounts:read', summary: 'List accounts',
    handle: ({ actor, query, key }) => {
      const limit = limitParam(query)
      if (!limit.ok) return limit
      const cursorText = textParam(query, 'cursor')
      if (!cursorText.ok) return cursorText
      const cursor = cursorText.value === null ? { atMs: 0, seq: 0 } : decodeCursor(cursorText.value)
      if (cursor === null) return reject('request_invalid', 'The cursor is not one this service issued.', [{ path: '/cursor', message: 'invalid cursor' }])
      return actor.query((state) => {
        const seqs = (function* () { for (let seq = Math.max(1, cursor.seq); seq <= state.accounts.length; seq++) yield { atMs: 0, seq } })()
        return accept(200, collectPage(seqs, limit.value, ({ seq }) => {
          const account = state.accounts[seq - 1]
          return isVisible(key.accounts, account.name) ? accountView(account) : undefined
        }))
      })
    },
  },
  {
    method: 'GET', pattern: '/v2/accounts/:id', scope: 'accounts:read', summary: 'Read an account by id or URL-encoded name',
    handle: ({ actor, params, key }) => actor.query((state) => {
      const account = findAccount(state, params.id, key.accounts)
      return account === undefined ? reject('not_found', 'No such account.') : accept(200, accountView(account))
    }),
  },
  {
    method: 'PATCH', pattern: '/v2/accounts/:id', scope: 'accounts:write', summary: 'Rename or re-tag an account',
    body: { validate: validator(accountUpdate) },
    handle: ({ actor, envelope, body, params }) => {
      const input = body as { name?: string; tags?: string[] }
      return actor.submit({ ...envelope, type: 'account.update', account: params.id, name: input.name, tags: input.tags })
    },
  },
  {
    method: 'GET', pattern: '/v2/accounts/:id/balance', scope: 'accounts:read', summary: 'Balance at an optional time',
    handle: ({ actor, params, key, query, atMs }) => {
      const at = timestampParam(query, 'at')
      if (!at.ok) return at
      return actor.query((state) => balanceAt(state, params.id, at.value ?? atMs, key.accounts))
    },
  },
]

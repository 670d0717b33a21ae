/** @module The chart of accounts: create, rename, re-tag, look up and present accounts. */

import { reject, type Rejection } from '../errors.js'
import type { AccountCreate, AccountUpdate } from './commands.js'
import { currencyExponent } from './currency.js'
import { makeId, parseId } from './ids.js'
import { currencyDefault } from './system.js'
import { accept, type Outcome } from './outcome.js'
import { collectPage, cursorSeq, invalidCursor, listScope, seqKeys } from './pages.js'
import { formatTimestamp } from './calendar.js'
import { SumTree } from './sum-tree.js'
import type { Account, WorkspaceState } from './state.js'
import { isVisible, type Visibility } from './visibility.js'

export const accountNamePattern = '^[A-Za-z0-9_.-]+(:[A-Za-z0-9_.-]+)+$'
const accountNameRegExp = new RegExp(accountNamePattern)
export const accountNameLengthMax = 200

export function isAccountName(name: string): boolean {
  return name.length <= accountNameLengthMax && accountNameRegExp.test(name)
}

/** An account by id or by name, only when the key can see it. */
export function findAccount(state: WorkspaceState, reference: string, visibility: Visibility): Account | undefined {
  const seq = parseId('acc_', state.tag, reference)
  const account = seq > 0 ? state.accounts[seq - 1] : state.accountsByName.get(reference)
  if (account === undefined || !isVisible(visibility, account.name)) return undefined
  return account
}

export function accountView(account: Account): object {
  return { id: account.id, name: account.name, currency: account.currency, external_id: account.externalId, tags: account.tags, created_at: formatTimestamp(account.createdAtMs) }
}

/** An account by the bank's identifier, only when the key can see it. */
export function findAccountByExternalId(state: WorkspaceState, externalId: string, visibility: Visibility): Account | undefined {
  const account = state.accountsByExternalId.get(externalId)
  return account === undefined || !isVisible(visibility, account.name) ? undefined : account
}

export function createAccount(state: WorkspaceState, command: AccountCreate): Outcome {
  const currency = command.currency ?? currencyDefault
  const externalId = command.external_id ?? null
  if (!isAccountName(command.name)) return reject('request_invalid', 'Account name must be segments joined by ":".', [{ path: '/name', message: 'invalid account name' }])
  if (currencyExponent(currency) === undefined) return unknownCurrency(currency)
  if (!isVisible(command.visibility, command.name)) return reject('scope_missing', `This key cannot create accounts outside its visible accounts: ${command.name}.`)
  if (state.accountsByName.has(command.name)) return reject('account_exists', `An account named ${command.name} already exists.`)
  if (externalId !== null && state.accountsByExternalId.has(externalId)) return externalIdTaken(externalId)
  const seq = state.accounts.length + 1
  const account: Account = {
    id: makeId('acc_', state.tag, seq),
    seq,
    name: command.name,
    tags: [...command.tags],
    createdAtMs: command.at_ms,
    currency,
    externalId,
    index: new SumTree({ allocator: state.treeArena }),
  }
  state.accounts.push(account)
  state.accountsByName.set(account.name, account)
  if (externalId !== null) state.accountsByExternalId.set(externalId, account)
  return accept(201, accountView(account))
}

function unknownCurrency(code: string): Rejection {
  return reject('request_invalid', `Unknown ISO 4217 currency: ${code}.`, [{ path: '/currency', message: 'unknown currency' }])
}

function externalIdTaken(externalId: string): Rejection {
  return reject('account_exists', `An account with external_id ${externalId} already exists.`, [{ path: '/external_id', message: 'taken' }])
}

/** Amounts on the account are in its currency's minor unit: it changes only while nothing rests on it. */
function isInUse(state: WorkspaceState, account: Account): boolean {
  if (account.index.size > 0) return true
  return state.windows.windows.some((window) => window.accountSeqs.includes(account.seq))
}

export function updateAccount(state: WorkspaceState, command: AccountUpdate): Outcome {
  const account = findAccount(state, command.account, command.visibility)
  if (account === undefined) return reject('not_found', 'No such account.')
  const name = command.name
  const currency = command.currency === account.currency ? undefined : command.currency
  const externalId = command.external_id
  // Every check before any change: a rejection leaves the account as it was.
  if (name !== undefined && name !== account.name) {
    if (!isAccountName(name)) return reject('request_invalid', 'Account name must be segments joined by ":".', [{ path: '/name', message: 'invalid account name' }])
  }
  if (currency !== undefined && currencyExponent(currency) === undefined) return unknownCurrency(currency)
  if (name !== undefined && name !== account.name) {
    if (!isVisible(command.visibility, name)) return reject('scope_missing', `This key cannot name an account outside its visible accounts: ${name}.`)
    if (state.accountsByName.has(name)) return reject('account_exists', `An account named ${name} already exists.`)
  }
  if (externalId !== undefined && externalId !== null && externalId !== account.externalId && state.accountsByExternalId.has(externalId)) return externalIdTaken(externalId)
  if (currency !== undefined && isInUse(state, account)) return reject('account_in_use', `The currency of ${account.name} cannot change: entry lines or a window rest on it in ${account.currency}.`)
  if (name !== undefined && name !== account.name) {
    state.accountsByName.delete(account.name)
    account.name = name
    state.accountsByName.set(name, account)
  }
  if (command.tags !== undefined) account.tags = [...command.tags]
  if (currency !== undefined) account.currency = currency
  if (externalId !== undefined && externalId !== account.externalId) {
    if (account.externalId !== null) state.accountsByExternalId.delete(account.externalId)
    account.externalId = externalId
    if (externalId !== null) state.accountsByExternalId.set(externalId, account)
  }
  return accept(200, accountView(account))
}

export interface AccountListQuery {
  readonly limit: number
  readonly cursor: string | null
}

/** Accounts in creation order; those the key cannot see are left out. */
export function listAccounts(state: WorkspaceState, query: AccountListQuery, visibility: Visibility): Outcome {
  const scope = listScope('accounts')
  const startSeq = cursorSeq(scope, query.cursor)
  if (startSeq === null) return invalidCursor()
  return accept(200, collectPage(scope, seqKeys(startSeq, state.accounts.length), query.limit, ({ seq }) => {
    const account = state.accounts[seq - 1]
    return isVisible(visibility, account.name) ? accountView(account) : undefined
  }))
}

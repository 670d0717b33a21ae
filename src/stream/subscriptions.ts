/** @module subscribe and unsubscribe messages (docs/API.md, WebSocket API and live updates): scopes and visibility as over HTTP, the current value first, then updates. */

import { validator } from '../api/schemas/validate.js'
import { reject, type ErrorDetail } from '../errors.js'
import { findAccount } from '../ledger/accounts.js'
import { accept } from '../ledger/outcome.js'
import type { Account } from '../ledger/state.js'
import { findWindow } from '../ledger/window-effects.js'
import type { ReconciliationWindow } from '../ledger/windows-state.js'
import { accountTopic, balanceMessage, windowMessage, windowTopic } from './hub.js'
import { topicsMessage as topicsMessageSchema } from './message-schemas.js'
import type { StreamContext } from './messages.js'
import { errorText } from './replies.js'
import type { StreamSession } from './session.js'

/** The schema the OpenAPI document publishes (message-schemas.ts) is the one subscriptions are validated with. */
const topicsMessage = validator(topicsMessageSchema)

interface Topics {
  readonly id: string | undefined
  readonly windows: readonly string[]
  readonly accounts: readonly string[]
}

function topicsOf(session: StreamSession, message: Record<string, unknown>): Topics | null {
  const valid = topicsMessage(message)
  if (!valid.ok) {
    session.send(errorText(valid, message.id))
    return null
  }
  const { id, reconciliations = [], accounts = [] } = valid.value
  if (reconciliations.length + accounts.length === 0) {
    session.send(errorText(reject('request_invalid', 'Name at least one reconciliation or account.', [{ path: '/reconciliations', message: 'or accounts: at least one id' }]), id))
    return null
  }
  const scopes = session.caller!.key!.scopes
  const missing = reconciliations.length > 0 && !scopes.includes('recon:read') ? 'recon:read' : accounts.length > 0 && !scopes.includes('accounts:read') ? 'accounts:read' : null
  if (missing !== null) {
    session.send(errorText(reject('scope_missing', `This key lacks the scope ${missing}.`), id))
    return null
  }
  return { id, windows: reconciliations, accounts }
}

function ackText(type: 'subscribed' | 'unsubscribed', id: string | undefined, windows: readonly string[], accounts: readonly string[]): string {
  const idText = id === undefined ? '' : `"id":${JSON.stringify(id)},`
  return `{"type":"${type}",${idText}"reconciliations":${JSON.stringify(windows)},"accounts":${JSON.stringify(accounts)}}`
}

/**
 * Resolved and watched in the actor's turn, so no command falls between the value read and the watch;
 * answered once the log is durable up to that value (no dirty read), before any later update (the log
 * releases completions in seq order). Nothing is watched when any id is unknown or invisible (404).
 */
export function subscribe(context: StreamContext, session: StreamSession, message: Record<string, unknown>): void {
  const topics = topicsOf(session, message)
  if (topics === null) return
  const key = session.caller!.key!
  const initial: [string, string][] = []
  const completion = context.runtime.actor(key.workspace).query((state) => {
    const details: ErrorDetail[] = []
    const windows: ReconciliationWindow[] = []
    const accounts: Account[] = []
    topics.windows.forEach((id, index) => {
      const window = findWindow(state, id, key.accounts)
      if (window === undefined) details.push({ path: `/reconciliations/${index}`, message: `no reconciliation ${id}` })
      else windows.push(window)
    })
    topics.accounts.forEach((reference, index) => {
      const account = findAccount(state, reference, key.accounts)
      if (account === undefined) details.push({ path: `/accounts/${index}`, message: `no account ${reference}` })
      else accounts.push(account)
    })
    if (details.length > 0) return reject('not_found', `Nothing to watch at ${details[0].path}.`, details)
    if (session.closed) return reject('unavailable', 'The socket closed.')
    const atMs = context.clock()
    for (const window of windows) initial.push([windowTopic(window), windowMessage(state, window)])
    for (const account of accounts) initial.push([accountTopic(account), balanceMessage(state, account, atMs)])
    for (const [topic] of initial) {
      session.topics.add(topic)
      context.hub.watch(key.workspace, topic, session)
    }
    return accept(200, ackText('subscribed', topics.id, windows.map((window) => window.id), accounts.map((account) => account.id)))
  })
  completion.whenDurable((error) => {
    const outcome = completion.outcome
    if (error !== null) return session.send(errorText(reject('unavailable', 'The log could not be written.'), topics.id))
    if (!outcome.ok) return session.send(errorText(outcome, topics.id))
    session.started(outcome.body as string, initial)
  })
}

/** Stops the named topics at once (an id or name it cannot resolve is no topic of this socket's anyway). */
export function unsubscribe(context: StreamContext, session: StreamSession, message: Record<string, unknown>): void {
  const topics = topicsOf(session, message)
  if (topics === null) return
  const key = session.caller!.key!
  const state = context.runtime.actor(key.workspace).state
  const windowTopics = topics.windows.map((id) => `r:${id}`)
  const accounts = topics.accounts.map((reference) => findAccount(state, reference, key.accounts)).filter((account) => account !== undefined)
  for (const topic of [...windowTopics, ...accounts.map(accountTopic)]) {
    session.stop(topic)
    context.hub.unwatch(key.workspace, topic, session)
  }
  session.send(ackText('unsubscribed', topics.id, topics.windows, accounts.map((account) => account.id)))
}

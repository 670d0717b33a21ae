/** @module subscribe and unsubscribe messages (docs/API.md, WebSocket API and live updates): scopes and visibility as over HTTP, the current value first, then updates. */

import { validator } from '../api/schemas/validate.js'
import { reject } from '../errors.js'
import type { Subscribed } from '../shard/topics.js'
import { topicsMessage as topicsMessageSchema } from './message-schemas.js'
import type { StreamContext } from './messages.js'
import { errorEnvelopeText, errorText } from './replies.js'
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
 * Resolved and watched in the shard's turn, so no command falls between the value read and the watch;
 * answered once the log is durable up to that value (no dirty read), before any later update (the shard
 * hands out updates behind the answers released before them). Nothing is watched when any id is unknown or
 * invisible (404).
 */
export function subscribe(context: StreamContext, session: StreamSession, message: Record<string, unknown>): void {
  const topics = topicsOf(session, message)
  if (topics === null) return
  const key = session.caller!.key!
  const workspace = key.workspace
  const operation = { op: 'subscribe', workspace, visibility: key.accounts, windows: topics.windows, accounts: topics.accounts, atMs: context.clock() } as const
  void context.shard.send(operation).then((reply) => {
    if (reply.status !== 200) return session.send(errorEnvelopeText(reply.body, topics.id))
    const answer = JSON.parse(reply.body) as Subscribed
    if (session.closed) return context.hub.dropped(workspace, answer.initial.map(([topic]) => topic))
    for (const [topic] of answer.initial) {
      session.topics.add(topic)
      context.hub.watch(workspace, topic, session)
    }
    session.started(ackText('subscribed', topics.id, answer.reconciliations, answer.accounts), answer.initial)
  })
}

/** Stops the named topics (an id or name it cannot resolve is no topic of this socket's anyway), then acknowledges. */
export function unsubscribe(context: StreamContext, session: StreamSession, message: Record<string, unknown>): void {
  const topics = topicsOf(session, message)
  if (topics === null) return
  const key = session.caller!.key!
  const workspace = key.workspace
  void context.shard.send({ op: 'unsubscribe', workspace, visibility: key.accounts, windows: topics.windows, accounts: topics.accounts }).then((reply) => {
    if (reply.status !== 200) return session.send(errorEnvelopeText(reply.body, topics.id))
    const { accounts } = JSON.parse(reply.body) as { accounts: string[] }
    for (const topic of [...topics.windows.map((id) => `r:${id}`), ...accounts.map((id) => `a:${id}`)]) {
      if (!session.topics.has(topic)) continue
      session.stop(topic)
      context.hub.unwatch(workspace, topic, session)
    }
    session.send(ackText('unsubscribed', topics.id, topics.windows, accounts))
  })
}

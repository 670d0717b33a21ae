/** @module Webhook subscriptions of a workspace: create, delete, list, and which subscriptions an event goes to. */

import { reject, type ErrorDetail } from '../errors.js'
import { formatTimestamp } from './calendar.js'
import { webhookEventTypes, type WebhookCreate, type WebhookDelete, type WebhookEventType } from './commands.js'
import { makeId, parseId } from './ids.js'
import { accept, type Outcome } from './outcome.js'
import { collectPage, cursorSeq, invalidCursor, listScope, type OrderKey } from './pages.js'
import type { WorkspaceState } from './state.js'
import type { WebhookSubscription } from './webhooks-state.js'
import { isVisible } from './visibility.js'

/** Subscriptions per workspace at most: every event is routed by a scan of them. */
export const webhookSubscriptionsMax = 50
export const webhookUrlLengthMax = 2048
/** `whsec_` and the base64 of 24 to 64 random bytes (the Standard Webhooks secret format). */
const secretPattern = /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/

/** Why a URL cannot be a webhook target, or null: absolute http(s), no credentials, no fragment. */
export function webhookUrlProblem(url: string): string | null {
  if (url.length > webhookUrlLengthMax) return `longer than ${webhookUrlLengthMax} characters`
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'not an absolute URL'
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'the scheme must be http or https'
  if (parsed.username !== '' || parsed.password !== '') return 'must not carry credentials'
  if (parsed.hash !== '') return 'must not carry a fragment'
  if (parsed.hostname === '') return 'has no host'
  return null
}

/** The event types as a set in canonical order, or the details of the names that are not event types. */
function eventTypesOf(events: readonly string[]): WebhookEventType[] | ErrorDetail[] {
  const unknown: ErrorDetail[] = []
  events.forEach((name, index) => {
    if (!(webhookEventTypes as readonly string[]).includes(name)) unknown.push({ path: `/events/${index}`, message: `unknown event type ${name}; one of ${webhookEventTypes.join(', ')}` })
  })
  if (unknown.length > 0) return unknown
  return webhookEventTypes.filter((type) => events.includes(type))
}

export function createWebhook(state: WorkspaceState, command: WebhookCreate): Outcome {
  const urlProblem = webhookUrlProblem(command.url)
  if (urlProblem !== null) return reject('request_invalid', `url: ${urlProblem}.`, [{ path: '/url', message: urlProblem }])
  if (command.events.length === 0) return reject('request_invalid', 'events must name at least one event type.', [{ path: '/events', message: 'empty' }])
  const events = eventTypesOf(command.events)
  if (events.length > 0 && typeof events[0] !== 'string') {
    const details = events as ErrorDetail[]
    return reject('request_invalid', `Unknown event type at ${details[0].path}.`, details)
  }
  if (!secretPattern.test(command.secret)) return reject('request_invalid', 'The secret is not a whsec_ secret.', [{ path: '/secret', message: 'malformed' }])
  if (state.webhooks.subscriptions.size >= webhookSubscriptionsMax) {
    return reject('request_invalid', `A workspace holds at most ${webhookSubscriptionsMax} webhook subscriptions; delete one first.`, [{ path: '/', message: 'too many subscriptions' }])
  }
  const seq = state.webhooks.lastSeq + 1
  const subscription: WebhookSubscription = {
    id: makeId('wh_', state.tag, seq),
    seq,
    url: command.url,
    events: events as WebhookEventType[],
    secret: command.secret,
    visibility: command.visibility,
    createdAtMs: command.at_ms,
    createdBy: command.key_id,
  }
  state.webhooks.lastSeq = seq
  state.webhooks.subscriptions.set(subscription.id, subscription)
  return accept(201, { ...webhookView(subscription), secret: subscription.secret })
}

export function deleteWebhook(state: WorkspaceState, command: WebhookDelete): Outcome {
  if (findWebhook(state, command.webhook) === undefined) return reject('not_found', 'No such webhook subscription.')
  state.webhooks.subscriptions.delete(command.webhook)
  return accept(204, null)
}

/** A live subscription of this workspace by id (an id of another workspace names none). */
export function findWebhook(state: WorkspaceState, id: string): WebhookSubscription | undefined {
  if (parseId('wh_', state.tag, id) === 0) return undefined
  return state.webhooks.subscriptions.get(id)
}

/** The subscription as listed: never its secret, which is shown once, at creation. */
export function webhookView(subscription: WebhookSubscription): { id: string; url: string; events: WebhookEventType[]; created_at: string } {
  return { id: subscription.id, url: subscription.url, events: [...subscription.events], created_at: formatTimestamp(subscription.createdAtMs) }
}

export function getWebhook(state: WorkspaceState, id: string): Outcome {
  const subscription = findWebhook(state, id)
  return subscription === undefined ? reject('not_found', 'No such webhook subscription.') : accept(200, webhookView(subscription))
}

/** Live subscriptions in creation order; the cursor is a subscription seq. */
export function listWebhooks(state: WorkspaceState, limit: number, cursor: string | null): Outcome {
  const scope = listScope('webhooks')
  const fromSeq = cursorSeq(scope, cursor)
  if (fromSeq === null) return invalidCursor()
  const keys = (function* (): Generator<OrderKey> {
    for (const subscription of state.webhooks.subscriptions.values()) if (subscription.seq >= fromSeq) yield { atMs: 0, seq: subscription.seq }
  })()
  const bySeq = new Map([...state.webhooks.subscriptions.values()].map((subscription) => [subscription.seq, subscription]))
  return accept(200, collectPage(scope, keys, limit, ({ seq }) => webhookView(bySeq.get(seq)!)))
}

/** The subscriptions an event goes to: those naming its type whose creating key sees every account it concerns. */
export function subscribersOf(state: WorkspaceState, type: WebhookEventType, accountNames: readonly string[]): WebhookSubscription[] {
  const subscribers: WebhookSubscription[] = []
  for (const subscription of state.webhooks.subscriptions.values()) {
    if (!subscription.events.includes(type)) continue
    if (accountNames.every((name) => isVisible(subscription.visibility, name))) subscribers.push(subscription)
  }
  return subscribers
}

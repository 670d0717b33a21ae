/** @module The data model of a workspace's webhook subscriptions (state.ts holds it; webhooks.ts changes and presents it). */

import type { WebhookEventType } from './commands.js'
import type { Visibility } from './visibility.js'

export interface WebhookSubscription {
  readonly id: string
  readonly seq: number
  readonly url: string
  /** The subscribed event types, in the canonical order of webhookEventTypes. */
  readonly events: readonly WebhookEventType[]
  /** The HMAC key of every delivery; shown once, at creation. */
  readonly secret: string
  /**
   * The visibility of the key that created it: a key restricted to some accounts subscribes to events
   * of what it can see, no more (an entry every line of which it sees, a window every account of which).
   */
  readonly visibility: Visibility
  readonly createdAtMs: number
  readonly createdBy: string
}

export interface WebhooksState {
  /** The seq of the last subscription created (deleted ones included): ids are never reused. */
  lastSeq: number
  /** Live subscriptions by id, in creation order. */
  readonly subscriptions: Map<string, WebhookSubscription>
}

export function createWebhooksState(): WebhooksState {
  return { lastSeq: 0, subscriptions: new Map() }
}

/** @module The shape of an event an accepted command emits (webhooks); events.ts derives them, outcome.ts carries them. */

import type { WebhookEventType } from './commands.js'

/**
 * One event as a subscriber receives it (`type`, `timestamp`, `data`: the Standard Webhooks payload)
 * plus the accounts it concerns, which decide which subscriptions may see it and are not sent.
 */
export interface LedgerEvent {
  readonly type: WebhookEventType
  /** The command's time, RFC 3339: the same on every delivery and every replay. */
  readonly timestamp: string
  /** The object the HTTP API answers for this resource, as it stood after the command. */
  readonly data: unknown
  readonly accountNames: readonly string[]
}

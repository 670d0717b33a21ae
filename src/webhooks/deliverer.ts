/**
 * @module The webhook deliverer: takes durable outbox items, one subscription at a time in order, POSTs
 * them signed, records each attempt, retries with exponential backoff and full jitter, gives up after the
 * retry window. Outside the request path: requests only ever write the outbox (in their command's
 * transaction) and never wait for a delivery.
 */

import assert from 'node:assert/strict'
import type { WebhookSubscription } from '../ledger/webhooks-state.js'
import type { CommandLog } from '../log/command-log.js'
import { decodeItem, decodeRow, encodeRow, parseOutboxKey, subscriptionRange, type DeliveryRow, type OutboxItem } from './outbox.js'
import { webhookSignature } from './signature.js'

export type AttemptResult = 'succeeded' | 'http_error' | 'network_error'

export interface DelivererOptions {
  readonly log: CommandLog
  /** The live subscription by id, or undefined once it is deleted (its queue is then dropped). */
  readonly lookup: (subscription: string) => WebhookSubscription | undefined
  readonly clock: () => number
  /** In [0, 1): the jitter. Injectable so tests are deterministic. */
  readonly random: () => number
  /** One attempt, connection to last byte of the answer's head, at most. */
  readonly timeoutMs: number
  /** The first retry waits up to this; each further one up to twice as long, */
  readonly backoffBaseMs: number
  /** but never more than this. */
  readonly backoffCapMs: number
  /** An event is retried until this long after its command; then it is marked failed and the next one goes. */
  readonly retryWindowMs: number
  /** Deliveries in flight at once, across subscriptions (one per subscription at most: order). */
  readonly concurrencyMax: number
  readonly onAttempt?: (result: AttemptResult) => void
  readonly onGiveUp?: () => void
  /** An outbox item finished (delivered or given up) with its final row, encoded (cluster mode: told to the standbys). */
  readonly onDone?: (key: string, row: Buffer) => void
  readonly warn?: (message: string, error: unknown) => void
}

/** The longest a Node timer may wait (2^31 − 1 ms); a later due time is simply looked at again then. */
const timerDelayMaxMs = 2 ** 31 - 1
const errorTextLengthMax = 200

/**
 * In memory only: which subscriptions may have work and when to look at them. Everything that matters is
 * in LMDB (the outbox, the rows with their next attempt time), so a restart rebuilds this by a scan.
 */
export class WebhookDeliverer {
  readonly #options: DelivererOptions
  /** subscription → when to look at its head next (ms). Absent: idle (no work known) or active. */
  readonly #due = new Map<string, number>()
  readonly #active = new Map<string, Promise<void>>()
  readonly #controllers = new Set<AbortController>()
  #timer: NodeJS.Timeout | null = null
  #stopped = false

  constructor(options: DelivererOptions) {
    this.#options = options
  }

  /** Picks up what the outbox holds (a restart, a kill -9) and listens for what new commits add. */
  start(): void {
    const { log } = this.#options
    log.onSideDurable = (names) => this.notify(names)
    for (const subscription of distinctSubscriptions(log, 'outbox')) this.#due.set(subscription, 0)
    // Rows of a subscription deleted just before a stop: its DELETE notified a deliverer that is gone.
    for (const subscription of distinctSubscriptions(log, 'deliveries')) {
      if (this.#options.lookup(subscription) === undefined) this.#due.set(subscription, 0)
    }
    this.#schedule()
  }

  /** Subscriptions with new durable items (or just deleted): look at them now unless they wait for a retry. */
  notify(subscriptions: readonly string[]): void {
    if (this.#stopped) return
    for (const subscription of subscriptions) {
      // An active subscription is looked at again when its step settles: a second look now would deliver its head twice.
      if (this.#active.has(subscription)) continue
      // One waiting for a retry keeps its time, unless it was just deleted: then its queue goes now.
      if (!this.#due.has(subscription) || this.#options.lookup(subscription) === undefined) this.#due.set(subscription, 0)
    }
    this.#schedule()
  }

  /** Stops taking work, aborts attempts in flight (they are retried after the next start), waits for them. */
  async stop(): Promise<void> {
    this.#stopped = true
    if (this.#options.log.onSideDurable !== null) this.#options.log.onSideDurable = null
    if (this.#timer !== null) clearTimeout(this.#timer)
    for (const controller of this.#controllers) controller.abort(new Error('the service is stopping'))
    await Promise.allSettled([...this.#active.values()])
  }

  /** Subscriptions known to have queued work (tests, metrics). */
  get pendingSubscriptions(): number {
    return this.#due.size + this.#active.size
  }

  #schedule(): void {
    if (this.#stopped) return
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    if (this.#active.size >= this.#options.concurrencyMax || this.#due.size === 0) return
    let nextMs = Infinity
    for (const dueMs of this.#due.values()) nextMs = Math.min(nextMs, dueMs)
    const delayMs = Math.min(timerDelayMaxMs, Math.max(0, nextMs - this.#options.clock()))
    this.#timer = setTimeout(() => this.#pump(), delayMs)
    this.#timer.unref()
  }

  #pump(): void {
    this.#timer = null
    if (this.#stopped) return
    const nowMs = this.#options.clock()
    for (const [subscription, dueMs] of this.#due) {
      if (this.#active.size >= this.#options.concurrencyMax) break
      if (dueMs > nowMs) continue
      this.#due.delete(subscription)
      assert.ok(!this.#active.has(subscription), `webhook subscription ${subscription} would be delivered twice at once`)
      this.#look(subscription, nowMs)
    }
    this.#schedule()
  }

  /** The head of one subscription's queue: deliver it now, later, or drop the queue of a deleted subscription. */
  #look(subscription: string, nowMs: number): void {
    const { log } = this.#options
    const range = subscriptionRange(subscription)
    const live = this.#options.lookup(subscription)
    if (live === undefined) return this.#run(subscription, () => this.#purge(subscription))
    let head: { key: string; value: Uint8Array } | undefined
    for (const entry of log.sideDb('outbox').getRange({ ...range, limit: 1 })) head = entry
    if (head === undefined) return
    const { seq } = parseOutboxKey(head.key)
    // Committed is not yet durable: a crash could still take the command back, and its event with it.
    if (seq > log.durableSeq) return log.afterDurable(seq, (error) => { if (error === null) this.notify([subscription]) })
    const rowBytes = log.sideDb('deliveries').get(head.key)
    const row = rowBytes === undefined ? null : decodeRow(rowBytes)
    if (row !== null && row.next_attempt_at_ms !== null && row.next_attempt_at_ms > nowMs) {
      this.#due.set(subscription, row.next_attempt_at_ms)
      return
    }
    const decoded = decodeItem(head.key, head.value)
    const key = head.key
    if (!decoded.ok) return this.#run(subscription, () => this.#record(key, giveUpRow(row, key, nowMs, `the outbox item is damaged (${decoded.reason})`), true).then(() => 0))
    this.#run(subscription, () => this.#attempt(key, decoded.item, live, row))
  }

  /** Runs one step of a subscription; when it settles, the subscription is looked at again at the time it returns. */
  #run(subscription: string, step: () => Promise<number | null>): void {
    const running = step().then(
      (dueMs) => dueMs,
      (error: unknown) => {
        this.#options.warn?.(`webhook delivery bookkeeping of ${subscription} failed; retrying later`, error)
        return this.#options.clock() + this.#options.backoffCapMs
      },
    ).then((dueMs: number | null) => {
      this.#active.delete(subscription)
      if (this.#stopped) return
      if (dueMs !== null) this.#due.set(subscription, dueMs)
      this.#schedule()
    })
    this.#active.set(subscription, running)
  }

  /** One POST; returns when to look at this subscription next (0: at once, the head has moved on). */
  async #attempt(key: string, item: OutboxItem, subscription: WebhookSubscription, row: DeliveryRow | null): Promise<number> {
    const { clock, timeoutMs } = this.#options
    const attemptAtMs = clock()
    const outcome = await this.#post(subscription, item, Math.floor(attemptAtMs / 1000), timeoutMs)
    if (this.#stopped && outcome.aborted) return 0
    const attempts = (row?.attempts ?? 0) + 1
    const base = { event_id: item.event_id, event_type: item.event_type, attempts, created_at_ms: item.created_at_ms, last_attempt_at_ms: attemptAtMs, last_status_code: outcome.status, last_error: outcome.error }
    if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
      this.#options.onAttempt?.('succeeded')
      await this.#record(key, { ...base, status: 'succeeded', next_attempt_at_ms: null }, true)
      return 0
    }
    this.#options.onAttempt?.(outcome.status === null ? 'network_error' : 'http_error')
    const deadlineMs = item.created_at_ms + this.#options.retryWindowMs
    if (attemptAtMs >= deadlineMs) {
      this.#options.onGiveUp?.()
      await this.#record(key, { ...base, status: 'failed', next_attempt_at_ms: null }, true)
      return 0
    }
    const nextMs = Math.min(deadlineMs, attemptAtMs + this.#backoffMs(attempts))
    await this.#record(key, { ...base, status: 'pending', next_attempt_at_ms: nextMs }, false)
    return nextMs
  }

  /** Full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"): uniform in [0, min(cap, base·2^(n−1))]. */
  #backoffMs(attempts: number): number {
    const { backoffBaseMs, backoffCapMs, random } = this.#options
    const ceilingMs = Math.min(backoffCapMs, backoffBaseMs * 2 ** Math.min(attempts - 1, 40))
    return Math.max(1, Math.floor(random() * ceilingMs))
  }

  async #post(subscription: WebhookSubscription, item: OutboxItem, timestampSeconds: number, timeoutMs: number): Promise<{ status: number | null; error: string | null; aborted: boolean }> {
    const controller = new AbortController()
    this.#controllers.add(controller)
    const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
    try {
      const response = await fetch(subscription.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'trueup-webhooks/1',
          'webhook-id': item.event_id,
          'webhook-timestamp': String(timestampSeconds),
          'webhook-signature': webhookSignature(subscription.secret, item.event_id, timestampSeconds, item.body),
        },
        body: item.body,
        // A redirect is not followed (it would re-send a signed body elsewhere): a 3xx is a failed attempt.
        redirect: 'manual',
        signal: controller.signal,
      })
      // The answer's body is not read: only the status counts.
      await response.body?.cancel().catch(() => undefined)
      return { status: response.status, error: response.ok ? null : `HTTP ${response.status}`, aborted: false }
    } catch (error) {
      return { status: null, error: describeError(controller.signal.aborted ? controller.signal.reason : error), aborted: controller.signal.aborted }
    } finally {
      clearTimeout(timer)
      this.#controllers.delete(controller)
    }
  }

  /** The row, and with done the removal from the outbox: one transaction, not waited on for fsync. */
  async #record(key: string, row: DeliveryRow, done: boolean): Promise<void> {
    const { log } = this.#options
    const bytes = encodeRow(row)
    await log.root.transaction(() => {
      void log.sideDb('deliveries').put(key, bytes)
      if (done) void log.sideDb('outbox').remove(key)
    })
    if (done) this.#options.onDone?.(key, bytes)
  }

  /** Drops every queued item and every row of a deleted subscription. Returns null: nothing more to look at. */
  async #purge(subscription: string): Promise<number | null> {
    const { log } = this.#options
    const range = subscriptionRange(subscription)
    await log.root.transaction(() => {
      for (const name of ['outbox', 'deliveries'] as const) {
        const db = log.sideDb(name)
        // Collected first: removing under a live cursor of the same transaction is not safe.
        const keys = [...db.getKeys(range)]
        for (const key of keys) void db.remove(key)
      }
    })
    return null
  }
}

function giveUpRow(row: DeliveryRow | null, key: string, nowMs: number, error: string): DeliveryRow {
  const { seq, index } = parseOutboxKey(key)
  return {
    event_id: row?.event_id ?? `msg_${seq}_${index}`, event_type: row?.event_type ?? 'entry.posted', status: 'failed', attempts: row?.attempts ?? 0,
    created_at_ms: row?.created_at_ms ?? nowMs, last_attempt_at_ms: row?.last_attempt_at_ms ?? null, last_status_code: null, last_error: error, next_attempt_at_ms: null,
  }
}

/** Why an attempt failed, short and free of the URL (it may carry a token in its query). */
function describeError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause
  const text = typeof cause?.code === 'string' ? cause.code : error instanceof Error ? error.message : String(error)
  return text.slice(0, errorTextLengthMax)
}

/** The subscriptions that have keys in a side database, each once: a jump per subscription, not a scan of items. */
function* distinctSubscriptions(log: CommandLog, name: 'outbox' | 'deliveries'): Generator<string> {
  const db = log.sideDb(name)
  let start = ''
  for (;;) {
    let first: string | undefined
    for (const key of db.getKeys({ start, limit: 1 })) first = key
    if (first === undefined) return
    const { subscription } = parseOutboxKey(first)
    yield subscription
    start = subscriptionRange(subscription).end
  }
}

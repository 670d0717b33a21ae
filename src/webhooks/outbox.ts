/**
 * @module The webhook outbox and its delivery bookkeeping in LMDB: keys, item and row formats, the side
 * writes of an accepted command, and the deliveries list.
 *
 * `outbox`: what is still to be delivered, written in the transaction of the command that emitted it,
 * removed once delivered or given up. `deliveries`: one row per (subscription, event), created in that
 * same transaction (status pending), updated after each attempt without waiting for fsync: at least once
 * tolerates forgetting that an attempt happened.
 *
 * Both are keyed `<subscription id>/<log seq>/<event index, 6 digits>`, so one subscription's items sort
 * together, in the order their commands were committed. The seq takes every value the log's does (1 to
 * 2^53 - 1): below 10^10 as 10 digits, the form every key had before (so items and rows already on disk
 * are read as they are, nothing rewritten); from 10^10 on as `w` and 16 digits, which sorts after every
 * 10-digit form (`w` follows the digits in ASCII) and, among its own, by number.
 */

import assert from 'node:assert/strict'
import type { WebhookEventType } from '../ledger/commands.js'
import type { LedgerEvent } from '../ledger/ledger-event.js'
import { encodeCursor, decodeCursor, listScope, type Page } from '../ledger/pages.js'
import type { WorkspaceState } from '../ledger/state.js'
import { subscribersOf } from '../ledger/webhooks.js'
import type { CommandLog, SidePut, SideWrites } from '../log/command-log.js'
import { decodeValue, encodeValue, frame, seqMaxOf, unframe } from '../log/codec.js'

/** The narrow form's width: the only one earlier versions wrote. */
const narrowSeqDigits = 10
const wideSeqFrom = 10 ** narrowSeqDigits
/** Marks the wide form; sorts after every digit. */
const wideSeqMark = 'w'
/** The log's last seq (2^53 - 1) has 16 digits. */
const seqMax = seqMaxOf(8)
const wideSeqDigits = String(seqMax).length
const indexDigits = 6

export interface OutboxKey {
  readonly subscription: string
  readonly seq: number
  readonly index: number
}

function seqText(seq: number): string {
  if (seq < wideSeqFrom) return String(seq).padStart(narrowSeqDigits, '0')
  return wideSeqMark + String(seq).padStart(wideSeqDigits, '0')
}

export function outboxKey(subscription: string, seq: number, index: number): string {
  assert.ok(Number.isSafeInteger(seq) && seq >= 1 && seq <= seqMax)
  assert.ok(Number.isSafeInteger(index) && index >= 0 && index < 10 ** indexDigits)
  return `${subscription}/${seqText(seq)}/${String(index).padStart(indexDigits, '0')}`
}

const outboxKeyPattern = new RegExp(`^(.+)/(\\d{${narrowSeqDigits}}|${wideSeqMark}\\d{${wideSeqDigits}})/(\\d{${indexDigits}})$`)

export function parseOutboxKey(key: string): OutboxKey {
  const match = outboxKeyPattern.exec(key)
  assert.ok(match !== null, `not an outbox key: ${key}`)
  const seq = Number(match[2].startsWith(wideSeqMark) ? match[2].slice(wideSeqMark.length) : match[2])
  // One form per seq: a wide key below 10^10 (or a narrow one above) would sort out of order.
  assert.ok(seq >= 1 && seq <= seqMax && (seq >= wideSeqFrom) === match[2].startsWith(wideSeqMark), `not an outbox key: ${key}`)
  return { subscription: match[1], seq, index: Number(match[3]) }
}

/** The key range of one subscription: every key starts with `<id>/`, and `0` follows `/` in ASCII. */
export function subscriptionRange(subscription: string): { start: string; end: string } {
  return { start: `${subscription}/`, end: `${subscription}0` }
}

/** The Standard Webhooks message id: from the log position, so every redelivery carries the same one. */
export function eventId(seq: number, index: number): string {
  return `msg_${seq}_${index}`
}

/** What is delivered: the exact body bytes are fixed at commit, so every attempt signs the same payload. */
export interface OutboxItem {
  readonly workspace: string
  readonly subscription: string
  readonly event_id: string
  readonly event_type: WebhookEventType
  /** `{"type","timestamp","data"}` as JSON. */
  readonly body: string
  readonly created_at_ms: number
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed'

export interface DeliveryRow {
  readonly event_id: string
  readonly event_type: WebhookEventType
  readonly status: DeliveryStatus
  readonly attempts: number
  readonly created_at_ms: number
  readonly last_attempt_at_ms: number | null
  readonly last_status_code: number | null
  readonly last_error: string | null
  readonly next_attempt_at_ms: number | null
}

export function encodeItem(key: string, item: OutboxItem): Buffer {
  return frame(Buffer.from(key, 'utf8'), encodeValue(item))
}

/** The item, or why it cannot be read (a damaged value is given up on, never delivered half right). */
export function decodeItem(key: string, bytes: Uint8Array): { ok: true; item: OutboxItem } | { ok: false; reason: string } {
  const unframed = unframe(Buffer.from(key, 'utf8'), bytes)
  if (!unframed.ok) return unframed
  try {
    const item = decodeValue(unframed.payload) as OutboxItem
    if (typeof item?.body !== 'string' || typeof item.event_id !== 'string' || typeof item.workspace !== 'string') return { ok: false, reason: 'not an outbox item' }
    return { ok: true, item }
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) }
  }
}

export function encodeRow(row: DeliveryRow): Buffer {
  return encodeValue(row)
}

export function decodeRow(bytes: Uint8Array): DeliveryRow {
  return decodeValue(bytes) as DeliveryRow
}

/**
 * The side writes of an accepted command: for each event and each subscription it goes to, an outbox item
 * and a pending delivery row. Null when nothing is to be delivered.
 */
export function outboxWrites(state: WorkspaceState, events: readonly LedgerEvent[], atMs: number): ((seq: number) => SideWrites) | null {
  const routed = events.map((event) => subscribersOf(state, event.type, event.accountNames).map((subscription) => subscription.id))
  if (routed.every((subscribers) => subscribers.length === 0)) return null
  return (seq) => {
    const puts: SidePut[] = []
    const notify = new Set<string>()
    events.forEach((event, index) => {
      if (routed[index].length === 0) return
      const id = eventId(seq, index)
      const body = JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data })
      for (const subscription of routed[index]) {
        const key = outboxKey(subscription, seq, index)
        const item: OutboxItem = { workspace: state.workspaceId, subscription, event_id: id, event_type: event.type, body, created_at_ms: atMs }
        const row: DeliveryRow = {
          event_id: id, event_type: event.type, status: 'pending', attempts: 0, created_at_ms: atMs,
          last_attempt_at_ms: null, last_status_code: null, last_error: null, next_attempt_at_ms: atMs,
        }
        puts.push({ db: 'outbox', key, value: encodeItem(key, item) }, { db: 'deliveries', key, value: encodeRow(row) })
        notify.add(subscription)
      }
    })
    return { puts, notify: [...notify] }
  }
}

const timestampOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export function deliveryView(row: DeliveryRow): object {
  return {
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    created_at: new Date(row.created_at_ms).toISOString(),
    last_attempt_at: timestampOrNull(row.last_attempt_at_ms),
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    next_attempt_at: row.status === 'pending' ? timestampOrNull(row.next_attempt_at_ms) : null,
  }
}

/**
 * One subscription's deliveries in event order (the order they are delivered in). The cursor is the
 * position (seq, index) of the first row of the next page; null when it is not one this service issued.
 */
export function listDeliveries(log: CommandLog, subscription: string, limit: number, cursor: string | null): Page<object> | null {
  const range = subscriptionRange(subscription)
  let start = range.start
  const scope = listScope('deliveries', subscription)
  if (cursor !== null) {
    const position = decodeCursor(scope, cursor)
    if (position === null || position.seq < 0 || position.atMs < 1 || position.atMs > seqMax || position.seq >= 10 ** indexDigits) return null
    start = outboxKey(subscription, position.atMs, position.seq)
  }
  const data: object[] = []
  for (const { key, value } of log.sideDb('deliveries').getRange({ start, end: range.end, limit: limit + 1 })) {
    if (data.length === limit) {
      const next = parseOutboxKey(key)
      return { data, next_cursor: encodeCursor(scope, { atMs: next.seq, seq: next.index }) }
    }
    data.push(deliveryView(decodeRow(value)))
  }
  return { data, next_cursor: null }
}

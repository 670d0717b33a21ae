/** @module A window's view as JSON text, written out: the read of GET /v2/reconciliations/:id without JSON.stringify's generic walk. */

import { jsonText } from './json-text.js'

/** A closed window's seal: its SHA-256, and the workspace key's signature of it with that key (null while the workspace has none). */
export type SealView = {
  readonly sha256: string
  readonly signature: string | null
  readonly public_key: string | null
}

/** What windows.ts windowView returns, field by field, in the order the answer has them (a type, not an interface: the exports read it as a record). */
export type WindowView = {
  readonly id: string
  readonly label: string
  readonly accounts: readonly string[]
  readonly currency: string
  readonly window: { readonly from: string; readonly to: string }
  readonly claimed_movement: number
  readonly derived_movement: number
  readonly residual: number
  readonly opening_balance: number | null
  readonly closing_balance: number | null
  readonly book_opening_balance: number | null
  readonly book_closing_balance: number | null
  readonly opening_difference: number | null
  readonly closing_difference: number | null
  readonly previous: string | null
  readonly gap_days: number | null
  readonly opening_matches_previous: boolean | null
  readonly matched_count: number
  readonly tolerance: number
  readonly statement_ref: string | null
  readonly state: string
  readonly opened_at: string
  readonly lines_count: number
  readonly unmatched_lines_count: number
  readonly closed_at: string | null
  readonly closed_by: string | null
  readonly close_reason: string | null
  readonly abandoned_at: string | null
  readonly abandon_reason: string | null
  readonly seal: SealView | null
  readonly post_close_drift: number | null
  readonly post_close_entries: number | null
}

/** JSON.stringify of a number or null (a non-finite number is null there too). */
function numberJson(value: number | null): string {
  return value !== null && Number.isFinite(value) ? `${value}` : 'null'
}

function booleanJson(value: boolean | null): string {
  return value === null ? 'null' : value ? 'true' : 'false'
}

function textJson(value: string | null): string {
  return value === null ? 'null' : jsonText(value)
}

function sealJson(seal: SealView | null): string {
  return seal === null ? 'null' : `{"sha256":${jsonText(seal.sha256)},"signature":${textJson(seal.signature)},"public_key":${textJson(seal.public_key)}}`
}

/**
 * JSON.stringify(view), byte for byte (test/ledger/window-json.test.ts compares them on random views and on
 * the views of open, closed and abandoned windows). On Node 20 the generic walk of this 23-field object took
 * ~2 µs of a ~19 µs GET (docs/PERFORMANCE.md); a template with the strings written by jsonText is cheaper.
 */
export function windowJson(view: WindowView): string {
  let accounts = ''
  for (let i = 0; i < view.accounts.length; i++) accounts += (i === 0 ? '' : ',') + jsonText(view.accounts[i])
  return `{"id":${jsonText(view.id)},"label":${jsonText(view.label)},"accounts":[${accounts}],"currency":${jsonText(view.currency)}`
    + `,"window":{"from":${jsonText(view.window.from)},"to":${jsonText(view.window.to)}}`
    + `,"claimed_movement":${numberJson(view.claimed_movement)},"derived_movement":${numberJson(view.derived_movement)},"residual":${numberJson(view.residual)}`
    + `,"opening_balance":${numberJson(view.opening_balance)},"closing_balance":${numberJson(view.closing_balance)}`
    + `,"book_opening_balance":${numberJson(view.book_opening_balance)},"book_closing_balance":${numberJson(view.book_closing_balance)}`
    + `,"opening_difference":${numberJson(view.opening_difference)},"closing_difference":${numberJson(view.closing_difference)}`
    + `,"previous":${textJson(view.previous)},"gap_days":${numberJson(view.gap_days)},"opening_matches_previous":${booleanJson(view.opening_matches_previous)}`
    + `,"matched_count":${numberJson(view.matched_count)},"tolerance":${numberJson(view.tolerance)},"statement_ref":${textJson(view.statement_ref)}`
    + `,"state":${jsonText(view.state)},"opened_at":${jsonText(view.opened_at)},"lines_count":${numberJson(view.lines_count)}`
    + `,"unmatched_lines_count":${numberJson(view.unmatched_lines_count)},"closed_at":${textJson(view.closed_at)},"closed_by":${textJson(view.closed_by)}`
    + `,"close_reason":${textJson(view.close_reason)},"abandoned_at":${textJson(view.abandoned_at)},"abandon_reason":${textJson(view.abandon_reason)}`
    + `,"seal":${sealJson(view.seal)},"post_close_drift":${numberJson(view.post_close_drift)},"post_close_entries":${numberJson(view.post_close_entries)}}`
}

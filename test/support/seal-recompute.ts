/**
 * @module Test support: a closed window's seal recomputed from its JSON export with this file's own
 * RFC 8785 canonicalisation and node:crypto, from docs/API.md's recipe: nothing of src/ (nor of
 * scripts/verify-seal.mjs) is used, so a wrong sealer cannot agree with itself.
 */

import { createHash } from 'node:crypto'

/** JCS for JSON of strings, integers, booleans, null, arrays and objects: sorted keys, no whitespace. */
export function jcs(value: unknown): string {
  if (Array.isArray(value)) return '[' + value.map((item) => jcs(item)).join(',') + ']'
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>
    const keys = Object.keys(record).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    return '{' + keys.map((key) => JSON.stringify(key) + ':' + jcs(record[key])).join(',') + '}'
  }
  if (typeof value === 'number' && !Number.isInteger(value)) throw new Error(`the seal holds integers only, got ${value}`)
  return JSON.stringify(value)
}

const only = (from: any, names: readonly string[]): Record<string, unknown> => {
  const picked: Record<string, unknown> = {}
  for (const name of names) picked[name] = from[name]
  return picked
}

/** docs/API.md, "The seal", step by step. */
export function recomputeSeal(pack: any): string {
  const window = pack.window
  const sealed = {
    seal_version: 1,
    id: window.id,
    label: window.label,
    accounts: pack.accounts.map((account: any) => account.id),
    from: window.window.from,
    to: window.window.to,
    time_zone: pack.time_zone,
    claimed_movement: window.claimed_movement,
    derived_movement: window.derived_movement,
    residual: window.residual,
    tolerance: window.tolerance,
    statement_ref: window.statement_ref,
    opened_at: window.opened_at,
    closed_at: window.closed_at,
    closed_by: window.closed_by,
    close_reason: window.close_reason,
    lines: pack.lines.map((line: any) => only(line, ['id', 'amount', 'date', 'reference', 'description', 'match'])),
    matches: pack.matches.map((match: any) => only(match, ['id', 'strategy', 'statement_lines', 'entries', 'matched_amount', 'reason', 'created_at', 'reversed_at'])),
    // docs/API.md: every event but seal.signed (a signature added after the close, on upgrade).
    history: pack.history.filter((event: any) => event.type !== 'seal.signed'),
  }
  return createHash('sha256').update(jcs(sealed), 'utf8').digest('hex')
}

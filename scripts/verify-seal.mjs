#!/usr/bin/env node
// Recomputes a closed window's seal from its JSON export and says whether it matches (docs/API.md, "The seal").
// Plain Node (18 or later), no dependency and nothing of trueup's code: an auditor can read all of it.
//   node scripts/verify-seal.mjs rec_….json      (or the export on stdin)
// Exit status: 0 the seal matches, 1 it does not, 2 the file is not a sealed JSON export.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'

/** RFC 8785 (JCS) for the values an export holds: keys sorted by UTF-16 code units, no whitespace, integers as written. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`
  }
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`)
  return JSON.stringify(value)
}

const pick = (object, names) => Object.fromEntries(names.map((name) => [name, object[name]]))

/** The sealed document, version 1, from the export's own fields. */
export function sealedDocument(pack) {
  const w = pack.window
  return {
    seal_version: 1,
    ...pick(w, ['id', 'label', 'claimed_movement', 'derived_movement', 'residual', 'tolerance', 'statement_ref', 'opened_at', 'closed_at', 'closed_by', 'close_reason']),
    accounts: pack.accounts.map((account) => account.id),
    from: w.window.from,
    to: w.window.to,
    time_zone: pack.time_zone,
    lines: pack.lines.map((line) => pick(line, ['id', 'amount', 'date', 'reference', 'description', 'match'])),
    matches: pack.matches.map((match) => pick(match, ['id', 'strategy', 'statement_lines', 'entries', 'matched_amount', 'reason', 'created_at', 'reversed_at'])),
    history: pack.history,
  }
}

export function recomputeSeal(pack) {
  return createHash('sha256').update(canonical(sealedDocument(pack)), 'utf8').digest('hex')
}

function main() {
  const path = process.argv[2]
  const text = readFileSync(path === undefined || path === '-' ? 0 : path, 'utf8')
  const pack = JSON.parse(text)
  if (pack.format !== 'trueup.reconciliation-export' || pack.window?.state !== 'closed' || typeof pack.window.seal !== 'string') {
    console.error('not the JSON export of a closed window (format trueup.reconciliation-export, window.state closed, window.seal)')
    process.exit(2)
  }
  if (pack.seal_version !== 1) {
    console.error(`seal_version ${pack.seal_version}: this script knows version 1`)
    process.exit(2)
  }
  const recomputed = recomputeSeal(pack)
  const matches = recomputed === pack.window.seal
  console.log(`${pack.window.id}: seal ${pack.window.seal}`)
  console.log(`recomputed:  ${recomputed}`)
  console.log(matches ? 'MATCH: the export is the content that was sealed at the close' : 'MISMATCH: the export differs from what was sealed')
  if (pack.window.post_close_drift !== 0 || pack.window.post_close_entries !== 0) {
    console.log(`note: post_close_drift ${pack.window.post_close_drift}, post_close_entries ${pack.window.post_close_entries} (entries posted into the period after the close; the sealed figures are unchanged)`)
  }
  process.exit(matches ? 0 : 1)
}

if (import.meta.url === `file://${process.argv[1]}`) main()

#!/usr/bin/env node
// Recomputes a closed window's seal from its JSON export and says whether it matches (docs/API.md, "The seal").
// Plain Node (18 or later), no dependency and nothing of trueup's code: an auditor can read all of it.
//   node scripts/verify-seal.mjs rec_….json      (or `-`: the export on stdin)
// Exit status: 0 the seal matches, 1 it does not, 2 not a sealed JSON export (or a wrong command line),
// 3 the file cannot be read.
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

const usage = `Usage: node scripts/verify-seal.mjs <export.json | ->
Recomputes a closed window's seal from its JSON export (GET /v2/reconciliations/:id/export?format=json)
and says whether it matches the seal trueup recorded at the close. \`-\` reads the export from stdin.
Exit status:
  0  MATCH: the export is the content that was sealed
  1  MISMATCH: the export differs from what was sealed
  2  not the JSON export of a closed window, or a wrong command line (this text on stderr)
  3  the file cannot be read (missing, a directory, no permission)
`

const exitMismatch = 1
const exitNotExport = 2
const exitUnreadable = 3

/** The one argument: a file name or \`-\`; --help prints the usage. Anything else is a usage error (exit 2), never a wait on stdin. */
function argumentOrExit(args) {
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) {
    process.stdout.write(usage)
    process.exit(0)
  }
  if (args.length !== 1 || (args[0].startsWith('-') && args[0] !== '-')) {
    process.stderr.write(usage)
    process.exit(exitNotExport)
  }
  return args[0]
}

function readOrExit(path) {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8')
  } catch (error) {
    const reason = { ENOENT: 'no such file', EISDIR: 'it is a directory', EACCES: 'permission denied' }[error.code] ?? error.message
    console.error(`cannot read ${path === '-' ? 'stdin' : path}: ${reason}`)
    process.exit(exitUnreadable)
  }
}

function main() {
  const path = argumentOrExit(process.argv.slice(2))
  let pack
  try {
    pack = JSON.parse(readOrExit(path))
  } catch (error) {
    console.error(`not the JSON export of a closed window: ${error.message.replace(/\s+/g, ' ')}`)
    process.exit(exitNotExport)
  }
  if (pack?.format !== 'trueup.reconciliation-export' || pack.window?.state !== 'closed' || typeof pack.window.seal !== 'string') {
    console.error('not the JSON export of a closed window (format trueup.reconciliation-export, window.state closed, window.seal)')
    process.exit(exitNotExport)
  }
  if (pack.seal_version !== 1) {
    console.error(`seal_version ${pack.seal_version}: this script knows version 1`)
    process.exit(exitNotExport)
  }
  const recomputed = recomputeSeal(pack)
  const matches = recomputed === pack.window.seal
  console.log(`${pack.window.id}: seal ${pack.window.seal}`)
  console.log(`recomputed:  ${recomputed}`)
  console.log(matches ? 'MATCH: the export is the content that was sealed at the close' : 'MISMATCH: the export differs from what was sealed')
  if (pack.window.post_close_drift !== 0 || pack.window.post_close_entries !== 0) {
    console.log(`note: post_close_drift ${pack.window.post_close_drift}, post_close_entries ${pack.window.post_close_entries} (entries posted into the period after the close; the sealed figures are unchanged)`)
  }
  process.exit(matches ? 0 : exitMismatch)
}

if (import.meta.url === `file://${process.argv[1]}`) main()

#!/usr/bin/env node
// Recomputes a closed window's seal from its JSON export and says whether it matches (docs/API.md, "The seal");
// with --public-key, also checks the seal's Ed25519 signature against a key the auditor obtained independently.
// Plain Node (18 or later), no dependency and nothing of trueup's code: an auditor can read all of it.
//   node scripts/verify-seal.mjs rec_….json --public-key <key or file>      (or `-`: the export on stdin)
// Exit status: 0 the seal matches (and the signature verifies, with a key), 1 it does not, 2 unusable input
// (a file that cannot be read, not a sealed JSON export, an unusable key, a wrong command line, --help).
import { createHash, createPublicKey, verify } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'

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
    // A seal signed after its close (on upgrade) records that in a later event, which the seal does not cover.
    history: pack.history.filter((event) => event.type !== 'seal.signed'),
  }
}

export function recomputeSeal(pack) {
  return createHash('sha256').update(canonical(sealedDocument(pack)), 'utf8').digest('hex')
}

const usage = `Usage: node scripts/verify-seal.mjs <export.json | -> [--public-key <key or file>]
Recomputes a closed window's seal from its JSON export (GET /v2/reconciliations/:id/export?format=json)
and says whether it matches the seal trueup recorded at the close. \`-\` reads the export from stdin.
--public-key: the workspace's seal key, obtained independently of the file (GET /v2/workspace,
seal_public_key, read by someone you trust): base64 of the raw 32-byte Ed25519 key, or PEM, given as
the text itself or as a file holding it. With it, the seal's signature is checked too: only that proves
trueup sealed this content. Without it, this checks only that the file agrees with itself: anyone who
edits the file can recompute its sha256.
Exit status:
  0  MATCH: the export is the content that was sealed (and, with a key, the seal is signed by it)
  1  MISMATCH: the export differs from what was sealed, or the signature does not verify against the key
  2  unusable input: the file cannot be read (missing, a directory, no permission), it is not the JSON
     export of a closed window, the key is unusable, a wrong command line, or --help (this text)
`

const exitMismatch = 1
const exitUnusable = 2

function unusable(message) {
  console.error(message)
  process.exit(exitUnusable)
}

/** The file name (or \`-\`) and the key argument; --help prints the usage (exit 2). Anything else is a usage error (exit 2), never a wait on stdin. */
function argumentsOrExit(args) {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(usage)
    process.exit(exitUnusable)
  }
  let path = null
  let key = null
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--public-key' && i + 1 < args.length && key === null) key = args[++i]
    else if (path === null && (!args[i].startsWith('-') || args[i] === '-')) path = args[i]
    else path = undefined
  }
  if (path === null || path === undefined) {
    process.stderr.write(usage)
    process.exit(exitUnusable)
  }
  return { path, key }
}

function readOrExit(path) {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8')
  } catch (error) {
    const reason = { ENOENT: 'no such file', EISDIR: 'it is a directory', EACCES: 'permission denied' }[error.code] ?? error.message
    unusable(`cannot read ${path === '-' ? 'stdin' : path}: ${reason}`)
  }
}

/** The public key from --public-key: the text itself or a file holding it; PEM, or base64 of the raw 32 bytes. */
function publicKeyOrExit(argument) {
  const isFile = existsSync(argument) && statSync(argument).isFile()
  const text = (isFile ? readOrExit(argument) : argument).trim()
  try {
    if (text.startsWith('-----BEGIN')) return { key: createPublicKey(text), text }
    const raw = Buffer.from(text, 'base64')
    if (raw.length !== 32 || raw.toString('base64') !== text) throw new Error('not base64 of 32 bytes')
    return { key: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' }), text }
  } catch (error) {
    unusable(`unusable --public-key${isFile ? ` (file ${argument})` : ''}: not an Ed25519 public key as PEM or base64 of its raw 32 bytes (${error.message})`)
  }
}

/** The export, checked to be a sealed JSON export of version 1; its seal as {sha256, signature, public_key}. */
function sealedPackOrExit(text) {
  let pack
  try {
    pack = JSON.parse(text)
  } catch (error) {
    unusable(`not the JSON export of a closed window: ${error.message.replace(/\s+/g, ' ')}`)
  }
  // Exports made before seals were signed carry the sha256 alone.
  const seal = typeof pack?.window?.seal === 'string' ? { sha256: pack.window.seal, signature: null, public_key: null } : pack?.window?.seal
  if (pack?.format !== 'trueup.reconciliation-export' || pack.window?.state !== 'closed' || typeof seal?.sha256 !== 'string') {
    unusable('not the JSON export of a closed window (format trueup.reconciliation-export, window.state closed, window.seal)')
  }
  if (pack.seal_version !== 1) unusable(`seal_version ${pack.seal_version}: this script knows version 1`)
  return { pack, seal }
}

/** Whether the seal's signature verifies against the key; says why not. */
function signatureVerdict(seal, publicKey) {
  if (typeof seal.signature !== 'string') return { ok: false, line: 'signature:   none in the export (the window was sealed unsigned)' }
  let valid = false
  try {
    valid = verify(null, Buffer.from(seal.sha256, 'hex'), publicKey.key, Buffer.from(seal.signature, 'base64'))
  } catch {
    valid = false
  }
  const named = seal.public_key === publicKey.text ? '' : ` (the export names another key: ${seal.public_key})`
  return { ok: valid, line: valid ? 'signature:   valid, by the given key' : `signature:   does NOT verify against the given key${named}` }
}

function main() {
  const args = argumentsOrExit(process.argv.slice(2))
  const publicKey = args.key === null ? null : publicKeyOrExit(args.key)
  const { pack, seal } = sealedPackOrExit(readOrExit(args.path))
  const recomputed = recomputeSeal(pack)
  const hashMatches = recomputed === seal.sha256
  console.log(`${pack.window.id}: seal sha256 ${seal.sha256}`)
  console.log(`recomputed:  ${recomputed}`)
  let matches = hashMatches
  if (publicKey === null) {
    console.log(hashMatches ? 'MATCH: the export is the content that was sealed, if this seal is trueup\'s (its sha256 agrees with the file)' : 'MISMATCH: the export differs from what was sealed')
    console.log('NOT CHECKED: no --public-key was given, so this checks only that the file agrees with itself; anyone who edits the file can recompute its sha256. Give the workspace\'s public key, obtained independently (GET /v2/workspace, seal_public_key), to check the signature.')
  } else {
    const signature = signatureVerdict(seal, publicKey)
    console.log(signature.line)
    matches = hashMatches && signature.ok
    if (matches) console.log('MATCH: the export is the content that was sealed at the close, and the seal is signed by the given key')
    else console.log(hashMatches ? 'MISMATCH: the seal is not signed by the given key' : 'MISMATCH: the export differs from what was sealed')
  }
  if (pack.window.post_close_drift !== 0 || pack.window.post_close_entries !== 0) {
    console.log(`note: post_close_drift ${pack.window.post_close_drift}, post_close_entries ${pack.window.post_close_entries} (entries posted into the period after the close; the sealed figures are unchanged)`)
  }
  process.exit(matches ? 0 : exitMismatch)
}

if (import.meta.url === `file://${process.argv[1]}`) main()

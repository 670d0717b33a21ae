/**
 * The ledger core stays pure: it imports only itself, src/errors.ts and node:assert, reads no clock or
 * randomness, and keeps no module-level state: no module-level let or var, no module-level Map, Set,
 * typed array or other container (a cache is state behind an import), no module-level array or object
 * that anything in src/ mutates, no stateful (g or y) regular expression. A frozen table or a constant
 * array that nothing mutates is fine.
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'

const srcDir = path.resolve(import.meta.dirname, '../../src')
const ledgerDir = path.join(srcDir, 'ledger')

/**
 * Module-level containers that are allowed, each with the reason. calendar.ts memoizes Intl objects per
 * zone name: immutable formatters and a derived boolean, bounded, the same answer with or without the
 * cache, so no outcome depends on what ran before. Anything new here needs the same argument.
 */
const allowed: Readonly<Record<string, readonly string[]>> = Object.freeze({ 'calendar.ts': ['formatters', 'utcZones'] })

const containerPattern = /^(?:export\s+)?const\s+([A-Za-z_$][\w$]*)(?:\s*:[^=]+)?\s*=\s*new\s+(Map|Set|WeakMap|WeakSet|WeakRef|Array|(?:Float|Int|Uint|BigInt|BigUint)\w*Array|ArrayBuffer|SharedArrayBuffer|DataView)\b/gm
const literalPattern = /^(?:export\s+)?const\s+([A-Za-z_$][\w$]*)(?:\s*:[^=]+)?\s*=\s*(\[|\{)/gm
const statefulRegExpPattern = /^(?:export\s+)?const\s+([A-Za-z_$][\w$]*)(?:\s*:[^=]+)?\s*=\s*(?:\/.+\/[a-z]*[gy][a-z]*\s*$|new\s+RegExp\([^)]*,\s*'[a-z]*[gy][a-z]*'\))/gm

/** Where `name` is changed in place in this text: a mutating call, an assignment to an element or property, a delete. */
function mutationsOf(name: string, text: string): string[] {
  const escaped = name.replace(/\$/g, '\\$')
  const patterns = [
    new RegExp(`\\b${escaped}\\s*\\.\\s*(push|pop|shift|unshift|splice|sort|reverse|fill|copyWithin|set|delete|clear|add)\\s*\\(`),
    new RegExp(`\\b${escaped}\\s*(\\[[^\\]]*\\]|\\.\\s*[A-Za-z_$][\\w$]*)\\s*(=(?!=)|\\+=|-=|\\+\\+|--)`),
    new RegExp(`\\bdelete\\s+${escaped}\\b`),
    new RegExp(`Object\\.(assign|defineProperty|setPrototypeOf)\\(\\s*${escaped}\\b`),
  ]
  return patterns.flatMap((pattern) => text.split('\n').filter((line) => pattern.test(line)).map((line) => line.trim()))
}

interface ModuleStateFinding { readonly name: string; readonly why: string }

/** The module-level state of one ledger file; `everywhere` is the text of every file that may import its exports. */
function moduleStateOf(file: string, text: string, everywhere: string): ModuleStateFinding[] {
  const findings: ModuleStateFinding[] = []
  const exempt = new Set(allowed[file] ?? [])
  for (const match of text.matchAll(containerPattern)) {
    if (!exempt.has(match[1])) findings.push({ name: match[1], why: `a module-level ${match[2]}` })
  }
  for (const match of text.matchAll(literalPattern)) {
    const isExported = match[0].startsWith('export')
    const places = mutationsOf(match[1], isExported ? everywhere : text)
    if (places.length > 0) findings.push({ name: match[1], why: `a module-level ${match[2] === '[' ? 'array' : 'object'} mutated at: ${places.join(' | ')}` })
  }
  for (const match of text.matchAll(statefulRegExpPattern)) findings.push({ name: match[1], why: 'a module-level regular expression with the g or y flag (lastIndex is state)' })
  return findings
}

const everywhere = fs.readdirSync(srcDir, { recursive: true }).map(String).filter((file) => file.endsWith('.ts')).map((file) => fs.readFileSync(path.join(srcDir, file), 'utf8')).join('\n')

t.test('the module-state check finds caches and mutated tables, and lets frozen and constant ones be', async (t) => {
  const sample = [
    'const cache = new Map<string, number>()',
    'export const seen: Set<string> = new Set()',
    'const buffer = new Float64Array(16)',
    'const queue: string[] = []',
    'function remember(key: string) { queue.push(key) }',
    'const counters = { hits: 0 }',
    'function hit() { counters.hits += 1 }',
    'const table = Object.freeze({ a: 1 })',
    'const names = [\'a\', \'b\'] as const',
    'const words = /\\w+/g',
    'const exact = /^a$/',
  ].join('\n')
  t.same(moduleStateOf('sample.ts', sample, sample).map((finding) => finding.name), ['cache', 'seen', 'buffer', 'queue', 'counters', 'words'])
  t.same(moduleStateOf('calendar.ts', 'const formatters = new Map()', ''), [], 'the documented exemptions hold only for their file')
})

for (const file of fs.readdirSync(ledgerDir).filter((name) => name.endsWith('.ts'))) {
  t.test(file, async (t) => {
    const text = fs.readFileSync(path.join(ledgerDir, file), 'utf8')
    for (const match of text.matchAll(/^import\s.*?from\s+'([^']+)'/gms)) {
      const target = match[1]
      const isAllowed = target === 'node:assert/strict' || (target.startsWith('./') && !target.includes('/', 2)) || target === '../errors.js'
      t.ok(isAllowed, `${file} imports ${target}`)
    }
    t.notMatch(text, /Date\.now\(|new Date\(\)|Math\.random\(|performance\.now\(|process\.|console\.|await /, `${file} reads no clock, randomness or I/O`)
    // State lives in the objects the actor owns (WorkspaceState), never behind an import: no module-level let or var.
    t.notMatch(text, /^(export\s+)?(let|var)\s/m, `${file} keeps no module-level mutable binding`)
    t.same(moduleStateOf(file, text, everywhere), [], `${file} keeps no module-level cache, mutated table or stateful regular expression`)
  })
}

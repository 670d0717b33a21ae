/** The ledger core stays pure: it imports only itself, src/errors.ts and node:assert, reads no clock or randomness, and keeps no module-level state. */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'

const ledgerDir = path.resolve(import.meta.dirname, '../../src/ledger')

for (const file of fs.readdirSync(ledgerDir).filter((name) => name.endsWith('.ts'))) {
  t.test(file, async (t) => {
    const text = fs.readFileSync(path.join(ledgerDir, file), 'utf8')
    for (const match of text.matchAll(/^import\s.*?from\s+'([^']+)'/gms)) {
      const target = match[1]
      const allowed = target === 'node:assert/strict' || (target.startsWith('./') && !target.includes('/', 2)) || target === '../errors.js'
      t.ok(allowed, `${file} imports ${target}`)
    }
    t.notMatch(text, /Date\.now\(|new Date\(\)|Math\.random\(|performance\.now\(|process\.|console\.|await /, `${file} reads no clock, randomness or I/O`)
    // State lives in the objects the actor owns (WorkspaceState), never behind an import: no module-level let or var.
    t.notMatch(text, /^(export\s+)?(let|var)\s/m, `${file} keeps no module-level mutable binding`)
  })
}

/** The error catalogue and docs/API.md list the same codes, so the docs cannot drift from the code. */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { errorCatalogue } from '../src/errors.ts'

const api = fs.readFileSync(path.resolve(import.meta.dirname, '../docs/API.md'), 'utf8')
const documented = new Set([...api.matchAll(/^\|\s*(\d{3})\s*\|\s*`([a-z_]+)`\s*\|/gm)].map((match) => `${match[1]} ${match[2]}`))

t.test('every code in the catalogue is documented with its status', async (t) => {
  for (const [code, { status }] of Object.entries(errorCatalogue)) t.ok(documented.has(`${status} ${code}`), `${status} ${code} in docs/API.md`)
})

t.test('docs list no code the catalogue lacks', async (t) => {
  const known = new Set(Object.entries(errorCatalogue).map(([code, { status }]) => `${status} ${code}`))
  for (const entry of documented) t.ok(known.has(entry), `${entry} is in src/errors.ts`)
})

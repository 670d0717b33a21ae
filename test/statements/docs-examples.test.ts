/** The example file of each format in docs/API.md "Bank statement formats" reads to what the text beside it says. */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { readStatements } from '../../src/statements/read.ts'
import { figuresOf, statementsOf } from './fixtures.ts'

const api = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/API.md'), 'utf8')
const section = api.slice(api.indexOf('## Bank statement formats'), api.indexOf('\n## ', api.indexOf('## Bank statement formats') + 1))

function exampleAfter(heading: string): Buffer {
  const start = section.indexOf(heading)
  const block = /```[a-z]*\n([\s\S]*?)```/.exec(section.slice(start))
  if (start === -1 || block === null) throw new Error(`no example after ${heading}`)
  return Buffer.from(block[1])
}

t.test('camt.053 example', async (t) => {
  const [statement] = statementsOf(readStatements(exampleAfter('### camt.053')))
  t.same(figuresOf(statement), { statement_ref: 'OCT-2026', account: 'DE89370400440532013000', currency: 'EUR', period: { from: '2026-10-01', to: '2026-10-31' }, opening: 100000, closing: 105000, claimed_movement: 5000, lines: 1, sum: 5000 })
  t.match(statement.entries[0], { date: '2026-10-03', reference: 'INV-1001', description: 'Invoice 1001', counterparty: { name: 'Acme GmbH', account: null } })
})

t.test('MT940 example', async (t) => {
  const [statement] = statementsOf(readStatements(exampleAfter('### MT940')))
  t.same(figuresOf(statement), { statement_ref: 'OCT2026/10', account: 'DE89370400440532013000', currency: 'EUR', period: { from: '2026-10-01', to: '2026-10-31' }, opening: 100000, closing: 105000, claimed_movement: 5000, lines: 1, sum: 5000 })
  t.match(statement.entries[0], { date: '2026-10-03', reference: 'INV-1001', description: 'EREF+INV-1001 SVWZ+Invoice 1001', counterparty: { name: 'Acme GmbH', account: 'DE02120300000000202051' } })
})

t.test('BAI2 example', async (t) => {
  const [statement] = statementsOf(readStatements(exampleAfter('### BAI2')))
  t.same(figuresOf(statement), { statement_ref: 'F1/1/000111222', account: '000111222', currency: 'USD', period: { from: '2026-10-31', to: '2026-10-31' }, opening: 100000, closing: 105000, claimed_movement: 5000, lines: 1, sum: 5000 })
  t.match(statement.entries[0], { date: '2026-10-31', reference: 'INV-1001', description: 'INCOMING WIRE ACME GMBH INVOICE 1001' })
})

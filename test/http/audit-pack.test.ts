/**
 * The audit pack's contents for an auditor (docs/API.md, Exports): per statement line the entries matched to it
 * (id, effective date, amount on the window's accounts, description), who closed the window (key name and id),
 * amounts in the currency's decimals in CSV columns named so and in the PDF, and nothing in the PDF cut off.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { parse } from 'csv-parse/sync'
import t from 'tap'
import { createAccount, postEntryOk, raiseLimits } from '../support/api.ts'
import { addLinesOk, matchOk, openWindowOk, patchWindow } from '../support/recon.ts'
import { call, startTestService } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
await raiseLimits(service, 'default')
const created = await call(service.baseUrl, 'POST', '/admin/keys', { key: service.adminToken, body: { workspace: 'default', scopes: ['accounts:read', 'accounts:write', 'entries:read', 'entries:write', 'recon:read', 'recon:write'], name: 'Controller Ada' } })
if (created.status !== 201) throw new Error(`key: ${created.text}`)
const key: string = created.body.secret
const keyId: string = created.body.id

for (const name of ['assets:bank', 'assets:cash', 'income:sales']) {
  const reply = await call(service.baseUrl, 'POST', '/v2/accounts', { key, body: { name, currency: 'EUR' } })
  if (reply.status !== 201) throw new Error(`account: ${reply.text}`)
}
const post = (lines: { account: string; amount: number }[], at: string, description: string) => postEntryOk(service.baseUrl, key, lines, { effective_at: at, description })
const invoice = await post([{ account: 'assets:bank', amount: 161010 }, { account: 'income:sales', amount: -161010 }], '2026-10-05T22:30:00Z', 'Invoice 1041')
const partA = await post([{ account: 'assets:bank', amount: -3000 }, { account: 'assets:cash', amount: 3000 }], '2026-10-12T09:00:00Z', 'Cash withdrawal, part A')
const partB = await post([{ account: 'assets:bank', amount: -4500 }, { account: 'income:sales', amount: 4500 }], '2026-10-12T10:00:00Z', 'Refund, part B')
const window = await openWindowOk(service.baseUrl, key, { label: 'October', accounts: ['assets:bank'], from: '2026-10-01', to: '2026-10-31', claimed_movement: 161010 - 7500 - 750 })
await addLinesOk(service.baseUrl, key, window.id, [
  { amount: 161010, date: '2026-10-05', reference: 'INV-1041', description: 'Invoice 1041' },
  { amount: -7500, date: '2026-10-12', reference: null, description: 'Two debits' },
  { amount: -750, date: '2026-10-31', reference: 'FEE', description: 'Account fee' },
])
await matchOk(service.baseUrl, key, window.id, { statement_lines: ['l1'], entries: [invoice.id], strategy: 'amount_and_date' })
await matchOk(service.baseUrl, key, window.id, { statement_lines: ['l2'], entries: [partA.id, partB.id], strategy: 'manual' })
const longReason = `Fee-booked-next-month-${'0123456789'.repeat(20)}-end`
await matchOk(service.baseUrl, key, window.id, { statement_lines: ['l3'], strategy: 'write_off', reason: longReason })
const closed = await patchWindow(service.baseUrl, key, window.id, { state: 'closed', reason: longReason })
if (closed.status !== 200) throw new Error(`close: ${closed.text}`)

async function exported(format: string): Promise<Buffer> {
  const response = await fetch(`${service.baseUrl}/v2/reconciliations/${window.id}/export?format=${format}`, { headers: { authorization: `Bearer ${key}` } })
  if (response.status !== 200) throw new Error(`export ${format}: ${response.status}`)
  return Buffer.from(await response.arrayBuffer())
}

t.test('JSON: each line with the entries matched to it, and who closed; amounts in minor units', async (t) => {
  const pack = JSON.parse((await exported('json')).toString('utf8'))
  t.same(pack.closed_by, { id: keyId, name: 'Controller Ada' }, 'who closed: key id and name')
  t.same(pack.lines.map((line: any) => line.entries), [
    [{ id: invoice.id, effective_at: '2026-10-05T22:30:00.000Z', effective_date: '2026-10-05', amount: 161010, description: 'Invoice 1041' }],
    [
      { id: partA.id, effective_at: '2026-10-12T09:00:00.000Z', effective_date: '2026-10-12', amount: -3000, description: 'Cash withdrawal, part A' },
      { id: partB.id, effective_at: '2026-10-12T10:00:00.000Z', effective_date: '2026-10-12', amount: -4500, description: 'Refund, part B' },
    ],
    [],
  ], 'amounts on the window\'s accounts (assets:bank), in minor units')
})

t.test('CSV: the amount in the currency\'s decimals beside the minor units, and each line\'s entries', async (t) => {
  const rows = parse(await exported('csv'), { bom: true, columns: true }) as Record<string, string>[]
  t.same(Object.keys(rows[0]), ['line', 'date', 'amount', 'amount_decimal', 'currency', 'reference', 'description', 'match', 'strategy', 'match_reason', 'entries'])
  t.same(rows.map((row) => [row.amount, row.amount_decimal]), [['161010', '1610.10'], ['-7500', '-75.00'], ['-750', '-7.50']], 'decimals exact, negatives as numbers')
  t.equal(rows[0].entries, `${invoice.id} 2026-10-05 1610.10 Invoice 1041`)
  t.equal(rows[1].entries, `${partA.id} 2026-10-12 -30.00 Cash withdrawal, part A\n${partB.id} 2026-10-12 -45.00 Refund, part B`, 'one matched entry per line of the cell')
  t.equal(rows[2].entries, '')
})

t.test('PDF: who closed by name and id, each line\'s entries in decimals, long details whole', async (t) => {
  const file = path.join(service.dataDir, 'pack.pdf')
  fs.writeFileSync(file, await exported('pdf'))
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' })
  t.match(text, `Closed by: Controller Ada (${keyId})`)
  t.match(text, new RegExp(`${invoice.id} +2026-10-05 +1,610\\.10 +Invoice 1041`), 'a matched entry under its line')
  t.match(text, new RegExp(`${partB.id} +2026-10-12 +-45\\.00 +Refund, part B`))
  const joined = text.replace(/\s+/g, '')
  t.ok(joined.includes(`reason=${longReason}`), 'the close event\'s reason whole in the history, not cut off')
  t.notMatch(text, /…/, 'no cell cut with an ellipsis')
})

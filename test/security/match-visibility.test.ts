/**
 * A restricted key and the entries of a window's matches (docs/API.md, "Visibility"): an entry the key cannot
 * read (a line on an account outside its `accounts`) is left out of every match it is shown, as the entry
 * lists leave it out: the matches list, a reversal's answer, the JSON, CSV and PDF packs and the same over
 * the WebSocket. A key that sees every account sees every entry.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { adminCreateKey, createAccount, postEntryOk, raiseLimits, scopesAll } from '../support/api.ts'
import { addLinesOk, matchOk, openWindowOk } from '../support/recon.ts'
import { call, startTestService } from '../support/service.ts'
import { openSocket } from '../support/ws.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: all } = service
await raiseLimits(service, 'default')
const restricted = (await adminCreateKey(service, 'default', scopesAll, ['assets:*'])).secret
await createAccount(baseUrl, all, 'assets:mv-bank')
await createAccount(baseUrl, all, 'assets:mv-cash')
await createAccount(baseUrl, all, 'income:mv-sales')
const at = '2026-10-10T12:00:00Z'
const hidden = await postEntryOk(baseUrl, all, [{ account: 'assets:mv-bank', amount: 700 }, { account: 'income:mv-sales', amount: -700 }], { effective_at: at, description: 'sale' })
const shown = await postEntryOk(baseUrl, all, [{ account: 'assets:mv-bank', amount: 300 }, { account: 'assets:mv-cash', amount: -300 }], { effective_at: at, description: 'deposit' })
const window = await openWindowOk(baseUrl, all, { accounts: ['assets:mv-bank'], from: '2026-10-01', to: '2026-10-31', claimed_movement: 1000 })
await addLinesOk(baseUrl, all, window.id, [{ amount: 1000, date: '2026-10-10', reference: 'both' }])
const made = await matchOk(baseUrl, all, window.id, { statement_lines: ['l1'], entries: [hidden.id, shown.id], strategy: 'manual' })

t.test('the full key sees both entries of the match', async (t) => {
  t.same(made.entries, [hidden.id, shown.id])
  const listed = await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/matches`, { key: all })
  t.same(listed.body.data[0].entries, [hidden.id, shown.id])
})

t.test('the restricted key sees the window and its match, without the entry it cannot read', async (t) => {
  t.equal((await call(baseUrl, 'GET', `/v2/entries/${hidden.id}`, { key: restricted })).status, 404, 'the entry itself is 404 to it')
  const listed = await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/matches`, { key: restricted })
  t.equal(listed.status, 200)
  t.same(listed.body.data[0].entries, [shown.id], 'the matches list')
  const pack = await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/export?format=json`, { key: restricted })
  t.same(pack.body.matches[0].entries, [shown.id], 'the JSON pack')
  t.notOk(pack.text.includes(hidden.id), 'the id nowhere in the JSON pack')
  const csv = await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/export?format=csv`, { key: restricted })
  t.notOk(csv.text.includes(hidden.id), 'nor in the CSV pack')
  const socket = await openSocket(baseUrl, restricted)
  await socket.next((message) => message.type === 'authenticated')
  socket.send({ type: 'request', id: 'm', method: 'GET', path: `/v2/reconciliations/${window.id}/matches` })
  t.same((await socket.next((message) => message.id === 'm')).body.data[0].entries, [shown.id], 'over the WebSocket')
  socket.socket.close()
})

/** The PDF pack's row of the match, as pdftotext reads it. */
async function pdfMatchRow(key: string): Promise<string> {
  const reply = await fetch(`${baseUrl}/v2/reconciliations/${window.id}/export?format=pdf`, { headers: { authorization: `Bearer ${key}` } })
  const file = path.join(service.dataDir, 'pack.pdf')
  fs.writeFileSync(file, Buffer.from(await reply.arrayBuffer()))
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' })
  return text.split('\n').find((line) => line.startsWith(made.id)) ?? ''
}

t.test('the PDF pack counts only the entries the key can read', async (t) => {
  t.match(await pdfMatchRow(all), /\bl1\s+2\s/, 'two entries for the full key')
  t.match(await pdfMatchRow(restricted), /\bl1\s+1\s/, 'one for the restricted key')
})

t.test('a reversal by the restricted key answers without the hidden entry', async (t) => {
  const reversed = await call(baseUrl, 'DELETE', `/v2/reconciliations/${window.id}/matches/${made.id}`, { key: restricted })
  t.equal(reversed.status, 200)
  t.same(reversed.body.entries, [shown.id])
})

/**
 * Text survives a restart as it was sent (the log stores UTF-8): astral characters (surrogate pairs) in entries,
 * a sealed window's label and lines and a camt.053 reference read back the same and the seal still verifies; an
 * unpaired surrogate, which UTF-8 cannot hold, is refused on the way in (JSON bodies and statement files).
 */
import fs from 'node:fs'
import t from 'tap'
import { assertError, createAccount, postEntryOk, raiseLimits } from '../support/api.ts'
import { addLinesOk, getWindowOk, matchOk, openWindowOk, pair, patchWindow } from '../support/recon.ts'
import { recomputeSeal } from '../support/seal-recompute.ts'
import { call, startTestService, type TestService } from '../support/service.ts'

let service: TestService = await startTestService()
const dataDir = service.dataDir
t.teardown(async () => {
  await service.stop()
  fs.rmSync(dataDir, { recursive: true, force: true })
})
const key = service.apiKey
await raiseLimits(service, 'default')
await createAccount(service.baseUrl, key, 'assets:bank')
await createAccount(service.baseUrl, key, 'income:sales')
const bank = await call(service.baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:bank:jpy', currency: 'JPY', external_id: '1234567' } })
if (bank.status !== 201) throw new Error(`account: ${bank.text}`)

const astral = 'Rechnung \u{1F600} \u{10348} 𝄞'
const camt = fs.readFileSync(new URL('../fixtures/statements/camt053/v02-jpy-two-statements-crlf.xml', import.meta.url), 'latin1')

async function exportJson(id: string): Promise<any> {
  const reply = await call(service.baseUrl, 'GET', `/v2/reconciliations/${id}/export?format=json`, { key })
  if (reply.status !== 200) throw new Error(`export: ${reply.status} ${reply.text}`)
  return reply.body
}

t.test('unpaired surrogates are refused in JSON bodies and statement files; nothing is stored', async (t) => {
  const entry = await call(service.baseUrl, 'POST', '/v2/entries', { key, body: { lines: pair('assets:bank', 'income:sales', 5), description: 'A\ud800B' } })
  assertError(t, entry, 400, 'request_invalid', 'an entry description')
  const window = await call(service.baseUrl, 'POST', '/v2/reconciliations', { key, body: { label: 'A\udc00B', accounts: ['assets:bank'], window: { from: '2025-01-01', to: '2025-01-31' }, claimed_movement: 0 } })
  assertError(t, window, 400, 'request_invalid', 'a window label')
  const file = camt.replace('<AcctSvcrRef>JPREF-1</AcctSvcrRef>', '<AcctSvcrRef>A&#xD800;B</AcctSvcrRef>')
  const imported = await call(service.baseUrl, 'POST', '/v2/statements', { key, raw: Buffer.from(file, 'latin1'), headers: { 'content-type': 'application/xml' } })
  t.equal(imported.status, 400)
  t.equal(imported.body?.error?.code, 'statement_invalid', 'a camt.053 reference')
  t.match(imported.body?.error?.details?.[0]?.message, /surrogate/)
  const windows = await call(service.baseUrl, 'GET', '/v2/reconciliations', { key })
  t.same(windows.body.data, [], 'no window')
  const entries = await call(service.baseUrl, 'GET', '/v2/entries', { key })
  t.same(entries.body.data, [], 'no entry')
})

t.test('over-long text in a file is refused, on the event loop and in the worker thread (over 256 KiB) alike', async (t) => {
  for (const length of [1001, 2_000_000]) {
    const file = camt.replace('<AddtlNtryInf>Rent November</AddtlNtryInf>', `<AddtlNtryInf>${'x'.repeat(length)}</AddtlNtryInf>`)
    const reply = await call(service.baseUrl, 'POST', '/v2/statements', { key, raw: Buffer.from(file, 'latin1'), headers: { 'content-type': 'application/xml' } })
    t.equal(reply.status, 400, `${length} characters`)
    t.match(reply.body?.error, { code: 'statement_invalid', details: [{ path: '/statements/0/lines/1/description', message: new RegExp(`${length} characters, at most 1000`) }] })
    t.ok(reply.text.length < 2000, 'the refusal does not echo the text')
  }
  t.same((await call(service.baseUrl, 'GET', '/v2/reconciliations', { key })).body.data, [], 'no window')
})

t.test('astral text reads back the same after a restart, and the sealed window still verifies', async (t) => {
  const posted = await postEntryOk(service.baseUrl, key, pair('assets:bank', 'income:sales', 300), { effective_at: '2026-03-10T09:00:00Z', description: astral, metadata: { [`k\u{1F600}`]: astral } })
  const window = await openWindowOk(service.baseUrl, key, { label: astral, accounts: ['assets:bank'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 300, statement_ref: astral })
  await addLinesOk(service.baseUrl, key, window.id, [{ amount: 300, date: '2026-03-10', reference: astral, description: astral }])
  await matchOk(service.baseUrl, key, window.id, { statement_lines: ['l1'], entries: [posted.id], strategy: 'amount_and_date' })
  const closed = await patchWindow(service.baseUrl, key, window.id, { state: 'closed' })
  t.equal(closed.status, 200, 'closed and sealed')
  const file = camt.replace('<AcctSvcrRef>JPREF-1</AcctSvcrRef>', '<AcctSvcrRef>A&#x1F600;B</AcctSvcrRef>')
  const imported = await call(service.baseUrl, 'POST', '/v2/statements', { key, raw: Buffer.from(file, 'latin1'), headers: { 'content-type': 'application/xml' } })
  t.equal(imported.status, 201, 'the file is imported')
  const importedId = imported.body.windows?.[0]?.id ?? imported.body.data?.[0]?.id
  const linesBefore = await call(service.baseUrl, 'GET', `/v2/reconciliations/${importedId}/lines`, { key })
  t.equal(linesBefore.body.data[0].reference, 'A\u{1F600}B')
  const entryBefore = (await call(service.baseUrl, 'GET', `/v2/entries/${posted.id}`, { key })).body
  const windowBefore = await getWindowOk(service.baseUrl, key, window.id)

  await service.stop()
  service = await startTestService({ dataDir, apiKey: key })

  t.same((await call(service.baseUrl, 'GET', `/v2/entries/${posted.id}`, { key })).body, entryBefore, 'the entry as before')
  t.equal(entryBefore.description, astral)
  const windowAfter = await getWindowOk(service.baseUrl, key, window.id)
  t.same(windowAfter, windowBefore, 'the window as before')
  t.equal(windowAfter.label, astral)
  t.same(windowAfter.seal, closed.body.seal, 'the same seal')
  t.equal(recomputeSeal(await exportJson(window.id)), closed.body.seal.sha256, 'the sealed content still verifies')
  t.same((await call(service.baseUrl, 'GET', `/v2/reconciliations/${importedId}/lines`, { key })).body, linesBefore.body, 'the imported lines as before')
})

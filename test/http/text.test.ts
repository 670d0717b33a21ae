/** Free text in bodies (src/api/schemas/text.ts, json.ts): control characters and unpaired surrogates refused on every route that stores text, bodies that are not UTF-8 refused, nothing stored. */
import t from 'tap'
import { assertError, createAccount, detailPaths, raiseLimits, readWorkspace } from '../support/api.ts'
import { addCsv, openWindowOk } from '../support/recon.ts'
import { call, startTestService } from '../support/service.ts'
import { openSocket } from '../support/ws.ts'
import { surrogateProblem, textProblem } from '../../src/api/schemas/text.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key, adminToken } = service
await raiseLimits(service, 'default')
await createAccount(baseUrl, key, 'assets:bank')
await createAccount(baseUrl, key, 'income:sales')
const window = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2025-01-01', to: '2025-01-31', claimed_movement: 0 })
const pair = [{ account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -5 }]
const instants = ['2026-01-01T00:00:00Z']

/** NUL, a terminal colour escape, a line feed, DEL and the 8-bit CSI: each is refused wherever text is stored. */
const controls = ['nul\u0000here', '\u001b[31mred\u001b[0m', 'two\nlines', 'cr\rhere', 'del\u007f', 'csi\u009b31m']

type Case = [name: string, method: string, route: string, body: (bad: string) => unknown, path: string, asAdmin?: boolean]
const cases: Case[] = [
  ['account name', 'POST', '/v2/accounts', (bad) => ({ name: `assets:${bad}` }), '/name'],
  ['account tag', 'POST', '/v2/accounts', (bad) => ({ name: 'assets:tagged', tags: ['ok', bad] }), '/tags/1'],
  ['account tag on PATCH', 'PATCH', '/v2/accounts/assets:bank', (bad) => ({ tags: [bad] }), '/tags/0'],
  ['entry description', 'POST', '/v2/entries', (bad) => ({ lines: pair, description: bad }), '/description'],
  ['entry metadata value', 'POST', '/v2/entries', (bad) => ({ lines: pair, metadata: { invoice: bad } }), '/metadata/invoice'],
  ['entry metadata key', 'POST', '/v2/entries', (bad) => ({ lines: pair, metadata: { [bad]: 'x' } }), 'metadata-key'],
  ['entry line account', 'POST', '/v2/entries', (bad) => ({ lines: [{ account: `assets:${bad}`, amount: 5 }, pair[1]] }), '/lines/0/account'],
  ['window label', 'POST', '/v2/reconciliations', (bad) => ({ label: bad, accounts: ['income:sales'], window: { from: '2025-02-01', to: '2025-02-02' }, claimed_movement: 0 }), '/label'],
  ['window statement_ref', 'POST', '/v2/reconciliations', (bad) => ({ label: 'x', accounts: ['income:sales'], window: { from: '2025-02-01', to: '2025-02-02' }, claimed_movement: 0, statement_ref: bad }), '/statement_ref'],
  ['line reference', 'POST', `/v2/reconciliations/${window.id}/lines`, (bad) => ({ lines: [{ amount: 1, date: '2025-01-02', reference: bad }] }), '/lines/0/reference'],
  ['line description', 'POST', `/v2/reconciliations/${window.id}/lines`, (bad) => ({ lines: [{ amount: 1, date: '2025-01-02' }, { amount: 1, date: '2025-01-02', description: bad }] }), '/lines/1/description'],
  ['write-off reason', 'POST', `/v2/reconciliations/${window.id}/matches`, (bad) => ({ statement_lines: ['l1'], strategy: 'write_off', reason: bad }), '/reason'],
  ['abandon reason', 'PATCH', `/v2/reconciliations/${window.id}`, (bad) => ({ state: 'abandoned', reason: bad }), '/reason'],
  ['webhook url', 'POST', '/v2/webhooks', (bad) => ({ url: `https://hooks.example.com/${bad}`, events: ['entry.posted'] }), '/url'],
  ['admin key name', 'POST', '/admin/keys', (bad) => ({ workspace: 'default', scopes: ['accounts:read'], name: bad }), '/name', true],
  ['admin key accounts', 'POST', '/admin/keys', (bad) => ({ workspace: 'default', scopes: ['accounts:read'], accounts: [`assets:${bad}`] }), '/accounts/0', true],
]

t.test('a control character in any free text is 400 request_invalid at its field; nothing is stored', async (t) => {
  const before = await readWorkspace(baseUrl, key, instants)
  for (const [name, method, route, body, path, asAdmin] of cases) {
    for (const bad of controls) {
      const label = `${name}, ${JSON.stringify(bad)}`
      const reply = await call(baseUrl, method, route, { key: asAdmin === true ? adminToken : key, body: body(bad) })
      assertError(t, reply, 400, 'request_invalid', label)
      const expected = path === 'metadata-key' ? `/metadata/${bad}` : path
      t.equal(detailPaths(reply)[0], expected, `${label}: details path ${JSON.stringify(expected)}`)
      t.equal(reply.body?.error?.details?.[0]?.message, textProblem, `${label}: the detail says why`)
    }
  }
  t.same(await readWorkspace(baseUrl, key, instants), before, 'nothing stored')
})

t.test('tab and ordinary Unicode are kept', async (t) => {
  const text = 'Invoice\t1001 – Überweisung € 😀'
  const entry = await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: pair, description: text, metadata: { [`k\t${text}`.slice(0, 40)]: text } } })
  t.equal(entry.status, 201, 'accepted')
  t.equal(entry.body?.description, text, 'stored and shown as sent')
  const account = await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:cash', tags: [text] } })
  t.same(account.body?.tags, [text])
})

t.test('metadata keys longer than 40 characters are refused (the schema now checks keys at all)', async (t) => {
  const reply = await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: pair, metadata: { ['k'.repeat(41)]: 'x' } } })
  assertError(t, reply, 400, 'request_invalid', 'a 41-character key')
  t.equal(detailPaths(reply)[0], `/metadata/${'k'.repeat(41)}`)
  t.equal((await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: pair, metadata: { ['k'.repeat(40)]: 'x' } } })).status, 201, '40 characters are fine')
})

t.test('a body that is not UTF-8 is 400 json_invalid, never stored with U+FFFD', async (t) => {
  const before = await readWorkspace(baseUrl, key, instants)
  const latin1 = (json: string) => Buffer.from(json, 'latin1')
  const headers = { 'content-type': 'application/json' }
  const entry = await call(baseUrl, 'POST', '/v2/entries', { key, headers, raw: latin1(JSON.stringify({ lines: pair, description: 'Überweisung' })) })
  assertError(t, entry, 400, 'json_invalid', 'Latin-1 ü in an entry description')
  const lone = Buffer.concat([Buffer.from('{"name":"assets:x'), Buffer.from([0x80]), Buffer.from('y"}')])
  assertError(t, await call(baseUrl, 'POST', '/v2/accounts', { key, headers, raw: lone }), 400, 'json_invalid', 'a lone continuation byte in an account name')
  const admin = await call(baseUrl, 'POST', '/admin/keys', { key: adminToken, headers, raw: latin1(JSON.stringify({ workspace: 'default', scopes: ['accounts:read'], name: 'Jürgen' })) })
  assertError(t, admin, 400, 'json_invalid', 'Latin-1 in an admin body')
  t.same(await readWorkspace(baseUrl, key, instants), before, 'nothing stored')
})

t.test('CSV lines: bytes that are not UTF-8 and control characters answer /lines/<index>/<column> and the row', async (t) => {
  const csv = (...parts: (string | number[])[]) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))))
  const cases: [string, Buffer, string, number][] = [
    ['Latin-1 ü in a description', csv('date,amount,description\r\n2025-01-03,1,ok\r\n2025-01-04,2,"Gr', [0xfc], 'n, AG"\r\n'), '/lines/1/description', 3],
    ['0xff in a reference after a BOM and a blank line', csv([0xef, 0xbb, 0xbf], 'Reference,Date,Amount\n\nR', [0xff], ',2025-01-03,1\n'), '/lines/0/reference', 3],
    ['a terminal escape in a reference', csv('date,amount,reference\n2025-01-03,1,\u001b[2J\n'), '/lines/0/reference', 2],
    ['a quoted line break in a description', csv('date,amount,description\n2025-01-03,1,ok\n2025-01-04,1,"two\nlines"\n'), '/lines/1/description', 3],
  ]
  for (const [name, body, path, row] of cases) {
    const reply = await addCsv(baseUrl, key, window.id, body)
    assertError(t, reply, 400, 'request_invalid', name)
    t.same(detailPaths(reply), [path], `${name}: ${path}`)
    t.match(reply.body?.error?.message ?? '', new RegExp(`^CSV row ${row}\\b`), `${name}: row ${row}`)
  }
  assertError(t, await addCsv(baseUrl, key, window.id, csv('date,am', [0xff], 'ount\n2025-01-03,1\n')), 400, 'request_invalid', 'a header that is not UTF-8')
  const tab = await addCsv(baseUrl, key, window.id, 'date,amount,description\n2025-01-03,1,a\tb\n')
  t.equal(tab.status, 201, 'a tab is kept')
  t.equal(tab.body?.lines?.[0]?.description, 'a\tb')
})

/** Unpaired surrogates: JSON's \u escapes can write them, UTF-8 cannot hold them (they would read back as U+FFFD after a restart). */
const unpaired = ['A\ud800B', '\udc00', 'end\udbff', '\ude00\ud83d']

t.test('an unpaired surrogate in any string of a body is 400 request_invalid at its field; nothing is stored', async (t) => {
  const before = await readWorkspace(baseUrl, key, instants)
  for (const [name, method, route, body, path, asAdmin] of cases) {
    for (const bad of unpaired) {
      const label = `${name}, ${JSON.stringify(bad)}`
      const reply = await call(baseUrl, method, route, { key: asAdmin === true ? adminToken : key, body: body(bad) })
      assertError(t, reply, 400, 'request_invalid', label)
      const expected = path === 'metadata-key' ? `/metadata/${bad}` : path
      t.equal(detailPaths(reply)[0], expected, `${label}: details path`)
      t.equal(reply.body?.error?.details?.[0]?.message, surrogateProblem, `${label}: the detail says why`)
    }
  }
  const idLike = await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: pair, effective_at: '2026-01-01T00:00:00Z\ud800' } })
  assertError(t, idLike, 400, 'request_invalid', 'a string that is not free text (a timestamp)')
  t.equal(detailPaths(idLike)[0], '/effective_at')
  t.same(await readWorkspace(baseUrl, key, instants), before, 'nothing stored')
})

t.test('a surrogate pair written as two escapes is one character and is kept', async (t) => {
  const text = 'smile \ud83d\ude00 done'
  const raw = Buffer.from(`{"lines":${JSON.stringify(pair)},"description":"smile \\ud83d\\ude00 done","metadata":{"k":"\\\\ud800 is text"}}`)
  const entry = await call(baseUrl, 'POST', '/v2/entries', { key, headers: { 'content-type': 'application/json' }, raw })
  t.equal(entry.status, 201, 'accepted')
  t.equal(entry.body?.description, text)
  t.same(entry.body?.metadata, { k: '\\ud800 is text' }, 'an escaped backslash before u is no surrogate')
})

t.test('a WebSocket request with an unpaired surrogate is refused like a body, naming it within the message; nothing is stored', async (t) => {
  const entriesOf = async (): Promise<{ description: string | null }[]> => (await call(baseUrl, 'GET', '/v2/entries?limit=1000', { key })).body.data
  const before = await entriesOf()
  const socket = await openSocket(baseUrl, key)
  t.teardown(() => socket.socket.close())
  await socket.next((message) => message.type === 'authenticated')
  socket.send({ type: 'request', id: 's1', method: 'POST', path: '/v2/entries', body: { lines: pair, description: 'A\ud800B' } })
  t.match(await socket.next((message) => message.type === 'error'), { type: 'error', error: { code: 'request_invalid', details: [{ path: '/body/description', message: surrogateProblem }] } })
  socket.send({ type: 'request', id: 's2', method: 'POST', path: '/v2/entries', body: { lines: pair, description: 'smile \ud83d\ude00' } })
  t.match(await socket.next((message) => message.type === 'response' && message.id === 's2'), { status: 201, body: { description: 'smile \ud83d\ude00' } }, 'a pair is a character')
  const after = await entriesOf()
  t.equal(after.length, before.length + 1, 'the pair\'s entry only')
  t.notOk(after.some((entry) => entry.description?.startsWith('A\ud800') || entry.description === 'A\ufffdB'), 'the refused entry is nowhere')
})

t.test('a query whose percent-encoding is not UTF-8 (an encoded surrogate, Latin-1) is 400 at its parameter, not read as U+FFFD', async (t) => {
  const before = await readWorkspace(baseUrl, key, instants)
  const file = Buffer.from('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt/></Document>')
  for (const label of ['%ED%A0%80', 'A%FCB', '%C3']) {
    const reply = await call(baseUrl, 'POST', `/v2/statements?label=${label}`, { key, raw: file, headers: { 'content-type': 'application/xml' } })
    assertError(t, reply, 400, 'request_invalid', `label ${label}`)
    t.equal(detailPaths(reply)[0], '/label')
  }
  const list = await call(baseUrl, 'GET', '/v2/entries?account=%FC', { key })
  assertError(t, list, 400, 'request_invalid', 'an entry list filter')
  t.equal(detailPaths(list)[0], '/account')
  t.equal((await call(baseUrl, 'GET', '/v2/entries?account=%C3%BC', { key })).body?.error?.code, 'account_unknown', 'UTF-8 (ü) is read as before')
  t.equal((await call(baseUrl, 'GET', '/v2/entries?account=100%', { key })).body?.error?.code, 'account_unknown', 'a % without two hex digits stays literal, as before')
  t.same(await readWorkspace(baseUrl, key, instants), before, 'nothing stored')
})

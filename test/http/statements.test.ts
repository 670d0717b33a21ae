/**
 * POST /v2/statements over HTTP (docs/API.md, Bank statement formats): every fixture opens its windows to the figures written down by
 * hand in test/statements/<format>.test.ts (period, claimed movement, line count, sum of lines); every bad file
 * answers its code with nothing stored; the same statement again is a replay; /lines takes the formats too.
 */
import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { adminCreateKey, adminCreateWorkspace, assertError, listAll, scopesAll } from '../support/api.ts'
import { call, startTestService, type Reply } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl } = service

const fixturesDir = path.resolve(import.meta.dirname, '../fixtures/statements')
const fixture = (format: string, name: string): Buffer => fs.readFileSync(path.join(fixturesDir, format, name))
const latin1 = (format: string, name: string): string => fixture(format, name).toString('latin1')

let workspaces = 0
/** A fresh workspace with its all-scope key, and accounts: [name, currency, external_id]. */
async function workspaceWith(accounts: readonly (readonly [string, string, string])[]): Promise<string> {
  const id = `st${++workspaces}`
  if ((await adminCreateWorkspace(service, id)).status !== 201) throw new Error('workspace')
  const key = (await adminCreateKey(service, id, scopesAll)).secret
  for (const [name, currency, external] of accounts) {
    const reply = await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name, currency, external_id: external } })
    if (reply.status !== 201) throw new Error(`account ${name}: ${reply.text}`)
  }
  return key
}

/**
 * assertError, but statement_invalid's detail paths are where in the file (`line 30`, an XML path), not JSON
 * pointers into the request (docs/API.md, Bank statement formats): for it the envelope is checked here.
 */
function assertRefused(t: Test, reply: Reply, status: number, code: string, label: string): void {
  if (code !== 'statement_invalid') return assertError(t, reply, status, code, label)
  t.equal(reply.status, status, `${label}: status ${status}`)
  t.equal(reply.body?.error?.code, code, `${label}: code ${code}`)
  t.ok(typeof reply.body.error.message === 'string' && reply.body.error.details.every((detail: any) => typeof detail.path === 'string' && typeof detail.message === 'string'), `${label}: message and details saying where`)
}

function importFile(key: string, body: Buffer | string, contentType?: string, query = '', headers: Record<string, string> = {}): Promise<Reply> {
  return call(baseUrl, 'POST', `/v2/statements${query}`, { key, raw: body, headers: contentType === undefined ? headers : { 'content-type': contentType, ...headers } })
}

/** Everything a key sees of its windows and their lines: compared before and after a refused import. */
async function stored(key: string): Promise<unknown> {
  const windows = (await call(baseUrl, 'GET', '/v2/reconciliations?limit=1000', { key })).body.data
  const lines = await Promise.all(windows.map(async (window: any) => (await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/lines?limit=1000`, { key })).body.data))
  return { windows, lines }
}

interface Expected {
  readonly statement_ref: string
  readonly period: { readonly from: string; readonly to: string }
  readonly claimed: number
  readonly lines: number
  readonly sum: number
}

/** The figures of test/statements/*.test.ts, written down by hand from each file. */
const fixtures: readonly { format: string; name: string; contentType?: string; accounts: [string, string, string][]; expected: Expected[]; count?: number }[] = [
  {
    format: 'camt053', name: 'v08-kwd-batch-reversal.xml', contentType: 'application/xml', accounts: [['assets:bank:kwd', 'KWD', '0123456789']],
    expected: [{ statement_ref: 'KW-2026-10-31', period: { from: '2026-10-01', to: '2026-10-31' }, claimed: 3748500, lines: 4, sum: 3750500 - 420125 + 420125 - 2000 }],
  },
  {
    format: 'camt053', name: 'v02-jpy-two-statements-crlf.xml', accounts: [['assets:bank:jpy', 'JPY', '1234567']],
    expected: [
      { statement_ref: 'JP-STMT-0001', period: { from: '2026-11-03', to: '2026-11-04' }, claimed: 117600, lines: 2, sum: 150000 - 32400 },
      { statement_ref: 'JP-STMT-0002', period: { from: '2026-11-05', to: '2026-11-06' }, claimed: 992400, lines: 2, sum: -7600 + 1000000 },
    ],
  },
  {
    // 20 statements of 13 accounts, all EUR: an account for each identifier the file names.
    format: 'mt940', name: 'betterplace-sepa-mt9401.sta', contentType: 'application/x-mt940', count: 20,
    accounts: [...new Set([...latin1('mt940', 'betterplace-sepa-mt9401.sta').matchAll(/^:25:(.*?)\r?$/gm)].map((match) => match[1]))].map((id, index) => [`assets:bank:sepa${index}`, 'EUR', id]),
    expected: [{ statement_ref: 'T089413946000001/00004', period: { from: '2007-09-04', to: '2007-09-04' }, claimed: -290987, lines: 7, sum: 30000 + 33533 + 1500000 + 6629508 + 91531155 - 20488 - 99994695 }],
  },
  {
    format: 'mt940', name: 'swift-envelope-pages-jpy-crlf.sta', accounts: [['assets:bank:mhcb', 'JPY', 'MHCBJPJT/1234567']],
    expected: [{ statement_ref: 'JPSTMT1106/77', period: { from: '2026-11-05', to: '2026-11-06' }, claimed: -159000, lines: 4, sum: 250000 - 12000 + 3000 - 400000 }],
  },
  {
    format: 'mt940', name: 'bhd-three-statements.sta', contentType: 'application/x-mt940',
    accounts: [['assets:bank:bhd1', 'BHD', 'BH67BMAG00001299123456'], ['assets:bank:bhd2', 'BHD', 'BH29BMAG00001299654321']],
    expected: [
      { statement_ref: 'BMAG261002/12', period: { from: '2026-10-02', to: '2026-10-02' }, claimed: 149625, lines: 2, sum: 200125 - 50500 },
      { statement_ref: 'BMAG261002/4', period: { from: '2026-10-02', to: '2026-10-02' }, claimed: 10001, lines: 1, sum: 10001 },
      { statement_ref: 'BMAG261005/13', period: { from: '2026-10-03', to: '2026-10-05' }, claimed: 0, lines: 0, sum: 0 },
    ],
  },
  {
    format: 'mt940', name: 'jejik-generic.sta', accounts: [['assets:bank:generic', 'EUR', '11111111']],
    expected: [
      { statement_ref: 'GENERIC/1', period: { from: '2011-01-02', to: '2011-02-01' }, claimed: -1000, lines: 1, sum: -1000 },
      { statement_ref: 'GENERIC/2', period: { from: '2011-02-02', to: '2011-03-01' }, claimed: -1000, lines: 1, sum: -1000 },
    ],
  },
  {
    format: 'mt940', name: 'citi-usd.sta', contentType: 'application/x-mt940', accounts: [['assets:bank:citi', 'USD', '123456789']],
    expected: [{ statement_ref: 'asdfsdfdsf/1', period: { from: '2024-03-12', to: '2024-03-12' }, claimed: -114275, lines: 5, sum: -21239 - 36928 + 0 + 0 - 56108 }],
  },
  {
    format: 'bai2', name: 'usd-two-groups-continuations.bai', contentType: 'application/x-bai2',
    accounts: [['assets:bank:op', 'USD', '000111222'], ['assets:bank:payroll', 'USD', '000333444']],
    expected: [
      { statement_ref: 'FILE42/1/000111222', period: { from: '2026-11-01', to: '2026-11-01' }, claimed: 235025, lines: 3, sum: 250000 + 10025 - 25000 },
      { statement_ref: 'FILE42/1/000333444', period: { from: '2026-11-01', to: '2026-11-01' }, claimed: 10000, lines: 1, sum: 10000 },
      { statement_ref: 'FILE42/2/000111222', period: { from: '2026-11-02', to: '2026-11-04' }, claimed: -2000, lines: 1, sum: -2000 },
    ],
  },
  {
    format: 'bai2', name: 'jpy-crlf.bai', accounts: [['assets:bank:jp7', 'JPY', '1234567']],
    expected: [{ statement_ref: 'JP7/1/1234567', period: { from: '2026-11-04', to: '2026-11-04' }, claimed: -162000, lines: 3, sum: 250000 - 400000 - 12000 }],
  },
  {
    format: 'bai2', name: 'bhd-distributed-funds.bai', contentType: 'application/x-bai2', accounts: [['assets:bank:bh1', 'BHD', 'BH67BMAG00001299123456']],
    expected: [{ statement_ref: 'BH1/1/BH67BMAG00001299123456', period: { from: '2026-10-01', to: '2026-10-01' }, claimed: 149625, lines: 2, sum: 200125 - 50500 }],
  },
]

async function assertFigures(t: Test, key: string, windows: any[], expected: readonly Expected[]): Promise<void> {
  for (const [index, want] of expected.entries()) {
    const window = windows[index]
    t.match(window, { statement_ref: want.statement_ref, window: want.period, claimed_movement: want.claimed, lines_count: want.lines, state: 'open', tolerance: 0 }, `${want.statement_ref}: period, claimed movement, line count`)
    const lines = (await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/lines?limit=1000`, { key })).body.data
    t.equal(lines.reduce((sum: number, line: any) => sum + line.amount, 0), want.sum, `${want.statement_ref}: the sum of its lines`)
  }
}

t.test('every fixture imports to the figures written down by hand', async (t) => {
  for (const file of fixtures) {
    const key = await workspaceWith(file.accounts)
    const reply = await importFile(key, fixture(file.format, file.name), file.contentType)
    if (!t.equal(reply.status, 201, `${file.name}: 201`)) t.comment(reply.text.slice(0, 500))
    t.equal(reply.headers.get('replayed'), null, `${file.name}: not a replay`)
    t.equal(reply.body.statements, file.count ?? file.expected.length, `${file.name}: statements`)
    t.equal(reply.body.data.length, reply.body.statements, `${file.name}: a window per statement`)
    await assertFigures(t, key, reply.body.data, file.expected)
    const listed = (await call(baseUrl, 'GET', '/v2/reconciliations?limit=1000', { key })).body.data
    t.same(listed, reply.body.data.map((window: any) => ({ ...window })), `${file.name}: the windows are stored as answered`)
  }
})

t.test('labels, currencies and line fields: the KWD file with ?label=', async (t) => {
  const key = await workspaceWith([['assets:bank:kwd', 'KWD', '0123456789']])
  const reply = await importFile(key, fixture('camt053', 'v08-kwd-batch-reversal.xml'), undefined, '?label=October%20KWD')
  t.equal(reply.status, 201, 'recognised from the content')
  t.match(reply.body.data[0], { label: 'October KWD', accounts: ['assets:bank:kwd'], currency: 'KWD' })
  const lines = (await call(baseUrl, 'GET', `/v2/reconciliations/${reply.body.data[0].id}/lines`, { key })).body.data
  t.same(lines[1], {
    id: 'l2', amount: -420125, date: '2026-10-12', value_date: '2026-10-13', reference: 'E2E-INV-5521', description: 'Invoice 5521',
    counterparty: { name: 'Gulf Supplies W.L.L. & Co', account: 'KW81CBKU0000000000001234560101' }, outside_period: false, match: null, assignee: null, note: null,
  })
  const other = await workspaceWith([['assets:bank:mt', 'EUR', '11111111']])
  t.match((await importFile(other, latin1('mt940', 'jejik-generic.sta'))).body.data[0], { label: 'GENERIC/1 11111111' }, 'default label: statement_ref and account identifier')
})

t.test('a line booked outside the period is kept and flagged, never refused', async (t) => {
  const key = await workspaceWith([['assets:bank:generic', 'EUR', '11111111']])
  // jejik's first statement runs 2011-01-02..02-01 (the day after its opening); its one line is booked 2011-01-01.
  const reply = await importFile(key, latin1('mt940', 'jejik-generic.sta'))
  t.equal(reply.status, 201)
  const lines = (await call(baseUrl, 'GET', `/v2/reconciliations/${reply.body.data[0].id}/lines`, { key })).body.data
  t.match(lines, [{ date: '2011-01-01', outside_period: true, amount: -1000 }])
})

t.test('the same statement again is a replay; different content under the same id is 409', async (t) => {
  const key = await workspaceWith([['assets:bank:jpy', 'JPY', '1234567']])
  const file = fixture('camt053', 'v02-jpy-two-statements-crlf.xml')
  const first = await importFile(key, file, 'application/xml')
  t.equal(first.status, 201)
  const before = await stored(key)
  const again = await importFile(key, file, 'application/xml')
  t.equal(again.status, 201)
  t.equal(again.headers.get('replayed'), 'true', 'Replayed: true, without an Idempotency-Key')
  t.same(again.body, first.body, 'the stored result')
  t.same(await stored(key), before, 'nothing stored twice')
  const changed = file.toString('latin1').replace('<AddtlNtryInf>Rent November</AddtlNtryInf>', '<AddtlNtryInf>Rent Nov.</AddtlNtryInf>')
  assertError(t, await importFile(key, Buffer.from(changed, 'latin1'), 'application/xml'), 409, 'idempotency_conflict', 'same statement id, different content')
  t.same(await stored(key), before, 'nothing stored')
  // Abandoning an imported window lets its statement be imported again (a corrected import).
  await call(baseUrl, 'PATCH', `/v2/reconciliations/${first.body.data[0].id}`, { key, body: { state: 'abandoned', reason: 'wrong text' } })
  const second = await importFile(key, Buffer.from(changed, 'latin1'), 'application/xml')
  t.equal(second.status, 201, 'the statement whose window was abandoned imports; the other is known')
  t.equal(second.headers.get('replayed'), null)
  t.not(second.body.data[0].id, first.body.data[0].id, 'the changed one opens a new window')
  t.equal(second.body.data[1].id, first.body.data[1].id, 'the known statement answers its window')
})

t.test('bad files: each answers its code and nothing is stored', async (t) => {
  const key = await workspaceWith([['assets:bank:jpy', 'JPY', '1234567'], ['assets:bank:bhd1', 'BHD', 'BH67BMAG00001299123456'], ['assets:bank:bhd2', 'BHD', 'BH29BMAG00001299654321'], ['assets:bank:usd', 'USD', '000111222'], ['assets:bank:payroll', 'USD', '000333444'], ['assets:bank:eur', 'EUR', '11111111']])
  const before = await stored(key)
  const jpy = latin1('camt053', 'v02-jpy-two-statements-crlf.xml')
  const bhd = latin1('mt940', 'bhd-three-statements.sta')
  const usd = latin1('bai2', 'usd-two-groups-continuations.bai')
  const cases: [string, Buffer | string, string | undefined, string, number, string][] = [
    ['truncated camt.053', jpy.slice(0, jpy.indexOf('<Ntry>') + 100), 'application/xml', '', 400, 'statement_invalid'],
    ['XML that is not camt.053', '<?xml version="1.0"?><html><body>statement</body></html>', 'application/xml', '', 400, 'statement_invalid'],
    ['camt.054 instead of camt.053', fixture('camt053', 'genkgo-camt054-v2.xml'), 'application/xml', '', 400, 'statement_invalid'],
    ['an XML bomb', `<?xml version="1.0"?>\n<!DOCTYPE Document [\n<!ENTITY lol0 "lol">\n<!ENTITY lol1 "${'&lol0;'.repeat(10)}">\n]>\n<Document>&lol1;</Document>`, 'application/xml', '', 400, 'statement_invalid'],
    ['too many decimals for JPY', jpy.replace('<Amt Ccy="JPY">150000</Amt>', '<Amt Ccy="JPY">150000.5</Amt>'), 'application/xml', '', 400, 'statement_invalid'],
    ['an MT940 without :62F:', latin1('mt940', 'jejik-generic.sta').replace(':62F:C110301EUR80,00\n', ''), 'application/x-mt940', '', 400, 'statement_invalid'],
    ['the BAI2 specification\'s sample: no 010/015 ledger balances (moov-io fixture)', fixture('bai2', 'moov-bai2-spec-sample.txt'), 'application/x-bai2', '', 400, 'statement_invalid'],
    ['BAI2 record counts that do not match', usd.replace('99,+7287125,2,19/', '99,+7287125,2,18/'), 'application/x-bai2', '', 400, 'statement_invalid'],
    ['not a statement at all', 'just some text\n', undefined, '', 400, 'statement_invalid'],
    ['a second statement that is bad: the first is not stored', jpy.replace('<Amt Ccy="JPY">7600</Amt>', '<Amt Ccy="JPY">7600.5</Amt>'), 'application/xml', '', 400, 'statement_invalid'],
    ['an unbalanced statement', jpy.replace('<Amt Ccy="JPY">1610000</Amt>', '<Amt Ccy="JPY">1610001</Amt>'), 'application/xml', '', 422, 'statement_unbalanced'],
    ['an unknown account identifier', bhd.replace(/BH29BMAG00001299654321/g, 'BH00NOBODY'), 'application/x-mt940', '', 404, 'account_unknown'],
    ['a currency other than the account\'s', usd.replace(/000111222/g, '11111111'), 'application/x-bai2', '', 422, 'currency_mismatch'],
    ['an unknown ?format=', jpy, 'application/xml', '?format=ofx', 400, 'request_invalid'],
    ['a ?label= with a control character', jpy, 'application/xml', '?label=a%0Ab', 400, 'request_invalid'],
    ['a format that is not the file\'s', jpy, 'application/xml', '?format=mt940', 400, 'statement_invalid'],
  ]
  for (const [label, body, contentType, query, status, code] of cases) {
    const reply = await importFile(key, body, contentType, query)
    assertRefused(t, reply, status, code, label)
    t.same(await stored(key), before, `${label}: nothing stored`)
  }
  const unknown = await importFile(key, bhd.replace(/BH29BMAG00001299654321/g, 'BH00NOBODY'), 'application/x-mt940')
  t.same(unknown.body.error.details, [{ path: '/statements/1/account', message: 'no account has external_id BH00NOBODY' }], 'details name the identifier')
  const unbalanced = await importFile(key, jpy.replace('<Amt Ccy="JPY">1610000</Amt>', '<Amt Ccy="JPY">1610001</Amt>'), 'application/xml')
  t.match(unbalanced.body.error.details, [{ path: '/statements/1', message: /opening 617600 \+ sum of lines 992400 = 1610000, not the closing 1610001/ }])
})

t.test('period rules and overlaps refuse the whole file', async (t) => {
  const key = await workspaceWith([['assets:bank:eur', 'EUR', 'NL26VAYB8060476890'], ['assets:bank:generic', 'EUR', '11111111']])
  const before = await stored(key)
  // genkgo's second statement starts the day after the first's closing (2015-01-01) and ends 2014-12-31.
  assertError(t, await importFile(key, fixture('camt053', 'genkgo-v02-multi-statement.xml'), 'application/xml'), 400, 'window_invalid', 'the second statement ends before it starts: the first is not stored either')
  t.same(await stored(key), before, 'nothing stored')
  const open = await call(baseUrl, 'POST', '/v2/reconciliations', { key, body: { label: 'by hand', accounts: ['assets:bank:generic'], window: { from: '2011-02-10', to: '2011-02-20' }, claimed_movement: 0 } })
  t.equal(open.status, 201)
  const withWindow = await stored(key)
  assertError(t, await importFile(key, latin1('mt940', 'jejik-generic.sta')), 409, 'window_overlap', 'the second statement overlaps a live window')
  t.same(await stored(key), withWindow, 'the first statement is not stored either')
})

t.test('a 16 MiB + 1 byte file is 413; 16 MiB is read', async (t) => {
  const key = await workspaceWith([])
  const before = await stored(key)
  const limit = 16 * 1024 * 1024
  const over = Buffer.alloc(limit + 1, 0x20)
  assertError(t, await importFile(key, over, 'application/x-mt940'), 413, 'body_too_large', '16 MiB + 1')
  t.same(await stored(key), before)
  const at = Buffer.alloc(limit, 0x20)
  assertRefused(t, await importFile(key, at, 'application/x-mt940'), 400, 'statement_invalid', '16 MiB of blanks: read, and refused as no statement')
})

t.test('POST /v2/reconciliations/:id/lines takes statement files: lines only, the window\'s account, balances checked', async (t) => {
  const key = await workspaceWith([['assets:bank:jpy', 'JPY', '1234567'], ['assets:bank:other', 'JPY', '7654321'], ['assets:bank:eur', 'EUR', 'DE00']])
  const open = await call(baseUrl, 'POST', '/v2/reconciliations', { key, body: { label: 'Nov', accounts: ['assets:bank:jpy'], window: { from: '2026-11-03', to: '2026-11-05' }, claimed_movement: 0 } })
  t.equal(open.status, 201)
  const recon = `/v2/reconciliations/${open.body.id}`
  const before = await stored(key)
  const jpy = latin1('camt053', 'v02-jpy-two-statements-crlf.xml')
  assertError(t, await call(baseUrl, 'POST', `${recon}/lines`, { key, raw: jpy.replace('<Amt Ccy="JPY">1610000</Amt>', '<Amt Ccy="JPY">1610001</Amt>'), headers: { 'content-type': 'application/xml' } }), 422, 'statement_unbalanced', 'balances checked')
  assertError(t, await call(baseUrl, 'POST', `${recon}/lines`, { key, raw: jpy.replace(/<Id>1234567<\/Id>/g, '<Id>7654321</Id>'), headers: { 'content-type': 'application/xml' } }), 400, 'request_invalid', 'another account than the window\'s')
  assertError(t, await call(baseUrl, 'POST', `${recon}/lines`, { key, raw: jpy.replace(/<Id>1234567<\/Id>/g, '<Id>999</Id>'), headers: { 'content-type': 'application/xml' } }), 404, 'account_unknown', 'an unknown account')
  t.same(await stored(key), before, 'nothing stored')
  const added = await call(baseUrl, 'POST', `${recon}/lines?format=camt053`, { key, raw: jpy })
  t.equal(added.status, 201)
  t.equal(added.body.lines_count, 4, 'the lines of both statements')
  t.same(added.body.lines.map((line: any) => [line.date, line.outside_period]), [['2026-11-03', false], ['2026-11-04', false], ['2026-11-05', false], ['2026-11-06', true]], 'a line after the period is kept, flagged')
  const window = (await call(baseUrl, 'GET', recon, { key })).body
  t.equal(window.claimed_movement, 0, 'lines only: the window\'s own figures stay')
})

t.test('replay after a restart gives the same windows', async (t) => {
  const own = await startTestService()
  const key = own.apiKey
  await call(own.baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:bank:usd', currency: 'USD', external_id: '000111222' } })
  await call(own.baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:bank:pay', external_id: '000333444' } })
  const imported = await call(own.baseUrl, 'POST', '/v2/statements', { key, raw: fixture('bai2', 'usd-two-groups-continuations.bai') })
  t.equal(imported.status, 201)
  const read = async (base: string) => {
    const windows = (await call(base, 'GET', '/v2/reconciliations', { key })).body.data
    const lines = await Promise.all(windows.map(async (window: any) => (await call(base, 'GET', `/v2/reconciliations/${window.id}/lines`, { key })).body.data))
    return { windows, lines }
  }
  const before = await read(own.baseUrl)
  await own.stop()
  const again = await startTestService({ dataDir: own.dataDir, apiKey: key })
  t.teardown(() => again.destroy())
  t.same(await read(again.baseUrl), before, 'the same windows and lines after replay')
  const replayed = await call(again.baseUrl, 'POST', '/v2/statements', { key, raw: fixture('bai2', 'usd-two-groups-continuations.bai') })
  t.equal(replayed.headers.get('replayed'), 'true', 'still known after the restart')
})

t.test('a file over 256 KiB is read in the worker thread, to the same windows', async (t) => {
  const { writeMt940 } = await import('../support/statement-writers.ts')
  const key = await workspaceWith([['assets:bank:big', 'EUR', 'DE00BIG']])
  const entries = Array.from({ length: 4000 }, (_, index) => ({
    amount: index % 2 === 0 ? 1000 + index : -(500 + index), mark: index % 2 === 0 ? 'credit' as const : 'debit' as const, reversal: false,
    date: '2026-10-15', value_date: '2026-10-15', reference: `REF-${index}`, description: `Payment number ${index} for invoice ${90_000 + index}`, counterparty: null,
  }))
  // Written down from the generator: 2,000 credits 1000 + 2k and 2,000 debits 500 + (2k + 1), k = 0..1999.
  const sum = 2000 * 1000 - (2000 * 500 + 2000)
  const file = writeMt940([{
    format: 'mt940', statement_ref: 'BIG/1', account: 'DE00BIG', currency: 'EUR', opening: { amount: 100, date: '2026-09-30' },
    closing: { amount: 100 + sum, date: '2026-10-31' }, period: { from: '2026-10-01', to: '2026-10-31' }, entries,
  }])
  t.ok(Buffer.byteLength(file) > 256 * 1024, `${Buffer.byteLength(file)} bytes: over the inline limit`)
  const reply = await importFile(key, file, 'application/x-mt940')
  t.equal(reply.status, 201)
  t.match(reply.body.data[0], { claimed_movement: sum, lines_count: 4000 })
  const lines = (await listAll(baseUrl, key, `/v2/reconciliations/${reply.body.data[0].id}/lines`, 1000)).items
  t.equal(lines.reduce((total: number, line: any) => total + line.amount, 0), sum, 'the sum of its lines')
  t.match(lines[3999], { id: 'l4000', reference: 'REF-3999', description: 'Payment number 3999 for invoice 93999' })
})

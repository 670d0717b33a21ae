/** POST/GET /v2/reconciliations/:id/lines (docs/API.md, Reconciliation windows): JSON and text/csv statement lines, ids, validation, nothing stored on a bad request. */
import t from 'tap'
import { assertError, createAccount, detailPaths, postEntryOk, raiseLimits } from '../support/api.ts'
import { manualClock } from '../support/clock.ts'
import { addCsv, addLines, getWindowOk, historyOf, linesOf, matchOk, openWindowOk, pair, readWindow } from '../support/recon.ts'
import { call, startTestService } from '../support/service.ts'

const clock = manualClock(Date.parse('2026-11-22T12:00:00.000Z'))
const service = await startTestService({ clock: clock.now })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
for (const name of ['assets:bank', 'income:sales']) await createAccount(baseUrl, key, name)

let month = 0
/** A fresh window on assets:bank over days 1..27 of its own month of 2025, so windows never overlap and day 28 is outside. */
async function freshWindow(): Promise<{ id: string; from: string; to: string; day: (d: number) => string }> {
  month += 1
  const mm = String(month).padStart(2, '0')
  const window = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: `2025-${mm}-01`, to: `2025-${mm}-27`, claimed_movement: 0 })
  return { id: window.id, from: `2025-${mm}-01`, to: `2025-${mm}-27`, day: (d) => `2025-${mm}-${String(d).padStart(2, '0')}` }
}

t.test('JSON lines: 201, ids l1.. continuing across uploads, lines_count', async (t) => {
  const w = await freshWindow()
  const first = await addLines(baseUrl, key, w.id, [
    { amount: 100, date: w.day(1), reference: 'R1', description: 'first' },
    { amount: -5, date: w.day(27) },
  ])
  t.equal(first.status, 201)
  t.same(first.body, {
    lines: [
      { id: 'l1', amount: 100, date: w.day(1), value_date: null, reference: 'R1', description: 'first', counterparty: null, outside_period: false },
      { id: 'l2', amount: -5, date: w.day(27), value_date: null, reference: null, description: null, counterparty: null, outside_period: false },
    ],
    lines_count: 2,
  }, 'lines with ids, absent reference and description are null, lines_count')
  const second = await addLines(baseUrl, key, w.id, [{ amount: 7, date: w.day(2), reference: null, description: null }])
  t.equal(second.status, 201)
  t.same(second.body, { lines: [{ id: 'l3', amount: 7, date: w.day(2), value_date: null, reference: null, description: null, counterparty: null, outside_period: false }], lines_count: 3 }, 'ids continue across uploads')
  const view = await getWindowOk(baseUrl, key, w.id)
  t.equal(view.lines_count, 3)
  t.equal(view.unmatched_lines_count, 3)
  t.same((await linesOf(baseUrl, key, w.id)).map((line) => [line.id, line.amount]), [['l1', 100], ['l2', -5], ['l3', 7]], 'GET lists them in order')
  t.match((await historyOf(baseUrl, key, w.id)).filter((event) => event.type === 'lines_added'), [{ count: 2 }, { count: 1 }], 'history: lines_added per upload')
})

t.test('JSON lines: validation, nothing stored', async (t) => {
  const w = await freshWindow()
  await addLines(baseUrl, key, w.id, [{ amount: 1, date: w.day(3) }])
  const before = await readWindow(baseUrl, key, w.id)
  const outside = await addLines(baseUrl, key, w.id, [{ amount: 1, date: w.day(3) }, { amount: 2, date: w.day(28) }, { amount: 3, date: '2024-12-31' }])
  assertError(t, outside, 422, 'line_outside_window', 'lines dated after and before the window')
  t.same(detailPaths(outside), ['/lines/1/date', '/lines/2/date'], 'details path /lines/<i>/date')
  assertError(t, await addLines(baseUrl, key, w.id, [{ amount: 1, date: '2025-02-30' }]), 400, 'request_invalid', 'not a real date')
  assertError(t, await addLines(baseUrl, key, w.id, [{ amount: 1.5, date: w.day(3) }]), 400, 'request_invalid', 'a float amount')
  assertError(t, await addLines(baseUrl, key, w.id, [{ amount: '1' as unknown as number, date: w.day(3) }]), 400, 'request_invalid', 'a string amount')
  assertError(t, await addLines(baseUrl, key, w.id, [{ amount: 2 ** 53, date: w.day(3) }]), 400, 'request_invalid', 'an amount beyond 2^53−1')
  assertError(t, await addLines(baseUrl, key, w.id, []), 400, 'request_invalid', 'no lines')
  const many = Array.from({ length: 10_001 }, () => ({ amount: 1, date: w.day(4) }))
  assertError(t, await addLines(baseUrl, key, w.id, many), 400, 'request_invalid', '10,001 lines')
  t.same(await readWindow(baseUrl, key, w.id), before, 'nothing stored')
  const tenThousand = await addLines(baseUrl, key, w.id, many.slice(1))
  t.equal(tenThousand.status, 201, '10,000 lines are accepted')
  t.equal(tenThousand.body.lines_count, 10_001)
  t.equal(tenThousand.body.lines.at(-1).id, 'l10001')
})

t.test('CSV: header any order and case, quotes, CRLF, BOM, empty fields → null', async (t) => {
  const w = await freshWindow()
  const csv = [
    'Description,AMOUNT,Date,reference',
    `"Invoice 1001, ACME",5000,${w.day(3)},TRX-1`,
    `"two, ""quoted"" text",-250,${w.day(4)},`,
    `,17,${w.day(5)},REF-3`,
    '',
  ].join('\r\n')
  const reply = await addCsv(baseUrl, key, w.id, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csv, 'utf8')]))
  t.equal(reply.status, 201, 'accepted')
  t.same(reply.body, {
    lines: [
      { id: 'l1', amount: 5000, date: w.day(3), value_date: null, reference: 'TRX-1', description: 'Invoice 1001, ACME', counterparty: null, outside_period: false },
      { id: 'l2', amount: -250, date: w.day(4), value_date: null, reference: null, description: 'two, "quoted" text', counterparty: null, outside_period: false },
      { id: 'l3', amount: 17, date: w.day(5), value_date: null, reference: 'REF-3', description: null, counterparty: null, outside_period: false },
    ],
    lines_count: 3,
  }, 'every field as written; empty reference/description are null')
  const lf = await addCsv(baseUrl, key, w.id, `date,amount\n${w.day(6)},+9\n`)
  t.equal(lf.status, 201, 'only date and amount, LF')
  t.same(lf.body.lines, [{ id: 'l4', amount: 9, date: w.day(6), value_date: null, reference: null, description: null, counterparty: null, outside_period: false }], 'ids continue after a CSV upload')
  const utf8 = await addCsv(baseUrl, key, w.id, `date,amount,description\n${w.day(7)},1,Überweisung €\n`)
  t.equal(utf8.status, 201)
  t.equal(utf8.body.lines[0].description, 'Überweisung €', 'UTF-8 kept')
})

t.test('CSV: a bad row is 400 with /lines/<index>/<field> and the row number; nothing stored', async (t) => {
  const w = await freshWindow()
  await addCsv(baseUrl, key, w.id, `date,amount\n${w.day(1)},1\n`)
  const before = await readWindow(baseUrl, key, w.id)
  const cases: [string, string, RegExp][] = [
    [`date,amount,reference\n${w.day(2)},10,A\n${w.day(3)},12.5,B\n`, '/lines/1/amount', /\b3\b/],
    [`amount,date\n10,${w.day(2)}\n11,${w.day(3)}\n12,not-a-date\n`, '/lines/2/date', /\b4\b/],
    [`date,amount\n${w.day(2)},\n`, '/lines/0/amount', /\b2\b/],
    [`date,amount\n${w.day(2)},1e3\n`, '/lines/0/amount', /\b2\b/],
  ]
  for (const [csv, path, row] of cases) {
    const reply = await addCsv(baseUrl, key, w.id, csv)
    assertError(t, reply, 400, 'request_invalid', `bad row → ${path}`)
    t.same(detailPaths(reply), [path], `details path ${path}`)
    t.match(reply.body?.error?.message ?? '', row, `message names the row (${row})`)
  }
  const badDate = await addCsv(baseUrl, key, w.id, `date,amount\n${w.day(2)},1\n2025-02-30,1\n`)
  t.equal(badDate.status, 400, 'an impossible calendar date in CSV is 400')
  t.equal(badDate.body?.error?.code, 'request_invalid')
  t.same(detailPaths(badDate), ['/lines/1/date'], 'impossible date: details path /lines/1/date')
  t.match(badDate.body?.error?.message ?? '', /row 3\b/i, 'impossible date: the message names CSV row 3 (header is row 1)')
  const charset = await call(baseUrl, 'POST', `/v2/reconciliations/${w.id}/lines`, { key, raw: `date,amount\n${w.day(2)},1,x\n`, headers: { 'content-type': 'text/csv; charset=utf-8' } })
  assertError(t, charset, 400, 'request_invalid', 'text/csv with a charset parameter is parsed as CSV')
  assertError(t, await addCsv(baseUrl, key, w.id, `date,amount\n${w.day(2)},1\n${w.day(3)},1,extra\n`), 400, 'request_invalid', 'a row with too many columns')
  assertError(t, await addCsv(baseUrl, key, w.id, `date,reference\n${w.day(2)},x\n`), 400, 'request_invalid', 'header without amount')
  assertError(t, await addCsv(baseUrl, key, w.id, `date,amount,memo\n${w.day(2)},1,x\n`), 400, 'request_invalid', 'unknown column')
  assertError(t, await addCsv(baseUrl, key, w.id, 'date,amount\n'), 400, 'request_invalid', 'header only')
  const outside = await addCsv(baseUrl, key, w.id, `date,amount\n${w.day(2)},1\n2026-01-01,1\n`)
  assertError(t, outside, 422, 'line_outside_window', 'a CSV line outside the window')
  t.same(detailPaths(outside), ['/lines/1/date'])
  // A CSV of 10,001 rows must be refused whole, never cut to 10,000 (the last row silently lost).
  const rows = Array.from({ length: 10_001 }, (_, index) => `${w.day(2)},${index + 1}`).join('\n')
  const tooMany = await addCsv(baseUrl, key, w.id, `date,amount\n${rows}\n`)
  assertError(t, tooMany, 400, 'request_invalid', '10,001 CSV rows')
  t.not(tooMany.body?.lines_count, before.window.lines_count + 10_000, '10,001 CSV rows are not cut to 10,000')
  t.same(await readWindow(baseUrl, key, w.id), before, 'nothing stored by any of them')
})

t.test('CSV: a row with too few or too many values answers /lines/<index>/<column> and its row number', async (t) => {
  const w = await freshWindow()
  const before = await readWindow(baseUrl, key, w.id)
  const [d2, d3, d4] = [w.day(2), w.day(3), w.day(4)]
  // [csv, path, row number]: the header is row 1 when it comes first; blank lines count as rows.
  const cases: [string, string, number][] = [
    [`date,amount,reference\r\n${d2},10\r\n`, '/lines/0/reference', 2],
    [`date,amount\r\n${d2},1\r\n${d3},1,extra\r\n`, '/lines/1/amount', 3],
    [`date,amount,reference,description\n${d2},5,R1,Invoice 1001, ACME\n`, '/lines/0/description', 2],
    [`amount,date\n1,${d2}\n2,${d3}\n3,${d4}\n4\n`, '/lines/3/date', 5],
    [`description,date,amount\r\n"a, b",${d2},1\r\n\r\n\r\nc,${d3}\r\n`, '/lines/1/amount', 5],
    [`\r\nDate,Amount\r\n${d2}\r\n`, '/lines/0/amount', 3],
    [`date,amount,reference\n${d2},1,x,y,z\n`, '/lines/0/reference', 2],
    [`date,amount,description\n${d2},1,"ok"\n${d3},2\n${d4},3,"one","two"\n`, '/lines/1/description', 3],
    [`date,amount\n\n${d2},1.5\n`, '/lines/0/amount', 3],
  ]
  for (const [csv, path, row] of cases) {
    const reply = await addCsv(baseUrl, key, w.id, csv)
    assertError(t, reply, 400, 'request_invalid', `${JSON.stringify(csv)} → ${path}`)
    t.same(detailPaths(reply), [path], `details path ${path}`)
    t.match(reply.body?.error?.message ?? '', new RegExp(`^CSV row ${row}\\b`), `the message names row ${row}`)
    t.match(reply.body?.error?.details?.[0]?.message ?? '', new RegExp(`^row ${row}\\b`), `the detail names row ${row}`)
  }
  t.same(await readWindow(baseUrl, key, w.id), before, 'nothing stored')
  const fine = await addCsv(baseUrl, key, w.id, `\r\ndate,amount\r\n\r\n${d2},1\r\n\r\n`)
  t.equal(fine.status, 201, 'blank lines before the header, between rows and at the end are skipped')
})

t.test('the body format: only text/csv is CSV; JSON lines without a JSON content type (curl -d) are JSON', async (t) => {
  const w = await freshWindow()
  const post = (raw: string | Buffer, headers: Record<string, string>) => call(baseUrl, 'POST', `/v2/reconciliations/${w.id}/lines`, { key, raw, headers })
  const json = (amount: number) => JSON.stringify({ lines: [{ amount, date: w.day(2), reference: `R${amount}` }] })
  const declared: [string, Record<string, string>][] = [
    ['curl -d: application/x-www-form-urlencoded', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['text/plain', { 'content-type': 'text/plain;charset=UTF-8' }],
    ['application/json with a charset', { 'content-type': 'application/json; charset=utf-8' }],
    ['no content type', {}],
  ]
  for (const [name, headers] of declared) {
    const amount = declared.findIndex(([other]) => other === name) + 1
    const reply = await post(Buffer.from(json(amount)), headers)
    t.equal(reply.status, 201, `${name}: 201`)
    t.same(reply.body?.lines?.map((line: any) => [line.amount, line.reference]), [[amount, `R${amount}`]], `${name}: read as JSON`)
  }
  const csv = `date,amount\n${w.day(3)},5\n`
  assertError(t, await post(csv, { 'content-type': 'text/plain' }), 400, 'json_invalid', 'a CSV body not declared text/csv is JSON, and not valid JSON')
  assertError(t, await post(csv, { 'content-type': 'application/x-www-form-urlencoded' }), 400, 'json_invalid', 'CSV sent with curl -d: json_invalid')
  t.equal((await post(csv, { 'content-type': 'TEXT/CSV; Charset=UTF-8' })).status, 201, 'text/csv in any case with a parameter is CSV')
  const mislabelled = await post(`\n  ${json(9)}`, { 'content-type': 'text/csv' })
  t.equal(mislabelled.status, 201, 'a JSON object declared text/csv is JSON (no statement CSV starts with {)')
  t.same(mislabelled.body?.lines?.map((line: any) => line.amount), [9])
  const keyed = { 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': `form-${w.id}` }
  const first = await post(json(11), keyed)
  const again = await post(JSON.stringify(JSON.parse(json(11)), null, 2), keyed)
  t.equal(again.headers.get('replayed'), 'true', 'a form-declared JSON body is fingerprinted as JSON: a JSON-equal resend replays')
  t.same(again.body, first.body)
  t.equal((await getWindowOk(baseUrl, key, w.id)).lines_count, declared.length + 3, 'one line per accepted upload, none from the refused ones')
})

t.test('GET lines?status=matched|unmatched', async (t) => {
  const w = await freshWindow()
  const entry = await postEntryOk(baseUrl, key, pair('assets:bank', 'income:sales', 40), { effective_at: `${w.day(10)}T12:00:00Z` })
  await addLines(baseUrl, key, w.id, [{ amount: 40, date: w.day(10) }, { amount: 3, date: w.day(11) }, { amount: 4, date: w.day(12) }])
  const m = await matchOk(baseUrl, key, w.id, { statement_lines: ['l1'], entries: [entry.id], strategy: 'amount_and_date' })
  await matchOk(baseUrl, key, w.id, { statement_lines: ['l3'], strategy: 'write_off', reason: 'noise' })
  t.same((await linesOf(baseUrl, key, w.id, 'matched')).map((line) => line.id), ['l1', 'l3'], 'matched')
  t.same((await linesOf(baseUrl, key, w.id, 'unmatched')).map((line) => line.id), ['l2'], 'unmatched')
  t.same((await linesOf(baseUrl, key, w.id)).map((line) => line.id), ['l1', 'l2', 'l3'], 'all')
  const matched = await linesOf(baseUrl, key, w.id, 'matched')
  t.equal(matched[0].match, m.id, 'a matched line names its match')
  const bad = await call(baseUrl, 'GET', `/v2/reconciliations/${w.id}/lines?status=pending`, { key })
  assertError(t, bad, 400, 'request_invalid', 'unknown status')
  t.equal((await getWindowOk(baseUrl, key, w.id)).unmatched_lines_count, 1)
})

t.test('a CSV upload replayed with the same Idempotency-Key is stored once', async (t) => {
  const w = await freshWindow()
  const csv = `date,amount\n${w.day(1)},5\n${w.day(2)},6\n`
  const headers = { 'content-type': 'text/csv', 'idempotency-key': `csv-${w.id}` }
  const first = await call(baseUrl, 'POST', `/v2/reconciliations/${w.id}/lines`, { key, raw: csv, headers })
  t.equal(first.status, 201)
  const second = await call(baseUrl, 'POST', `/v2/reconciliations/${w.id}/lines`, { key, raw: csv, headers })
  t.equal(second.status, 201)
  t.equal(second.headers.get('replayed'), 'true', 'Replayed: true')
  t.same(second.body, first.body, 'the stored answer')
  assertError(t, await call(baseUrl, 'POST', `/v2/reconciliations/${w.id}/lines`, { key, raw: csv.replace(',6', ',7'), headers }), 409, 'idempotency_conflict', 'other bytes, same key')
  t.equal((await getWindowOk(baseUrl, key, w.id)).lines_count, 2, 'two lines, not four')
})

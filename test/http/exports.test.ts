/**
 * Exports (docs/API.md, Exports) against a real service: the window's pack as CSV (read back with csv-parse,
 * CSV injection guarded), PDF (its text read with pdftotext, which scripts/ensure-test-tools.sh installs)
 * and JSON; Content-Disposition; scopes and visibility; the entries export streamed over many pages equal
 * to GET /v2/entries page by page; and a large export read by a slow client arrives whole.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { parse } from 'csv-parse/sync'
import t from 'tap'
import { adminCreateKey, assertError, createAccount, listAll, postEntryOk, raiseLimits } from '../support/api.ts'
import { addLinesOk, matchOk, openWindowOk, pair, patchWindow } from '../support/recon.ts'
import { call, startTestService } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')

async function download(route: string, apiKey = key): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(baseUrl + route, { headers: { authorization: `Bearer ${apiKey}` } })
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) }
}

await createAccount(baseUrl, key, 'assets:bank')
await createAccount(baseUrl, key, 'income:sales')
await createAccount(baseUrl, key, 'assets:hidden')
await createAccount(baseUrl, key, '-expenses:fees')
const sale = await postEntryOk(baseUrl, key, pair('assets:bank', 'income:sales', 300), { effective_at: '2026-03-10T09:00:00Z', description: '=HYPERLINK("http://evil.example")' })
const refund = await postEntryOk(baseUrl, key, pair('assets:bank', 'income:sales', -40), { effective_at: '2026-03-11T09:00:00Z', description: '+refund' })
const window = await openWindowOk(baseUrl, key, { label: '=SUM(A1:A9) March', accounts: ['assets:bank'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 277, statement_ref: 'stmt-03' })
await addLinesOk(baseUrl, key, window.id, [
  { amount: 300, date: '2026-03-10', reference: '=cmd|calc', description: 'Invoice, "one"' },
  { amount: -40, date: '2026-03-11', reference: '@SUM(1)', description: '-40 refund' },
  { amount: 12, date: '2026-03-30', reference: '+fee', description: '\tfee' },
  { amount: 5, date: '2026-03-31', reference: null, description: null },
])
const saleMatch = await matchOk(baseUrl, key, window.id, { statement_lines: ['l1'], entries: [sale.id], strategy: 'amount_and_date' })
await matchOk(baseUrl, key, window.id, { statement_lines: ['l2'], entries: [refund.id], strategy: 'amount_and_date' })
const writeOff = await matchOk(baseUrl, key, window.id, { statement_lines: ['l3', 'l4'], strategy: 'write_off', reason: '@bank charges, see letter' })
const closed = await patchWindow(baseUrl, key, window.id, { state: 'closed' })
if (closed.status !== 200) throw new Error(`closing: ${closed.status} ${closed.text}`)

t.test('CSV: RFC 4180 read back with csv-parse, one row per line with its match; injection guarded, numbers stay numbers', async (t) => {
  const reply = await download(`/v2/reconciliations/${window.id}/export?format=csv`)
  t.equal(reply.status, 200)
  t.equal(reply.headers.get('content-type'), 'text/csv; charset=utf-8')
  t.equal(reply.headers.get('content-disposition'), `attachment; filename="${window.id}.csv"`)
  t.ok(reply.bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])), 'UTF-8 with a byte order mark, so spreadsheets read it as UTF-8')
  t.match(reply.bytes.toString('utf8'), /\r\n/, 'CRLF records')
  const rows = parse(reply.bytes, { bom: true, columns: true, cast: false }) as Record<string, string>[]
  t.same(Object.keys(rows[0]), ['line', 'date', 'amount', 'amount_decimal', 'currency', 'reference', 'description', 'match', 'strategy', 'match_reason', 'entries'], 'the columns')
  t.same(rows.map((row) => row.amount_decimal), ['3.00', '-0.40', '0.12', '0.05'], 'amounts in the currency\'s decimals (USD: 2), a negative one not guarded: it is a number')
  t.same(rows.map((row) => row.entries.split('\n')[0].split(' ')[0]), [sale.id, refund.id, '', ''], 'the entries matched to each line')
  t.same(rows.map((row) => [row.line, row.date, row.amount, row.reference, row.description, row.match, row.strategy, row.match_reason]), [
    ['l1', '2026-03-10', '300', "'=cmd|calc", 'Invoice, "one"', saleMatch.id, 'amount_and_date', ''],
    ['l2', '2026-03-11', '-40', "'@SUM(1)", "'-40 refund", rows[1].match, 'amount_and_date', ''],
    ['l3', '2026-03-30', '12', "'+fee", "'\tfee", writeOff.id, 'write_off', "'@bank charges, see letter"],
    ['l4', '2026-03-31', '5', '', '', writeOff.id, 'write_off', "'@bank charges, see letter"],
  ], 'every row; text starting with = + - @ or tab prefixed with \', the negative amount left a number')
})

t.test('entries CSV: descriptions and account names starting with = + - are guarded', async (t) => {
  await postEntryOk(baseUrl, key, pair('-expenses:fees', 'assets:hidden', 3), { effective_at: '2026-02-01T00:00:00Z', description: '-2+3' })
  const reply = await download('/v2/entries/export?format=csv&to=2026-04-01T00:00:00Z')
  t.equal(reply.status, 200)
  t.equal(reply.headers.get('content-disposition'), 'attachment; filename="entries.csv"')
  const rows = parse(reply.bytes, { bom: true, columns: true }) as Record<string, string>[]
  t.same(rows.map((row) => [row.description, row.account, row.amount]), [
    ["'-2+3", "'-expenses:fees", '3'], ["'-2+3", 'assets:hidden', '-3'],
    ["'=HYPERLINK(\"http://evil.example\")", 'assets:bank', '300'], ["'=HYPERLINK(\"http://evil.example\")", 'income:sales', '-300'],
    ["'+refund", 'assets:bank', '-40'], ["'+refund", 'income:sales', '40'],
  ])
})

t.test('PDF: a report whose text (pdftotext) holds the label, the figures, the seal, the lines, the write-off reason and the history', async (t) => {
  const reply = await download(`/v2/reconciliations/${window.id}/export?format=pdf`)
  t.equal(reply.status, 200)
  t.equal(reply.headers.get('content-type'), 'application/pdf')
  t.equal(reply.headers.get('content-disposition'), `attachment; filename="${window.id}.pdf"`)
  t.equal(reply.bytes.subarray(0, 5).toString('latin1'), '%PDF-')
  t.match(reply.bytes.subarray(-8).toString('latin1'), /%%EOF/)
  const file = path.join(service.dataDir, 'pack.pdf')
  fs.writeFileSync(file, reply.bytes)
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' })
  t.match(text, 'Reconciliation: =SUM(A1:A9) March', 'the label')
  t.match(text, /Accounts: assets:bank \(acc_/)
  t.match(text, 'Period: 2026-03-01 to 2026-03-31, time zone UTC')
  t.match(text, 'Claimed movement: 2.77', 'figures in the currency\'s decimals (USD: 2)')
  t.match(text, 'Derived movement: 2.60')
  t.match(text, 'Cleared by matches: 0.17')
  t.match(text, 'Residual: 0.00')
  t.match(text, 'Amounts in USD, 2 decimals.')
  t.match(text, /State: closed/)
  t.match(text, new RegExp(`Closed at: ${closed.body.closed_at.replaceAll('.', '\\.')}`))
  t.match(text, new RegExp(`Closed by: default \\(${closed.body.closed_by}\\)`), 'the closing key by name and id')
  t.match(text, `Seal (SHA-256): ${closed.body.seal.sha256}`, 'the seal')
  t.match(text, closed.body.seal.signature, 'its signature, whole')
  t.match(text, closed.body.seal.public_key, 'and the key that made it')
  t.match(text, new RegExp(`l1 +2026-03-10 +3.00 ${saleMatch.id} amount_and_date`), 'a line with its match')
  t.match(text, 'reason: @bank charges, see letter', 'the write-off reason')
  t.match(text, /closed +closed +0\.00 key_/, 'the history')
  t.match(text, /cleared=0\.17/, 'a match event says what the match cleared, in decimals')
  t.notMatch(text, /matched_amount/, 'never as "matched_amount"')
})

t.test('PDF: the balances per bank and per books at both ends and their differences, in the currency\'s decimals', async (t) => {
  // The books hold March's 300 − 40 on assets:bank before April; the statement says 1,000.00 → 1,003.00.
  const opened = await call(baseUrl, 'POST', '/v2/reconciliations', {
    key, body: { label: 'April balances', accounts: ['assets:bank'], window: { from: '2026-04-01', to: '2026-04-30' }, claimed_movement: 300, opening_balance: 100_000, closing_balance: 100_300 },
  })
  t.equal(opened.status, 201)
  t.same([opened.body.book_opening_balance, opened.body.opening_difference, opened.body.closing_difference, opened.body.previous], [260, 99_740, 100_040, window.id])
  const file = path.join(service.dataDir, 'balances.pdf')
  fs.writeFileSync(file, (await download(`/v2/reconciliations/${opened.body.id}/export?format=pdf`)).bytes)
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' })
  for (const figure of ['Opening balance per bank: 1,000.00', 'Opening balance per books: 2.60', 'Opening difference (bank - books): 997.40',
    'Closing balance per bank: 1,003.00', 'Closing balance per books: 2.60', 'Closing difference (bank - books): 1,000.40',
    `Previous window: ${window.id}, gap 0 days, opening balance not known`]) t.match(text, figure, figure)
  t.notMatch(text, /Matched:/, 'what a match clears is not labelled "Matched"')
})

t.test('JSON: the pack (window, time zone, accounts, lines with their match, matches, history) as an attachment', async (t) => {
  const reply = await download(`/v2/reconciliations/${window.id}/export`)
  t.equal(reply.status, 200, 'format defaults to json')
  t.equal(reply.headers.get('content-type'), 'application/json')
  t.equal(reply.headers.get('content-disposition'), `attachment; filename="${window.id}.json"`)
  const pack = JSON.parse(reply.bytes.toString('utf8'))
  t.same(pack.window, (await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}`, { key })).body, 'the window as GET reads it')
  t.same(pack.lines.map((line: any) => line.match), [saleMatch.id, pack.matches[1].id, writeOff.id, writeOff.id])
  t.same(pack.matches.map((match: any) => match.reason), [null, null, '@bank charges, see letter'])
  t.equal(pack.history.at(-1).type, 'closed')
  t.same([pack.time_zone, pack.accounts.length, pack.matched], ['UTC', 1, 17])
})

t.test('scopes, visibility and the query: 403 without the scope, 404 for a key that cannot see the window, 400 for an unknown format', async (t) => {
  const noRecon = await adminCreateKey(service, 'default', ['entries:read'])
  assertError(t, await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/export?format=csv`, { key: noRecon.secret }), 403, 'scope_missing', 'entries:read only')
  const restricted = await adminCreateKey(service, 'default', ['recon:read', 'entries:read'], ['income:*'])
  for (const format of ['json', 'csv', 'pdf']) {
    assertError(t, await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/export?format=${format}`, { key: restricted.secret }), 404, 'not_found', `restricted key, ${format}`)
  }
  assertError(t, await call(baseUrl, 'GET', '/v2/reconciliations/rec_nope/export', { key }), 404, 'not_found', 'unknown window')
  assertError(t, await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/export?format=xlsx`, { key }), 400, 'request_invalid', 'unknown format')
  assertError(t, await call(baseUrl, 'GET', '/v2/entries/export?account=assets:nope', { key }), 404, 'account_unknown', 'unknown account')
  assertError(t, await call(baseUrl, 'GET', '/v2/entries/export?from=yesterday', { key }), 400, 'request_invalid', 'bad timestamp')
  const onlyIncome = await download('/v2/entries/export?format=csv', restricted.secret)
  const rows = parse(onlyIncome.bytes, { bom: true, columns: true }) as Record<string, string>[]
  t.same(rows, [], 'a restricted key sees no entry with a line on an account it cannot see')
  const reply = await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/export?format=csv`, { key })
  t.ok(reply.headers.get('x-ratelimit-remaining') !== null, 'an export draws on the read budget and says so')
})

t.test('the entries export, streamed over many pages, equals GET /v2/entries page by page', async (t) => {
  await createAccount(baseUrl, key, 'assets:many')
  const entriesCount = 2_600
  for (let start = 0; start < entriesCount; start += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, i) => postEntryOk(baseUrl, key, pair('assets:many', 'income:sales', start + i + 1), {
      effective_at: new Date(Date.UTC(2026, 4, 1) + ((start + i) % 700) * 60_000).toISOString(), description: `n${start + i}`, metadata: { n: String(start + i) },
    })))
  }
  const listed = await listAll(baseUrl, key, '/v2/entries?account=assets:many', 1000)
  t.equal(listed.pages, 3, 'three pages of the list')
  const expected = listed.items.flatMap((entry: any) => entry.lines.map((line: any) => [entry.id, entry.effective_at, entry.posted_at, entry.description, line.account, line.account_id, String(line.amount), line.currency ?? '', JSON.stringify(entry.metadata)]))
  const reply = await download('/v2/entries/export?format=csv&account=assets:many')
  const rows = parse(reply.bytes, { bom: true, from_line: 2 }) as string[][]
  t.equal(rows.length, entriesCount * 2, 'one row per entry line')
  t.same(rows, expected, 'the same entries, lines and order as the list')
  const window2 = await download(`/v2/entries/export?account=assets:many&from=${encodeURIComponent(listed.items[100].effective_at)}&to=${encodeURIComponent(listed.items[2000].effective_at)}`)
  const bounded = await listAll(baseUrl, key, `/v2/entries?account=assets:many&from=${encodeURIComponent(listed.items[100].effective_at)}&to=${encodeURIComponent(listed.items[2000].effective_at)}`, 1000)
  t.same((parse(window2.bytes, { bom: true, from_line: 2 }) as string[][]).map((row) => row[0]), bounded.items.flatMap((entry: any) => [entry.id, entry.id]), 'from and to as the list reads them')
})

/**
 * Reads a response slowly: not at all for a while, then paused between chunks, so the socket's buffers
 * fill and the server must wait for onWritable (a JSON pack of 50,000 lines met it twice in a trial run).
 */
function slowDownload(route: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const request = http.get(baseUrl + route, { headers: { authorization: `Bearer ${key}` } }, (response) => {
      const chunks: Buffer[] = []
      response.pause()
      setTimeout(() => response.resume(), 300)
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk)
        response.pause()
        setTimeout(() => response.resume(), 2)
      })
      response.on('end', () => resolve(Buffer.concat(chunks)))
      response.on('error', reject)
    })
    request.on('error', reject)
  })
}

t.test('a large window exported to a slow reader arrives whole, in every format', async (t) => {
  await createAccount(baseUrl, key, 'assets:big')
  const big = await openWindowOk(baseUrl, key, { label: 'big', accounts: ['assets:big'], from: '2026-05-01', to: '2026-05-31', claimed_movement: 0 })
  const linesCount = 20_000
  for (let start = 0; start < linesCount; start += 10_000) {
    await addLinesOk(baseUrl, key, big.id, Array.from({ length: 10_000 }, (_, i) => ({ amount: (start + i) % 2 === 0 ? 1 : -1, date: '2026-05-15', reference: `ref-${start + i}`, description: `line ${start + i} ${'x'.repeat(40)}` })))
  }
  const csv = parse(await slowDownload(`/v2/reconciliations/${big.id}/export?format=csv`), { bom: true, columns: true }) as Record<string, string>[]
  t.equal(csv.length, linesCount, 'every line in the CSV')
  t.same([csv[0].line, csv.at(-1)!.line], ['l1', `l${linesCount}`])
  const pack = JSON.parse((await slowDownload(`/v2/reconciliations/${big.id}/export?format=json`)).toString('utf8'))
  t.equal(pack.lines.length, linesCount, 'every line in the JSON')
  const pdf = await slowDownload(`/v2/reconciliations/${big.id}/export?format=pdf`)
  const file = path.join(service.dataDir, 'big.pdf')
  fs.writeFileSync(file, pdf)
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  t.match(text, new RegExp(`l${linesCount} +2026-05-15 +-0\\.01 `), 'the last line is in the PDF')
  for (const format of ['json', 'csv', 'pdf']) {
    const aborted = await abortAfterFirstChunk(`/v2/reconciliations/${big.id}/export?format=${format}`)
    t.ok(aborted > 0, `${format}: a client gone after the first chunk (${aborted} bytes)`)
  }
  const health = await call(baseUrl, 'GET', '/healthz')
  t.equal(health.status, 200, 'the service goes on serving after clients went away mid-export')
  const again = parse(await slowDownload(`/v2/reconciliations/${big.id}/export?format=csv`), { bom: true, columns: true }) as unknown[]
  t.equal(again.length, linesCount, 'and exports whole again')
})

/** Reads the first chunk of an export, then destroys the connection. */
function abortAfterFirstChunk(route: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(baseUrl + route, { headers: { authorization: `Bearer ${key}` } }, (response) => {
      response.once('data', (chunk: Buffer) => {
        request.destroy()
        resolve(chunk.length)
      })
    })
    request.on('error', (error: NodeJS.ErrnoException) => { if (error.code !== 'ECONNRESET') reject(error) })
  })
}

/**
 * @module Test support for the console's browser test: the audit pack downloaded through the page's three
 * buttons (playwright download events), each checked in the form people use it: the JSON's seal recomputed
 * independently (seal-recompute.ts) and by the auditor's script (scripts/verify-seal.mjs), the CSV read
 * back by csv-parse as a spreadsheet would, the PDF's text by pdftotext.
 */

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { parse } from 'csv-parse/sync'
import type { Page } from 'playwright-core'
import type { Test } from 'tap'
import { outputDir } from './console-page.ts'
import { repositoryRoot } from './process.ts'
import { recomputeSeal } from './seal-recompute.ts'
import { call, type TestService } from './service.ts'

/** Clicks Download <format> and saves what the browser downloaded under the test's output dir. */
async function downloadThroughPage(page: Page, format: 'JSON' | 'CSV' | 'PDF', t: Test): Promise<string> {
  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: `Download ${format}` }).click()
  const file = path.join(outputDir, (await download).suggestedFilename())
  await (await download).saveAs(file)
  t.match(path.basename(file), new RegExp(`^rec_[a-z0-9]+\\.${format.toLowerCase()}$`), `the ${format} downloads as <id>.${format.toLowerCase()}`)
  return file
}

/** The closed window `stored` (as GET answers it): its three exports, as a user downloads them. */
export async function checkExports(page: Page, test: TestService, stored: any, t: Test): Promise<void> {
  const matches = (await call(test.baseUrl, 'GET', `/v2/reconciliations/${stored.id}/matches`, { key: test.apiKey })).body.data
  const matchOf = (line: string) => matches.find((match: { statement_lines: string[] }) => match.statement_lines.includes(line))

  const pack = JSON.parse(fs.readFileSync(await downloadThroughPage(page, 'JSON', t), 'utf8'))
  t.same(pack.window.seal, stored.seal, 'the JSON carries the window\'s seal')
  t.equal(recomputeSeal(pack), stored.seal.sha256, 'the seal recomputed from the downloaded JSON (docs/API.md\'s recipe, own JCS and SHA-256)')
  const verified = execFileSync(process.execPath, [path.join(repositoryRoot, 'scripts', 'verify-seal.mjs'), path.join(outputDir, `${stored.id}.json`)], { encoding: 'utf8' })
  t.match(verified, 'MATCH: the export is the content that was sealed', 'scripts/verify-seal.mjs agrees')

  const csv = fs.readFileSync(await downloadThroughPage(page, 'CSV', t))
  const rows = parse(csv, { bom: true, columns: true }) as Record<string, string>[]
  t.same(Object.keys(rows[0]), ['line', 'date', 'amount', 'amount_decimal', 'currency', 'reference', 'description', 'match', 'strategy', 'match_reason', 'entries'], 'the CSV\'s columns')
  t.same(rows.map((row) => row.amount_decimal), ['1250.00', '480.00', '-312.40', '200.00', '-7.50'], 'amounts in EUR\'s decimals too')
  const strategy = ['amount_and_date', 'amount_and_date', 'amount_and_date', 'amount_and_date', 'write_off']
  const columns = ['line', 'date', 'amount', 'currency', 'reference', 'description', 'match', 'strategy', 'match_reason']
  t.same(rows.map((row) => columns.map((column) => row[column])), [
    ['l1', '2026-10-05', '125000', 'EUR', 'INV-1041', 'Invoice INV-1041'],
    ['l2', '2026-10-13', '48000', 'EUR', 'INV-1042', 'Invoice INV-1042'],
    ['l3', '2026-10-20', '-31240', 'EUR', 'PO-77', 'Office supplies PO-77'],
    ['l4', '2026-10-28', '20000', 'EUR', 'DEP-9', 'Cash deposit branch 0401'],
    ['l5', '2026-10-31', '-750', 'EUR', 'FEE-2026-10', 'Account fee October'],
  ].map((row, index) => [...row, matchOf(row[0]).id, strategy[index], index === 4 ? 'Bank account fee October, not booked' : '']), 'one row per statement line with its match, amounts in minor units')

  const pdf = await downloadThroughPage(page, 'PDF', t)
  const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' })
  fs.writeFileSync(path.join(outputDir, `${stored.id}.pdf.txt`), text)
  t.match(text, 'Reconciliation: Girokonto October 2026', 'the PDF names the window')
  t.match(text, 'Period: 2026-10-01 to 2026-10-31, time zone UTC', 'its period')
  for (const figure of ['Claimed movement: 1,610.10', 'Derived movement: 1,610.10', 'Cleared by matches: 0.00', 'Residual: 0.00', 'State: closed', 'Amounts in EUR, 2 decimals.',
    'Opening balance per bank: 10,000.00', 'Opening balance per books: 10,000.00', 'Opening difference (bank - books): 0.00',
    'Closing balance per bank: 11,610.10', 'Closing balance per books: 11,610.10', 'Closing difference (bank - books): 0.00']) t.match(text, figure, `the figure ${figure}`)
  t.match(text, `Seal (SHA-256): ${stored.seal.sha256}`, 'the seal')
  t.match(text, new RegExp(`l4 +2026-10-28 +200.00 ${matchOf('l4').id} amount_and_date`), 'a line with its match')
  t.match(text, 'reason: Bank account fee October, not booked', 'the write-off reason')
}

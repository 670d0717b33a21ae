/**
 * The console in a real browser against the real routes (issue 17; docs/API.md, Console): Debian's headless
 * chromium driven by playwright-core against a service on a fresh data dir, nothing stood in. Sign in with
 * the printed key, upload a camt.053 file, see the window and its residual, accept the proposals in one
 * batch, watch a posting made over the API move the residual live (/v2/stream, no reload), a what-if,
 * write off the fee with a reason, close, download the three exports and check them (the JSON's seal
 * recomputed independently, the CSV's rows and columns, the PDF's text by pdftotext); then the timezone,
 * the balance chart, and a next window opened over the API: its balances per bank and per books and how it
 * follows October (the window page shows both at every step). Screenshots go to .tap/console/; the balanced window is copied to
 * docs/console.png, which README shows, only when UPDATE_CONSOLE_SCREENSHOT=1 asks (npm test leaves the
 * tracked file alone).
 *
 * The statement (test/fixtures/statements/camt053/v02-eur-console-october.xml), in EUR: opening 10,000.00,
 * l1 +1,250.00, l2 +480.00, l3 −312.40, l4 +200.00 (a cash deposit), l5 −7.50 (the account fee), closing
 * 11,610.10: claimed 1,610.10. The ledger holds the opening 10,000.00 and the first three (derived 1,417.60):
 * residual 192.50.
 */

import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import type { Locator, Page } from 'playwright-core'
import { launchChromium } from '../support/browser.ts'
import { outputDir, residualOf, seed, stateOf, statementFixture, waitForText, waitMs } from '../support/console-page.ts'
import { repositoryRoot } from '../support/process.ts'
import { call, startTestService, type TestService } from '../support/service.ts'
import { checkExports } from '../support/console-exports.ts'

type Post = Awaited<ReturnType<typeof seed>>['post']

async function signIn(page: Page, test: TestService, t: Test) {
  await page.goto(`${test.baseUrl}/console`)
  // Keyboard only: the field has a label, Enter submits.
  await page.getByLabel('API key').fill('tu_not_a_key')
  await page.keyboard.press('Enter')
  const refused = await waitForText(page.getByRole('alert'), '')
  const expected = (await call(test.baseUrl, 'GET', '/v2/reconciliations?limit=1', { key: 'tu_not_a_key' })).body.error.message
  t.equal(refused.trim(), expected, 'a wrong key shows the API\'s own message')
  await page.getByLabel('API key').fill(test.apiKey)
  await page.keyboard.press('Enter')
  await page.getByRole('heading', { name: 'Reconciliation windows' }).waitFor({ timeout: waitMs })
  t.equal(await page.evaluate(() => sessionStorage.getItem('trueup.apiKey')), test.apiKey, 'the key is in sessionStorage')
  t.equal(await page.evaluate(() => localStorage.length + document.cookie.length), 0, 'and nowhere else')
}

/** POST /v2/statements through the form: the file opens the window, which the list then shows. */
async function uploadStatement(page: Page, t: Test) {
  await page.getByLabel('Statement file (camt.053, MT940, BAI2)').setInputFiles(statementFixture)
  await page.getByLabel('Label (optional)').fill('Girokonto October 2026')
  await page.getByRole('button', { name: 'Upload and open windows' }).click()
  await waitForText(page.getByRole('status'), '1 statement(s) read: opened Girokonto October 2026.')
  const row = page.getByRole('row', { name: /Girokonto October 2026/ })
  t.match(await waitForText(row, '€192.50'), /assets:bank.*open.*€192\.50.*5 of 5/, 'the list shows the new window with its residual (claimed 1,610.10 − derived 1,417.60)')
  await page.getByRole('combobox', { name: /^State/ }).selectOption('closed')
  await waitForText(page.locator('main'), 'No window matches these filters.')
  await page.getByRole('combobox', { name: /^State/ }).selectOption('open')
  await row.waitFor({ timeout: waitMs })
  await page.getByRole('link', { name: 'Girokonto October 2026' }).click()
  await page.getByRole('heading', { name: 'Girokonto October 2026' }).waitFor({ timeout: waitMs })
}

/** README's picture of the console, tracked: rewritten only on request, so that a test run leaves the work tree as it found it. */
const trackedScreenshot = path.join(repositoryRoot, 'docs', 'console.png')
const updateScreenshot = process.env.UPDATE_CONSOLE_SCREENSHOT === '1'
const trackedMtimeMs = fs.statSync(trackedScreenshot).mtimeMs

async function screenshot(page: Page, name: string): Promise<string> {
  const file = path.join(outputDir, `${name}.png`)
  await page.screenshot({ path: file, fullPage: true })
  return file
}

t.test('the console on the real routes: sign in, upload, proposals, live residual, what-if, write-off, close, exports', async (t) => {
  // This run's screenshots and downloads only (download names carry the window id, which differs per run).
  fs.rmSync(outputDir, { recursive: true, force: true })
  fs.mkdirSync(outputDir, { recursive: true })
  const launched = await launchChromium()
  t.teardown(() => launched.close())
  const test = await startTestService()
  t.teardown(() => test.destroy())
  const context = await launched.browser.newContext({ locale: 'en-US', viewport: { width: 1400, height: 1000 }, acceptDownloads: true })
  const page = await context.newPage()
  const pageErrors: string[] = []
  page.on('pageerror', (error) => pageErrors.push(error.message))
  try {
    await scenario(page, test, t)
  } catch (error) {
    t.comment(`failed: the page as it was is ${await screenshot(page, 'failure')}; page errors: ${pageErrors.join(' / ') || 'none'}`)
    throw error
  }
  t.same(pageErrors, [], 'no uncaught error in the page')
  if (updateScreenshot) t.comment(`screenshots and downloads in ${outputDir}; the window page copied to docs/console.png`)
  else {
    t.equal(fs.statSync(trackedScreenshot).mtimeMs, trackedMtimeMs, 'docs/console.png is left alone (UPDATE_CONSOLE_SCREENSHOT=1 rewrites it)')
    t.comment(`screenshots and downloads in ${outputDir}`)
  }
})

/**
 * Write off the fee with a reason and post the adjusting entry the books lack (docs/API.md, Adjustments), by
 * keyboard: Space ticks the focused checkbox, Enter submits. The entry brings derived to the statement's
 * 1,610.10, so nothing is left to clear.
 */
async function writeOffWithAdjustment(page: Page, test: TestService, windowId: string, t: Test) {
  await page.getByRole('checkbox', { name: /^Select line l5,/ }).focus()
  await page.keyboard.press('Space')
  await page.getByLabel('Write-off reason').fill('Bank account fee October, not booked')
  await page.getByLabel('Post an adjusting entry to account').fill('expenses:bank-fees')
  await page.keyboard.press('Enter')
  await waitForText(residualOf(page), '€0.00')
  await waitForText(stateOf(page), 'balanced')
  const matches = page.getByRole('table', { name: 'Matches' })
  await waitForText(matches, 'Bank account fee October, not booked')
  const stored = (await call(test.baseUrl, 'GET', `/v2/reconciliations/${windowId}/matches`, { key: test.apiKey })).body.data
  const writeOff = stored.find((match: { strategy: string }) => match.strategy === 'write_off')
  t.match(writeOff, { statement_lines: ['l5'], matched_amount: 0, adjustment_entry: /^ent_/ }, 'the write-off carries its adjusting entry')
  t.same(writeOff.entries, [writeOff.adjustment_entry], 'and is matched to it')
  t.match(await page.getByRole('status').filter({ hasText: 'Wrote off' }).textContent(), `posted the adjusting entry ${writeOff.adjustment_entry} to expenses:bank-fees`, 'the page says what was posted')
  t.match((await matches.getByRole('row', { name: new RegExp(writeOff.id) }).textContent())?.replace(/\s+/g, ' '), new RegExp(`\\(adjusting entry ent_…\\w+${writeOff.adjustment_entry}Copy\\)`), 'the match shows its adjusting entry')
  const adjusting = entryRow(page.getByRole('table', { name: 'Entries of the period' }), writeOff.adjustment_entry)
  t.match(await adjusting.textContent(), /Bank account fee October, not booked.*\(€7\.50\).*mat_/, 'the adjusting entry is among the period\'s entries, matched')
  const entry = (await call(test.baseUrl, 'GET', `/v2/entries/${writeOff.adjustment_entry}`, { key: test.apiKey })).body
  t.same(entry.lines.map((line: { account: string; amount: number }) => [line.account, line.amount]), [['assets:bank', -750], ['expenses:bank-fees', 750]], 'the fee booked against expenses:bank-fees')
  t.same(await page.locator('.figure').allTextContents(), ['Claimed (statement)€1,610.10', 'Derived (ledger)€1,610.10', 'Cleared by matches€0.00', 'Residual€0.00', 'Statebalanced'], 'derived now agrees with the statement')
  t.equal(await page.getByRole('table', { name: 'Statement lines' }).getByText('unmatched').count(), 0, 'every line is matched or written off')
}

/** The row of the entries table whose heading is the entry's id (a reversal's row names its original too). */
const entryRow = (table: Locator, id: string) => table.getByRole('row').filter({ has: table.page().getByRole('rowheader', { name: new RegExp(`^${id}`) }) })

/** Close with "Lock the period" ticked: the page says the period is locked, and a back-dated posting over the API is refused. */
async function lockedClose(page: Page, test: TestService, windowId: string, t: Test) {
  t.equal(await page.locator('.period-lock').count(), 0, 'no lock before the close')
  await page.getByLabel('Lock the period').check()
  await page.getByRole('button', { name: 'Close window' }).click()
  await waitForText(stateOf(page), 'closed')
  t.match(await waitForText(page.locator('.period-lock'), 'Period locked'), 'Period locked: the close locked Oct 1, 2026 – Oct 31, 2026 on assets:bank', 'the page says the period is locked')
  const history = await waitForText(page.getByRole('heading', { name: 'History' }).locator('xpath=..'), 'closed')
  for (const step of ['opened', 'lines added', 'matched', 'entry posted', 'balanced', 'closed']) t.match(history, step, `the history shows ${step}`)
  t.match(history, 'Bank account fee October, not booked', 'with the write-off reason')
  t.match(history, 'lock period: true', 'and the close\'s lock')
  const stored = (await call(test.baseUrl, 'GET', `/v2/reconciliations/${windowId}`, { key: test.apiKey })).body
  t.equal(stored.state, 'closed', 'the close went through the API')
  const closeEvent = (await call(test.baseUrl, 'GET', `/v2/reconciliations/${windowId}/history`, { key: test.apiKey })).body.data.find((event: { type: string }) => event.type === 'closed')
  t.equal(closeEvent.lock_period, true, 'a locked close')
  t.match(await page.locator('.meta').first().textContent(), `seal ${stored.seal.sha256}`, 'the page shows the seal')
  const backDated = await call(test.baseUrl, 'POST', '/v2/entries', { key: test.apiKey, body: { lines: [{ account: 'assets:bank', amount: 1_000 }, { account: 'income:sales', amount: -1_000 }], effective_at: '2026-10-15T10:00:00Z', description: 'Late booking' } })
  t.equal(backDated.status, 409, 'a back-dated posting into the locked period is refused')
  t.equal(backDated.body.error.code, 'period_locked')
  await screenshot(page, 'window-closed')
  return stored
}

/** The reversal's confirmation, on the original's date: the locked period refuses it, and nothing is posted. */
async function reversalRefusedInLockedPeriod(page: Page, test: TestService, entryId: string, t: Test) {
  await page.getByRole('button', { name: `Reverse entry ${entryId}` }).click()
  const confirm = page.getByRole('button', { name: 'Confirm reversal' })
  t.equal(await confirm.evaluate((button) => button === document.activeElement), true, 'the confirmation takes the focus')
  await page.getByLabel('Reversal effective').selectOption('original')
  await confirm.click()
  t.match(await waitForText(page.getByRole('alert'), 'locked'), 'is closed and locked', 'the API\'s refusal is shown')
  const original = (await call(test.baseUrl, 'GET', `/v2/entries/${entryId}`, { key: test.apiKey })).body
  t.equal(original.reversed_by, undefined, 'and nothing was reversed')
  await page.getByRole('button', { name: 'Cancel' }).click()
  t.equal(await confirm.count(), 0, 'Cancel closes the confirmation')
}

async function scenario(page: Page, test: TestService, t: Test) {
  const { entries, post } = await seed(test)
  await signIn(page, test, t)
  await uploadStatement(page, t)
  const windowId = decodeURIComponent(new URL(page.url()).hash.split('/')[2])
  const figures = await page.locator('.figure').allTextContents()
  t.same(figures, ['Claimed (statement)€1,610.10', 'Derived (ledger)€1,417.60', 'Cleared by matches€0.00', 'Residual€192.50', 'Stateopen'], 'claimed, derived, cleared by matches, residual, state')
  t.same(await balanceRows(page), [
    ['Opening (Oct 1, 2026)', '€10,000.00', '€10,000.00', '€0.00 agrees'],
    ['Closing (Oct 31, 2026)', '€11,610.10', '€11,417.60', 'Differs by €192.50'],
  ], 'the balances per bank (the statement\'s) and per books at both ends, the closing difference flagged')
  t.match(await page.locator('.continuity').textContent(), 'No earlier window of these accounts.')
  t.match(await page.getByRole('table', { name: 'Statement lines' }).textContent(), /l1.*INV-1041.*Acme Handels AG.*€1,250\.00.*unmatched/, 'the statement\'s lines with reference and counterparty')
  await waitForText(page.locator('.live [role=status]'), 'Live')

  await acceptProposals(page, entries.map((entry: { id: string }) => entry.id), test, windowId, t)
  const deposit = await liveDeposit(page, post, t)
  await whatIfThenAccept(page, deposit.id, t)

  await writeOffWithAdjustment(page, test, windowId, t)
  const balanced = await screenshot(page, 'window-balanced')
  if (updateScreenshot) fs.copyFileSync(balanced, trackedScreenshot)
  const stored = await lockedClose(page, test, windowId, t)
  await reversalRefusedInLockedPeriod(page, test, entries[0].id, t)
  await checkExports(page, test, stored, t)
  await checkTimezone(page, test, stored.opened_at, t)
  await checkBalanceChart(page, test, t)
  await checkNextWindow(page, test, post, windowId, t)
}

/** The balances table's rows, cell by cell: row heading, per bank, per books, difference. */
async function balanceRows(page: Page): Promise<string[][]> {
  const rows = page.getByRole('table', { name: 'Balances' }).locator('tbody tr')
  return (await rows.evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => (cell.textContent ?? '').replace(/\s+/g, ' ').trim()))))
}

/**
 * A window opened over the API with the statement's balances, two days after October's ends: its opening
 * (the bank's 11,610.10, October's closing) against the books' (11,610.10: the fee's adjusting entry brought
 * them level), the gap, and October linked as its previous window. Then a mistaken posting into November is
 * reversed through the page, on its own date, so the period's books are as before.
 */
async function checkNextWindow(page: Page, test: TestService, post: Post, octoberId: string, t: Test) {
  const body = { label: 'Girokonto November 2026', accounts: ['assets:bank'], window: { from: '2026-11-03', to: '2026-11-10' }, claimed_movement: 10_000, opening_balance: 1_161_010, closing_balance: 1_171_010 }
  const opened = await call(test.baseUrl, 'POST', '/v2/reconciliations', { key: test.apiKey, body })
  t.equal(opened.status, 201, 'a window opened over the API with opening and closing balances')
  await page.goto(`${test.baseUrl}/console#/windows/${opened.body.id}`)
  await page.getByRole('heading', { name: 'Girokonto November 2026' }).waitFor({ timeout: waitMs })
  await page.getByRole('table', { name: 'Balances' }).waitFor({ timeout: waitMs })
  const balances = [
    ['Opening (Nov 3, 2026)', '€11,610.10', '€11,610.10', '€0.00 agrees'],
    ['Closing (Nov 10, 2026)', '€11,710.10', '€11,610.10', 'Differs by €100.00'],
  ]
  t.same(await balanceRows(page), balances, 'both columns at both ends, the difference (bank − books) flagged')
  t.match((await page.locator('.continuity').textContent())?.replace(/\s+/g, ' '), new RegExp(`Previous window: rec_…\\w+${octoberId}Copy · gap: 2 days not covered · opening follows the previous closing: yes`), 'the continuity, the id shortened')
  await reverseMistake(page, test, post, t)
  t.same(await balanceRows(page), balances, 'the posting and its reversal leave the books as they were')
  await screenshot(page, 'window-next')
  await page.getByRole('link', { name: octoberId }).click()
  await page.getByRole('heading', { name: 'Girokonto November 2026' }).waitFor({ state: 'detached', timeout: waitMs })
  await page.getByRole('heading', { name: 'Girokonto October 2026' }).waitFor({ timeout: waitMs })
}

/** A deposit booked twice by mistake, posted over the API, reversed through the page with a confirmation, effective on its own date. */
async function reverseMistake(page: Page, test: TestService, post: Post, t: Test) {
  const mistake = await post(5_000, '2026-11-05', 'Cash deposit booked twice')
  const entriesTable = page.getByRole('table', { name: 'Entries of the period' })
  await waitForText(entriesTable, mistake.id)
  await page.getByRole('button', { name: `Reverse entry ${mistake.id}` }).focus()
  await page.keyboard.press('Enter')
  await page.getByLabel('Reversal effective').selectOption('original')
  await page.getByLabel('Reversal description (optional)').fill('Deposit booked twice, undone')
  await page.getByRole('button', { name: 'Confirm reversal' }).click()
  const status = await waitForText(page.getByRole('status').filter({ hasText: 'Reversed' }), 'Reversed')
  const original = (await call(test.baseUrl, 'GET', `/v2/entries/${mistake.id}`, { key: test.apiKey })).body
  t.match(original.reversed_by, /^ent_/, 'the API shows the original reversed')
  const reversal = (await call(test.baseUrl, 'GET', `/v2/entries/${original.reversed_by}`, { key: test.apiKey })).body
  t.match(reversal, { reverses: mistake.id, effective_at: '2026-11-05T10:00:00.000Z', description: 'Deposit booked twice, undone' }, 'a reversal on the original\'s date with the description given')
  t.match(status, `Reversed ${mistake.id} by ${reversal.id}`, 'the page says what was posted')
  t.match(await waitForText(entryRow(entriesTable, mistake.id), 'Reversed by'), new RegExp(`Reversed by ent_…\\w+${reversal.id}`), 'the original shows its reversal')
  t.equal(await page.getByRole('button', { name: `Reverse entry ${mistake.id}` }).count(), 0, 'and can no longer be reversed')
  const reversalRow = entryRow(entriesTable, reversal.id)
  t.match(await reversalRow.textContent(), new RegExp(`Deposit booked twice, undone.*\\(€50\\.00\\).*Reverses ent_…\\w+${mistake.id}`), 'the reversal shows what it reverses')
}

/** The three 1:1 proposals the server makes, accepted in one POST …/matches/batch. */
async function acceptProposals(page: Page, entryIds: string[], test: TestService, windowId: string, t: Test) {
  const proposals = page.getByRole('heading', { name: 'Proposals' }).locator('xpath=..')
  t.match((await waitForText(proposals, 'Accept all 3 proposals')).replace(/\s+/g, ' '), new RegExp(`Statement lines ?l1.*Entries.*${entryIds[0]}`), 'the proposals are shown')
  const batch = page.waitForRequest((request) => request.url().endsWith(`/v2/reconciliations/${windowId}/matches/batch`))
  await page.getByRole('button', { name: 'Accept all 3 proposals' }).click()
  t.same((await batch).postDataJSON().matches.map((match: { statement_lines: string[]; entries: string[] }) => [match.statement_lines, match.entries]),
    [[['l1'], [entryIds[0]]], [['l2'], [entryIds[1]]], [['l3'], [entryIds[2]]]], 'one batch of the three proposals as given')
  await waitForText(page.getByRole('status').filter({ hasText: 'Accepted' }), 'Accepted 3 proposals.')
  await waitForText(proposals, 'No proposal: nothing unmatched nets to zero.')
  t.equal((await residualOf(page).textContent())?.trim(), '€192.50', 'exact matches leave the residual')
  const matches = (await call(test.baseUrl, 'GET', `/v2/reconciliations/${windowId}/matches`, { key: test.apiKey })).body.data
  t.equal(matches.length, 3, 'three matches stored')
}

/** The deposit posted over the API, not through the page: the residual follows live, without a reload. */
async function liveDeposit(page: Page, post: Post, t: Test) {
  await page.evaluate(() => { (window as unknown as { notReloaded: boolean }).notReloaded = true })
  const deposit = await post(20_000, '2026-10-28', 'Cash deposit branch 0401')
  // 192.50 − 200.00: the deposit is in the ledger; the fee (−7.50) is what the ledger still lacks.
  await waitForText(residualOf(page), '(€7.50)')
  t.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'the residual moved without a reload')
  t.equal((await page.locator('.figure').allTextContents())[1], 'Derived (ledger)€1,617.60', 'derived includes the deposit')
  return deposit
}

/** A what-if of matching the deposit's line with its entry (a dry run: nothing stored), then its proposal accepted. */
async function whatIfThenAccept(page: Page, depositId: string, t: Test) {
  await page.getByRole('checkbox', { name: /^Select line l4,/ }).check()
  await page.getByRole('checkbox', { name: new RegExp(`^Select entry ${depositId},`) }).check()
  await page.getByRole('button', { name: 'What if?' }).click()
  t.match(await waitForText(page.locator('.what-if'), 'residual would be'), 'What-if: residual would be (€7.50), state open.', 'the what-if answer is shown')
  t.equal(await page.getByRole('table', { name: 'Matches' }).getByRole('row').count(), 4, 'and nothing was stored (a header and three matches)')
  // The live update brought a new proposal: the deposit's line and entry.
  await page.getByRole('button', { name: 'Accept proposal: lines l4' }).click()
  await waitForText(page.getByRole('status').filter({ hasText: 'Accepted' }), 'Accepted the proposal as')
  // The answer's status comes first; the what-if goes when the window's figures it was computed on change,
  // with the window's refresh a moment later (CI once counted it in between).
  await page.locator('.what-if').waitFor({ state: 'detached', timeout: 10_000 }).catch(() => undefined)
  t.equal(await page.locator('.what-if').count(), 0, 'the what-if of a selection now matched is no longer shown')
}

/**
 * Times are shown in the workspace's time zone as GET /v2/workspace gives it (nothing to type): UTC first;
 * once an admin moves the workspace to Asia/Tokyo, the next page the console shows reads it again.
 */
async function checkTimezone(page: Page, test: TestService, openedAt: string, t: Test) {
  const opened = page.getByRole('heading', { name: 'History' }).locator('xpath=..').locator('time').first()
  t.match(await opened.textContent(), /UTC$/)
  t.match(await page.locator('header.top').textContent(), /default · UTC/, 'the header names the workspace and its zone')
  t.equal(await page.getByLabel('Workspace timezone').count(), 0, 'no zone to type')
  const moved = await call(test.baseUrl, 'PATCH', '/admin/workspaces/default', { key: test.adminToken, body: { timezone: 'Asia/Tokyo' } })
  t.equal(moved.status, 200, 'the admin moves the workspace to Asia/Tokyo')
  await page.getByRole('link', { name: '← All windows' }).click()
  await page.getByRole('heading', { name: 'Reconciliation windows' }).waitFor({ timeout: waitMs })
  await page.goBack()
  await waitForText(opened, 'GMT+9')
  t.match(await page.locator('header.top').textContent(), /default · Asia\/Tokyo/, 'the header follows')
  t.equal(await opened.getAttribute('datetime'), openedAt, 'the machine-readable time stays UTC')
  t.equal(await page.evaluate(() => sessionStorage.getItem('trueup.timezone')), null, 'no zone kept in the tab')
  await call(test.baseUrl, 'PATCH', '/admin/workspaces/default', { key: test.adminToken, body: { timezone: 'UTC' } })
}

async function checkBalanceChart(page: Page, test: TestService, t: Test) {
  await page.getByRole('link', { name: 'Accounts' }).click()
  await page.getByRole('link', { name: 'assets:bank' }).click()
  await page.getByRole('heading', { name: 'Balance of assets:bank over time' }).waitFor({ timeout: waitMs })
  await page.locator('.chart canvas').waitFor({ timeout: waitMs })
  await page.getByText('Balances as a table').click()
  const rows = page.getByRole('group').getByRole('row')
  t.equal(await rows.count(), 32, 'a header and 31 balances')
  const balance = (await call(test.baseUrl, 'GET', '/v2/accounts/assets:bank/balance', { key: test.apiKey })).body
  t.equal(balance.balance, 1_000_000 + 125_000 + 48_000 - 31_240 + 20_000 - 750, 'the ledger: the opening balance, the three postings, the deposit and the fee\'s adjusting entry')
  t.match(await rows.last().textContent(), '€11,610.10', 'the last point is the balance now')
  await screenshot(page, 'accounts-balance')
}

/**
 * The console in a real browser (issue 17, CONTRACT.md 15): Debian's headless chromium driven by
 * playwright-core against a service on a fresh data dir. Sign in with the printed key, see the window
 * and its residual, match and write off through the UI, watch a posting made over the API move the
 * residual, close, read the history and the balance chart. Screenshots go to .tap/console/; the window
 * page is copied to docs/console.png, which README shows.
 */

import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import type { Page } from 'playwright-core'
import { launchChromium } from '../support/browser.ts'
import { day, outputDir, residualOf, seed, stateOf, waitForText, waitMs } from '../support/console-page.ts'
import { repositoryRoot } from '../support/process.ts'
import { call, startTestService, type TestService } from '../support/service.ts'

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

async function checkWindowList(page: Page, t: Test) {
  const row = page.getByRole('row', { name: /Bank November/ })
  t.match(await waitForText(row, '$1.65'), /assets:bank.*open.*\$1\.65.*5 of 5/, 'the list shows the window with its residual (claimed 111.65 − derived 110.00)')
  await page.getByRole('combobox', { name: /^State/ }).selectOption('closed')
  await waitForText(page.locator('main'), 'No window matches these filters.')
  await page.getByRole('combobox', { name: /^State/ }).selectOption('open')
  await row.waitFor({ timeout: waitMs })
  await page.getByRole('link', { name: 'Bank November' }).click()
  await page.getByRole('heading', { name: 'Bank November' }).waitFor({ timeout: waitMs })
}

async function matchThroughTheUi(page: Page, lines: string[], entries: string[]) {
  for (const line of lines) await page.getByRole('checkbox', { name: new RegExp(`^Select line ${line},`) }).check()
  for (const entry of entries) await page.getByRole('checkbox', { name: new RegExp(`^Select entry ${entry},`) }).check()
  await page.getByRole('button', { name: 'Match selected' }).click()
  await waitForText(page.getByRole('status').filter({ hasText: 'Matched' }), `Matched ${lines.length} line(s)`)
}

async function screenshot(page: Page, name: string): Promise<string> {
  const file = path.join(outputDir, `${name}.png`)
  await page.screenshot({ path: file, fullPage: true })
  return file
}

t.test('the console: sign in, windows, match, write off, live residual, close, history, balance chart', async (t) => {
  fs.mkdirSync(outputDir, { recursive: true })
  const launched = await launchChromium()
  t.teardown(() => launched.close())
  const test = await startTestService()
  t.teardown(() => test.destroy())
  const openapi = (await call(test.baseUrl, 'GET', '/v2/openapi.json')).body
  const context = await launched.browser.newContext({ locale: 'en-US', viewport: { width: 1400, height: 1000 } })
  const page = await context.newPage()
  const pageErrors: string[] = []
  page.on('pageerror', (error) => pageErrors.push(error.message))
  try {
    await scenario(page, test, openapi, t)
  } catch (error) {
    t.comment(`failed: the page as it was is ${await screenshot(page, 'failure')}; page errors: ${pageErrors.join(' / ') || 'none'}`)
    throw error
  }
  t.same(pageErrors, [], 'no uncaught error in the page')
  t.comment(`screenshots in ${outputDir}; the window page copied to docs/console.png`)
})

async function scenario(page: Page, test: TestService, openapi: { paths: Record<string, Record<string, unknown>> }, t: Test) {
  const { window, entries, post } = await seed(test)

  await signIn(page, test, t)
  await checkWindowList(page, t)
  t.equal((await residualOf(page).textContent())?.trim(), '$1.65', 'the window page shows the residual')
  const figures = await page.locator('.figure').allTextContents()
  t.same(figures, ['Claimed (statement)$111.65', 'Derived (ledger)$110.00', 'Matched$0.00', 'Residual$1.65', 'Stateopen'], 'claimed, derived, matched, residual, state')
  await waitForText(page.getByRole('table', { name: 'Entries of the period' }), 'Office supplies')

  const [e1, e2, e3] = entries.map((entry: { id: string }) => entry.id)
  await matchThroughTheUi(page, ['l1'], [e1])
  await matchThroughTheUi(page, ['l2', 'l3'], [e2, e3])
  t.equal((await residualOf(page).textContent())?.trim(), '$1.65', 'exact matches leave the residual')

  // Write off the fee with a reason: its −0.35 is accounted for, the deposit's 2.00 is what remains.
  // By keyboard: Space ticks the focused checkbox, Enter in the reason field submits the write-off.
  await page.getByRole('checkbox', { name: /^Select line l4,/ }).focus()
  await page.keyboard.press('Space')
  await page.getByLabel('Write-off reason').fill('Monthly account fee')
  await page.keyboard.press('Enter')
  await waitForText(residualOf(page), '$2.00')
  await waitForText(page.getByRole('table', { name: 'Matches' }), 'Monthly account fee')

  // Closing now is refused: the console shows the API's message, not a status code.
  await page.getByRole('button', { name: 'Close window' }).click()
  const refusal = (await call(test.baseUrl, 'PATCH', `/v2/reconciliations/${window.id}`, { key: test.apiKey, body: { state: 'closed' } })).body.error.message
  t.equal((await waitForText(page.getByRole('alert'), refusal)).trim(), refusal, 'the close refusal reads as the API wrote it')

  // The missing deposit is posted over the API: the residual on screen follows.
  const live = (await page.locator('.live [role=status]').textContent()) === 'Live'
  t.comment(live ? 'GET /v2/stream upgraded: waiting for the live update' : '/v2/stream is not on this server (404): the console re-reads on Refresh')
  const deposit = await post(200, day(1), 'Cash deposit')
  if (!live) await page.getByRole('button', { name: 'Refresh' }).click()
  await waitForText(residualOf(page), '$0.00')
  await waitForText(stateOf(page), 'balanced')
  await matchThroughTheUi(page, ['l5'], [deposit.id])
  t.equal((await page.getByRole('table', { name: 'Statement lines' }).getByText('unmatched').count()), 0, 'every line is matched')
  const windowShot = await screenshot(page, 'window-balanced')
  fs.copyFileSync(windowShot, path.join(repositoryRoot, 'docs', 'console.png'))

  await checkOptionalParts(page, openapi, t)
  await page.getByRole('button', { name: 'Close window' }).click()
  await waitForText(stateOf(page), 'closed')
  const history = await waitForText(page.getByRole('heading', { name: 'History' }).locator('xpath=..'), 'closed')
  for (const step of ['opened', 'lines added', 'matched', 'entry posted', 'balanced', 'closed']) t.match(history, step, `the history shows ${step}`)
  t.match(history, 'Monthly account fee', 'with the write-off reason')
  const stored = (await call(test.baseUrl, 'GET', `/v2/reconciliations/${window.id}`, { key: test.apiKey })).body
  t.equal(stored.state, 'closed', 'the close went through the API')
  t.equal(stored.matched_count, 4)
  await screenshot(page, 'window-closed')
  // Timestamps follow the workspace timezone chosen in the header.
  const opened = page.getByRole('heading', { name: 'History' }).locator('xpath=..').locator('time').first()
  t.match(await opened.textContent(), /UTC$/)
  await page.getByLabel('Workspace timezone').fill('Asia/Tokyo')
  await page.keyboard.press('Enter')
  await waitForText(opened, 'GMT+9')
  t.equal(await opened.getAttribute('datetime'), stored.opened_at, 'the machine-readable time stays UTC')

  await checkBalanceChart(page, t)
}

/** Parts whose routes other branches build: present exactly when the server's OpenAPI document lists them. */
async function checkOptionalParts(page: Page, openapi: { paths: Record<string, Record<string, unknown>> }, t: Test) {
  const has = (route: string, method: string) => openapi.paths[route]?.[method] !== undefined
  t.equal(await page.getByRole('heading', { name: 'Proposals' }).count(), has('/v2/reconciliations/{id}/proposals', 'get') ? 1 : 0, 'proposals shown only when the route exists')
  t.equal(await page.getByRole('heading', { name: 'Exports' }).count(), has('/v2/reconciliations/{id}/export', 'get') ? 1 : 0, 'exports shown only when the route exists')
  t.equal(await page.getByRole('button', { name: 'What if?' }).count(), JSON.stringify(openapi).includes('"dry_run"') ? 1 : 0, 'what-if shown only when the match body knows dry_run')
}

async function checkBalanceChart(page: Page, t: Test) {
  await page.getByRole('link', { name: 'Accounts' }).click()
  await page.getByRole('link', { name: 'assets:bank' }).click()
  await page.getByRole('heading', { name: 'Balance of assets:bank over time' }).waitFor({ timeout: waitMs })
  await page.locator('.chart canvas').waitFor({ timeout: waitMs })
  await page.getByText('Balances as a table').click()
  const rows = page.getByRole('group').getByRole('row')
  t.equal(await rows.count(), 32, 'a header and 31 balances')
  t.match(await rows.nth(1).textContent(), '$0.00', 'nothing 30 days ago')
  t.match(await rows.last().textContent(), '$112.00', 'now: 100 + 25 − 15 + 2')
  await screenshot(page, 'accounts-balance')
}

/**
 * What the console's pages show, at a phone's width (390 px) in Debian's headless chromium against a real
 * service (docs/API.md, Console): proposals with both sides' amounts, dates and descriptions and their
 * reasons; ids shortened with the whole id on hover and a copy control; a window whose residual is 0
 * while lines are unmatched marked as not finished; matching rules created, refused, edited and deleted
 * through the rules page (docs/API.md, Matching rules).
 */

import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import type { Page } from 'playwright-core'
import { launchChromium } from '../support/browser.ts'
import { outputDir, stateOf, waitForText } from '../support/console-page.ts'
import { type Fixture, prepare, signIn } from '../support/console-layout.ts'
import { call, startTestService, type TestService } from '../support/service.ts'

/** Both sides of a proposal with their dates, amounts and descriptions, and its reasons; a line's Accept still sends it as given. */
async function checkProposals(page: Page, test: TestService, fixture: Fixture, t: Test) {
  await page.goto(`${test.baseUrl}/console#/windows/${fixture.october}`)
  await waitForText(page.locator('main'), 'Accept all 3 proposals')
  const first = page.locator('.proposal').first()
  const text = ((await first.textContent()) ?? '').replace(/\s+/g, ' ')
  const entry = (await call(test.baseUrl, 'GET', `/v2/entries?reconciliation=${fixture.october}`, { key: test.apiKey })).body.data.find((item: { description: string }) => item.description.startsWith('Invoice INV-1041'))
  t.match(text, /Statement lines.*l1.*Oct 5, 2026.*€1,250\.00.*INV-1041/, 'the line side: id, date, amount, reference')
  t.match(text, /Entries.*Oct 5, 2026.*€1,250\.00.*Invoice INV-1041 paid, Acme Handels AG/, 'the entry side: date, amount, description')
  t.match(text, /reasons:.*amount.*same date.*reference/, 'and the reasons')
  t.equal(await first.locator(`.id-text[title="${entry.id}"]`).count(), 1, 'the entry id with the whole id on hover')
}

/** Ids shown shortened, the whole id in title, and a copy control that puts the whole id on the clipboard. */
async function checkIds(page: Page, test: TestService, fixture: Fixture, t: Test) {
  const id = page.locator(`.id-text[title="${fixture.october}"]`).first()
  t.equal((await id.locator('[aria-hidden="true"]').textContent())?.trim(), `rec_…${fixture.october.slice(-6)}`, 'the window id is shown shortened')
  await page.getByRole('button', { name: `Copy ${fixture.october}` }).first().click()
  await waitForText(page.getByRole('button', { name: `Copy ${fixture.october}` }).first(), 'Copied')
  t.equal(await page.evaluate(() => navigator.clipboard.readText()), fixture.october, 'Copy puts the whole id on the clipboard')
}

/** Residual 0 with statement lines unmatched: the list and the page say so, never the plain green "balanced". */
async function checkUnfinished(page: Page, test: TestService, fixture: Fixture, t: Test) {
  const stored = (await call(test.baseUrl, 'GET', `/v2/reconciliations/${fixture.even}`, { key: test.apiKey })).body
  t.match(stored, { residual: 0, unmatched_lines_count: 2 }, 'the November window: residual 0, two lines unmatched')
  await page.goto(`${test.baseUrl}/console#/windows`)
  const row = page.getByRole('row', { name: /Girokonto November 2026/ })
  t.equal((await row.locator('.badge').textContent())?.trim(), `${stored.state}, 2 unmatched`, 'the list shows it unfinished')
  t.equal(await row.locator('.badge.state-unfinished').count(), 1, 'with its own badge')
  await page.goto(`${test.baseUrl}/console#/windows/${fixture.even}`)
  t.equal((await waitForText(stateOf(page), 'unmatched')).trim(), `${stored.state}, 2 unmatched`, 'the window page too')
}

/** A rule created, refused, edited and deleted through the rules page; the API holds what the page says. */
async function checkRules(page: Page, test: TestService, t: Test) {
  await page.goto(`${test.baseUrl}/console#/rules`)
  await waitForText(page.locator('main'), 'Invoices by reference')
  const form = page.getByRole('form', { name: 'New rule' })
  await form.getByLabel('Name').fill('Card fees')
  await form.getByLabel('Priority (lower first)').fill('5')
  await form.getByLabel('Strategy').selectOption('one_to_one')
  await form.getByLabel('Amount tolerance (minor units; empty: exact)').fill('50')
  await form.getByLabel('Description pattern (optional)').fill('(a+')
  await form.getByRole('button', { name: 'Create rule' }).click()
  t.match(await waitForText(form.getByRole('alert'), 'regex'), '/conditions/description/regex', 'a pattern the API refuses: its message and the field')
  await form.getByLabel('Description pattern (optional)').fill('^CARD FEE')
  await form.getByRole('button', { name: 'Create rule' }).click()
  await waitForText(page.getByRole('status'), 'Created rule Card fees.')
  const listed = async () => (await call(test.baseUrl, 'GET', '/v2/matching-rules', { key: test.apiKey })).body.data
  const created = (await listed()).find((rule: { name: string }) => rule.name === 'Card fees')
  t.match(created, { priority: 5, action: 'auto_match', strategy: 'one_to_one', conditions: { amount: { tolerance: 50 }, description: { regex: '^CARD FEE' } } }, 'the rule as the form gave it')
  t.match((await page.getByRole('row').nth(1).textContent())?.replace(/\s+/g, ' '), /^Card fees/, 'listed first: lower priority first')
  await page.getByRole('button', { name: 'Edit rule Card fees' }).click()
  const edit = page.getByRole('form', { name: 'Edit rule Card fees' })
  await edit.getByLabel('Priority (lower first)').fill('50')
  await edit.getByLabel('Reference test').selectOption('contains')
  await edit.getByLabel('Reference text').fill('FEE')
  await edit.getByRole('button', { name: 'Save rule' }).click()
  await waitForText(page.getByRole('status'), 'Saved rule Card fees.')
  t.match((await listed()).find((rule: { id: string }) => rule.id === created.id), { priority: 50, conditions: { reference: { contains: 'FEE' }, amount: { tolerance: 50 } } }, 'the edit went through PATCH')
  await page.getByRole('button', { name: 'Delete rule Card fees' }).click()
  await page.getByRole('button', { name: 'Confirm delete' }).click()
  await waitForText(page.getByRole('status'), 'Deleted rule Card fees.')
  t.equal((await listed()).some((rule: { id: string }) => rule.id === created.id), false, 'and the delete')
}

t.test('what the pages show: proposals, ids, an unfinished window, the rules page', async (t) => {
  fs.mkdirSync(outputDir, { recursive: true })
  const launched = await launchChromium()
  t.teardown(() => launched.close())
  const test = await startTestService()
  t.teardown(() => test.destroy())
  const fixture = await prepare(test)
  const context = await launched.browser.newContext({ locale: 'en-US', viewport: { width: 390, height: 900 } })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: test.baseUrl })
  const page = await context.newPage()
  try {
    await signIn(page, test)
    await checkProposals(page, test, fixture, t)
    await checkIds(page, test, fixture, t)
    await checkUnfinished(page, test, fixture, t)
    await checkRules(page, test, t)
  } catch (error) {
    await page.screenshot({ path: path.join(outputDir, 'pages-failure.png'), fullPage: true }).catch(() => undefined)
    throw error
  } finally {
    await context.close()
  }
})


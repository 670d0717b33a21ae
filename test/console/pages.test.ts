/**
 * What the console's pages show, at a phone's width (390 px) in Debian's headless chromium against a real
 * service (docs/API.md, Console): proposals with both sides' amounts, dates and descriptions and their
 * reasons; ids shortened with the whole id on hover and a copy control; a window whose residual is 0
 * while lines are unmatched marked as not finished; matching rules created, refused, edited and deleted
 * through the rules page (docs/API.md, Matching rules); the exceptions queue filtered and a line assigned
 * with a note (docs/API.md, Exceptions); a held write-off and close shown as awaiting approval, refused to
 * the key that asked, rejected and approved by a second key (docs/API.md, Approvals).
 */

import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import type { Page } from 'playwright-core'
import { launchChromium } from '../support/browser.ts'
import { outputDir, stateOf, waitForText, waitMs } from '../support/console-page.ts'
import { type Fixture, openWithinTolerance, prepare, signIn } from '../support/console-layout.ts'
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
  t.match(text, 'rule: Invoices by reference', 'and the rule that made it, by name')
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

/** The exceptions queue: every unmatched line of the open windows, oldest first, filtered, and one line assigned with a note. */
async function checkExceptions(page: Page, test: TestService, fixture: Fixture, t: Test) {
  await page.goto(`${test.baseUrl}/console#/exceptions`)
  const table = page.getByRole('table', { name: 'Unmatched statement lines' })
  await waitForText(table, 'INV-1050')
  const rows = table.locator('tbody tr')
  const lineIds = await rows.locator('th').allTextContents()
  const api = (await call(test.baseUrl, 'GET', '/v2/exceptions?limit=100', { key: test.apiKey })).body.data
  t.same(lineIds, api.map((item: { id: string }) => item.id), 'the lines the API lists, in its order (oldest first)')
  t.equal(lineIds.length, 7, 'October\'s five lines and November\'s two')
  t.match((await rows.first().textContent())?.replace(/\s+/g, ' '), new RegExp(`l1.*Oct 5, 2026.*€1,250\\.00.*INV-1041.*${api[0].age_days}.*nobody`), 'a line: window, date, amount in the account\'s currency, reference, age, no assignee')
  // October's youngest line (l5, Oct 30) is days older than November's: its age splits the two months, whatever today is.
  const october = api.find((item: { id: string; reconciliation: string }) => item.id === 'l5' && item.reconciliation === fixture.october).age_days
  await page.getByLabel('Older than (days)').fill(String(october))
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await waitForText(table, 'l5')
  await page.waitForFunction(() => !document.body.textContent?.includes('INV-1050'), undefined, { timeout: waitMs })
  t.equal(await rows.count(), 5, `older than ${october} days: October's lines only`)
  await page.getByRole('button', { name: `Assign or note line l5 of ${fixture.october}` }).click()
  const form = page.getByRole('form', { name: 'Assign line l5' })
  await form.getByLabel('Assignee').fill('maria')
  await form.getByLabel('Note').fill('Fee not booked: ask the bank for the fee schedule')
  await form.getByRole('button', { name: 'Save' }).click()
  await waitForText(page.getByRole('status'), 'Saved the assignee and note of line l5.')
  const line = (await call(test.baseUrl, 'GET', `/v2/reconciliations/${fixture.october}/lines`, { key: test.apiKey })).body.data.find((item: { id: string }) => item.id === 'l5')
  t.match(line, { assignee: 'maria', note: 'Fee not booked: ask the bank for the fee schedule' }, 'the API holds the assignee and note')
  t.match(await waitForText(rows.filter({ hasText: 'l5' }), 'maria'), 'Fee not booked', 'the queue shows them')
  await page.getByLabel('Assignee').first().fill('maria')
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await page.waitForFunction(() => document.querySelectorAll('table.list tbody tr').length === 1, undefined, { timeout: waitMs })
  t.pass('filtered by assignee: the one line')
}

/**
 * Four eyes: with approvals required, a write-off over the limit and a close with a residual answer 202 and
 * the page says "Awaiting approval"; the requesting key cannot approve its own request; a second key
 * rejects the one and approves the other, which then closes the window.
 */
async function checkApprovals(page: Page, test: TestService, fixture: Fixture, t: Test) {
  const settings = await call(test.baseUrl, 'PATCH', '/admin/workspaces/default', { key: test.adminToken, body: { settings: { approvals: { close_with_residual: true, write_off_over: 500 } } } })
  t.equal(settings.status, 200, 'approvals required: closes with a residual, write-offs over 5.00')
  const approver = await call(test.baseUrl, 'POST', '/admin/keys', { key: test.adminToken, body: { workspace: 'default', name: 'checker', scopes: ['accounts:read', 'entries:read', 'recon:read', 'recon:write', 'recon:approve'] } })
  t.equal(approver.status, 201, 'a second key that may approve')
  await page.goto(`${test.baseUrl}/console#/windows/${fixture.october}`)
  await page.getByRole('checkbox', { name: /^Select line l5,/ }).check()
  await page.getByLabel('Write-off reason').fill('Bank fee October')
  await page.getByRole('button', { name: 'Write off selected lines' }).click()
  t.match(await waitForText(page.getByRole('status').filter({ hasText: 'Awaiting' }), 'write-off'), /^Awaiting approval: the write-off is held as apr_\w+ until another person approves it/, 'a held write-off says so')
  const late = await openWithinTolerance(test)
  await page.goto(`${test.baseUrl}/console#/windows/${late}`)
  await page.getByLabel(/^Close reason/).fill('Cash difference, within tolerance')
  await page.getByRole('button', { name: 'Close window' }).click()
  await waitForText(page.getByRole('status').filter({ hasText: 'Awaiting' }), 'the close')
  t.match((await call(test.baseUrl, 'GET', `/v2/reconciliations/${fixture.october}`, { key: test.apiKey })).body, { state: 'open', matched_count: 0 }, 'nothing changed yet: no write-off')
  t.equal((await call(test.baseUrl, 'GET', `/v2/reconciliations/${late}`, { key: test.apiKey })).body.state, 'open', 'and no close')
  await page.goto(`${test.baseUrl}/console#/approvals`)
  const table = page.getByRole('table', { name: 'Pending approvals' })
  const pending = (await call(test.baseUrl, 'GET', '/v2/approvals?state=pending', { key: test.apiKey })).body.data
  t.equal(pending.length, 2, 'two approvals pending')
  const [writeOff, close] = [pending.find((item: { action: string }) => item.action === 'match.write_off'), pending.find((item: { action: string }) => item.action === 'window.close')]
  t.match((await waitForText(table.getByRole('row').filter({ hasText: 'write-off' }), 'lines l5')).replace(/\s+/g, ' '), /write-off \(lines l5; reason: Bank fee October; €7\.50 over the limit of €5\.00\).*Girokonto October 2026/, 'the write-off: what, why, the window')
  await page.getByRole('button', { name: `Approve ${close.id}` }).click()
  const own = await call(test.baseUrl, 'POST', `/v2/approvals/${close.id}/approve`, { key: test.apiKey })
  t.equal(own.body.error.code, 'approval_self', 'the requesting key cannot approve its own request')
  t.equal((await waitForText(page.getByRole('alert'), own.body.error.message)).trim(), own.body.error.message, 'the page shows the API\'s message')
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByLabel('API key').fill(approver.body.secret)
  await page.keyboard.press('Enter')
  await page.getByRole('heading', { name: 'Pending approvals' }).waitFor({ timeout: waitMs })
  await page.getByRole('button', { name: `Reject ${writeOff.id}` }).click()
  await page.getByLabel('Reason for rejecting').fill('Book the fee instead of writing it off')
  await page.getByRole('button', { name: 'Reject', exact: true }).click()
  await waitForText(page.getByRole('status'), `Rejected ${writeOff.id}.`)
  await page.getByRole('button', { name: `Approve ${close.id}` }).click()
  await waitForText(page.getByRole('status'), `Approved ${close.id}: the close ran.`)
  await waitForText(page.locator('main'), 'Nothing awaits approval.')
  const decided = (await call(test.baseUrl, 'GET', '/v2/approvals', { key: test.apiKey })).body.data
  t.same(decided.map((item: { id: string; state: string }) => [item.id, item.state]).sort(), [[writeOff.id, 'rejected'], [close.id, 'approved']].sort(), 'one rejected, one approved')
  t.equal((await call(test.baseUrl, 'GET', `/v2/reconciliations/${late}`, { key: test.apiKey })).body.state, 'closed', 'the approved close ran')
  t.match((await call(test.baseUrl, 'GET', `/v2/reconciliations/${fixture.october}`, { key: test.apiKey })).body, { state: 'open', matched_count: 0 }, 'the rejected write-off never ran')
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
    await checkExceptions(page, test, fixture, t)
    await checkApprovals(page, test, fixture, t)
  } catch (error) {
    await page.screenshot({ path: path.join(outputDir, 'pages-failure.png'), fullPage: true }).catch(() => undefined)
    throw error
  } finally {
    await context.close()
  }
})


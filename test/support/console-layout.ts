/**
 * @module Test support for the console's layout and pages tests: the ledger they start from, and what a page must satisfy at any width. Nothing wider
 * than the viewport, every control reached by Tab, and axe-core's scan without a serious or critical
 * violation (axe.source injected into the page: the console never ships it).
 */

import fs from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import { seed, statementFixture, waitMs } from './console-page.ts'
import { call, type TestService } from './service.ts'

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** Pixels an element may stick out past the viewport (sub-pixel rounding of borders). */
const overflowSlackPx = 1

/** The page's scroll width against the viewport, and every visible element whose box leaves it on the right or left. */
export async function overflowing(page: Page): Promise<{ scrollWidth: number; innerWidth: number; elements: string[] }> {
  return page.evaluate((slack) => {
    // No named helper inside: tsx would wrap it in a __name call the page does not have.
    const elements: string[] = []
    for (const element of document.body.querySelectorAll('*')) {
      // The visually hidden helpers are 1 px boxes clipped to nothing: not something a person sees.
      if (element.closest('.visually-hidden') !== null) continue
      // Nor is anything inside a 1 px box that clips it (a table's header row hidden that way on a narrow screen).
      let clipped = false
      for (let parent = element.parentElement; parent !== null && !clipped; parent = parent.parentElement) {
        const outer = parent.getBoundingClientRect()
        clipped = outer.width <= 1 && outer.height <= 1 && getComputedStyle(parent).overflow === 'hidden'
      }
      if (clipped) continue
      const box = element.getBoundingClientRect()
      if (box.width === 0 && box.height === 0) continue
      if (box.right > innerWidth + slack || box.left < -slack) elements.push(`${element.tagName.toLowerCase()}.${String(element.getAttribute('class') ?? '').trim().split(/\s+/).join('.')} "${(element.textContent ?? '').trim().slice(0, 40)}" ${Math.round(box.left)}..${Math.round(box.right)}`)
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth, elements }
  }, overflowSlackPx)
}

/** The controls a keyboard user must reach: enabled buttons, links, inputs, selects, textareas, summaries. */
async function controls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const all = [...document.querySelectorAll('a[href], button, input, select, textarea, summary')]
    const usable = all.filter((element) => !(element as HTMLButtonElement).disabled && element.closest('[inert], [hidden]') === null && element.getClientRects().length > 0)
    return usable.map((element, index) => { element.setAttribute('data-reach', String(index)); return String(index) })
  })
}

/**
 * Tabs from the top of the page until focus has been everywhere it goes (bounded: twice the controls and
 * some), and answers the controls it never reached, by their text.
 */
export async function unreachableByKeyboard(page: Page): Promise<string[]> {
  const wanted = await controls(page)
  // The page notes every control focus lands on, so the Tab presses need no round trip each.
  await page.evaluate(() => {
    const seen = new Set<string>()
    ;(window as unknown as { reachedMarks: Set<string> }).reachedMarks = seen
    document.addEventListener('focusin', (event) => { const mark = (event.target as Element).getAttribute?.('data-reach'); if (mark) seen.add(mark) })
    ;(document.activeElement as HTMLElement | null)?.blur()
    window.scrollTo(0, 0)
  })
  const pressesMax = wanted.length * 2 + 10
  for (let press = 0; press < pressesMax; press += 1) {
    await page.keyboard.press('Tab')
    // Check now and then whether everything has been reached, to stop early.
    if (press % 20 === 19 && await page.evaluate((count) => (window as unknown as { reachedMarks: Set<string> }).reachedMarks.size >= count, wanted.length)) break
  }
  return page.evaluate((marks) => {
    const seen = (window as unknown as { reachedMarks: Set<string> }).reachedMarks
    return marks.filter((mark) => !seen.has(mark)).map((mark) => {
      const element = document.querySelector(`[data-reach="${mark}"]`)
      return `${element?.tagName.toLowerCase()} ${element?.getAttribute('aria-label') ?? element?.textContent?.trim().slice(0, 40)}`
    })
  }, wanted)
}

export interface AxeViolation { id: string; impact: string | null; help: string; nodes: string[] }

/** axe-core's violations of impact serious or critical on the page as it stands. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if (await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'undefined')) await page.addScriptTag({ content: axeSource })
  return page.evaluate(async () => {
    type Result = { violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<Result> } }).axe
    const result = await axe.run(document, { resultTypes: ['violations'] })
    return result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, nodes: violation.nodes.slice(0, 5).map((node) => node.target.join(' ')) }))
  })
}

export interface Fixture { october: string; even: string; rule: string; bank: string }

/**
 * A window that may close with its residual: 5.00 claimed, nothing in the books in its period, a
 * tolerance of 10.00 (a close within tolerance, with a reason).
 */
export async function openWithinTolerance(test: TestService): Promise<string> {
  const body = { label: 'Girokonto late November 2026', accounts: ['assets:bank'], window: { from: '2026-11-11', to: '2026-11-20' }, claimed_movement: 500, tolerance: 1_000 }
  const opened = await call(test.baseUrl, 'POST', '/v2/reconciliations', { key: test.apiKey, body })
  if (opened.status !== 201) throw new Error(`open: ${opened.status} ${JSON.stringify(opened.body)}`)
  return opened.body.id
}

/** Closes with a residual wait for a second person: such a close is asked for and so waits (202). */
async function holdClose(test: TestService) {
  const windowId = await openWithinTolerance(test)
  const settings = await call(test.baseUrl, 'PATCH', '/admin/workspaces/default', { key: test.adminToken, body: { settings: { approvals: { close_with_residual: true, write_off_over: null } } } })
  if (settings.status !== 200) throw new Error(`approvals settings: ${settings.status} ${JSON.stringify(settings.body)}`)
  const held = await call(test.baseUrl, 'PATCH', `/v2/reconciliations/${windowId}`, { key: test.apiKey, body: { state: 'closed', reason: 'Cash difference, within tolerance' } })
  if (held.status !== 202) throw new Error(`close held for approval: ${held.status} ${JSON.stringify(held.body)}`)
}

/**
 * October's statement uploaded over the API (five lines, three proposals), a November window whose two
 * lines the ledger already holds, unmatched (its residual is 0 but it is not done), and a matching rule;
 * with `pendingApproval`, a close waiting for approval.
 */
export async function prepare(test: TestService, options: { pendingApproval?: boolean } = {}): Promise<Fixture> {
  const { post } = await seed(test)
  const key = test.apiKey
  const uploaded = await call(test.baseUrl, 'POST', '/v2/statements?label=Girokonto%20October%202026', { key, raw: fs.readFileSync(statementFixture), headers: { 'content-type': 'application/xml' } })
  if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${JSON.stringify(uploaded.body)}`)
  await post(30_000, '2026-11-04', 'Invoice INV-1050 paid')
  await post(-12_000, '2026-11-06', 'Courier PO-80', 'expenses:supplies')
  const opened = await call(test.baseUrl, 'POST', '/v2/reconciliations', { key, body: { label: 'Girokonto November 2026', accounts: ['assets:bank'], window: { from: '2026-11-01', to: '2026-11-10' }, claimed_movement: 18_000 } })
  if (opened.status !== 201) throw new Error(`open: ${opened.status} ${JSON.stringify(opened.body)}`)
  const lines = [{ amount: 30_000, date: '2026-11-04', reference: 'INV-1050' }, { amount: -12_000, date: '2026-11-06', reference: 'PO-80' }]
  const added = await call(test.baseUrl, 'POST', `/v2/reconciliations/${opened.body.id}/lines`, { key, body: { lines } })
  if (added.status !== 201) throw new Error(`lines: ${added.status} ${JSON.stringify(added.body)}`)
  const rule = await call(test.baseUrl, 'POST', '/v2/matching-rules', { key, body: { name: 'Invoices by reference', priority: 10, conditions: { amount: 'exact', date_window_days: 3, reference: { regex: '^INV-\\d+$' } }, action: 'propose', strategy: 'one_to_one' } })
  if (rule.status !== 201) throw new Error(`rule: ${rule.status} ${JSON.stringify(rule.body)}`)
  const bank = (await call(test.baseUrl, 'GET', '/v2/accounts/assets:bank', { key })).body.id
  if (options.pendingApproval === true) await holdClose(test)
  return { october: uploaded.body.data[0].id, even: opened.body.id, rule: rule.body.id, bank }
}

export async function signIn(page: Page, test: TestService) {
  await page.goto(`${test.baseUrl}/console`)
  await page.getByLabel('API key').fill(test.apiKey)
  await page.keyboard.press('Enter')
  await page.getByRole('heading', { name: 'Reconciliation windows' }).waitFor({ timeout: waitMs })
}


/**
 * @module Test support: the console's layout test at one width, run by test/console/layout-390.test.ts and
 * layout-1366.test.ts (one file per width, so each stays well within the per-file timeout). On every page of
 * the console, in Debian's headless chromium against a real service: nothing wider than the viewport (no
 * sideways scroll), every button, link and field reached by Tab, no serious or critical axe-core
 * violation, and Sign out whole on screen. docs/console-<width>.png is rewritten only with
 * UPDATE_CONSOLE_SCREENSHOT=1.
 */

import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import type { BrowserContext, Page } from 'playwright-core'
import { launchChromium } from './browser.ts'
import { outputDir, waitForText, waitMs } from './console-page.ts'
import { type Fixture, overflowing, prepare, seriousViolations, signIn, unreachableByKeyboard } from './console-layout.ts'
import { repositoryRoot } from './process.ts'
import { startTestService, type TestService } from './service.ts'

const updateScreenshots = process.env.UPDATE_CONSOLE_SCREENSHOT === '1'

/** Every page of the console, with the heading that says it has loaded. */
function pagesOf(fixture: Fixture): { route: string; heading: string; ready?: string }[] {
  return [
    { route: '#/windows', heading: 'Reconciliation windows', ready: 'Girokonto November 2026' },
    { route: `#/windows/${fixture.october}`, heading: 'Girokonto October 2026', ready: 'Accept all 3 proposals' },
    { route: `#/windows/${fixture.even}`, heading: 'Girokonto November 2026', ready: 'History' },
    { route: '#/accounts', heading: 'Accounts', ready: 'assets:bank' },
    { route: `#/accounts/${fixture.bank}`, heading: 'Balance of assets:bank over time', ready: 'Balances as a table' },
    { route: '#/rules', heading: 'Matching rules', ready: 'Invoices by reference' },
    { route: '#/exceptions', heading: 'Exceptions', ready: 'INV-1050' },
    { route: '#/approvals', heading: 'Pending approvals', ready: 'Girokonto late November 2026' },
  ]
}

async function checkPage(page: Page, test: TestService, width: number, target: { route: string; heading: string; ready?: string }, t: Test) {
  await page.goto(`${test.baseUrl}/console${target.route}`)
  await page.getByRole('heading', { name: target.heading, exact: true }).waitFor({ timeout: waitMs })
  if (target.ready !== undefined) await waitForText(page.locator('main'), target.ready)
  const where = `${target.route} at ${width} px`
  const overflow = await overflowing(page)
  t.ok(overflow.scrollWidth <= overflow.innerWidth, `${where}: no sideways scroll (scrollWidth ${overflow.scrollWidth}, viewport ${overflow.innerWidth})`)
  t.same(overflow.elements, [], `${where}: no element outside the viewport`)
  t.same(await unreachableByKeyboard(page), [], `${where}: Tab reaches every control`)
  t.same(await seriousViolations(page), [], `${where}: axe-core finds no serious or critical violation`)
  const signOut = await page.getByRole('button', { name: 'Sign out' }).boundingBox()
  t.ok(signOut !== null && signOut.x >= 0 && signOut.x + signOut.width <= width, `${where}: Sign out is whole on screen`)
}

async function atWidth(context: BrowserContext, test: TestService, fixture: Fixture, width: number, t: Test) {
  const page = await context.newPage()
  const pageErrors: string[] = []
  page.on('pageerror', (error) => pageErrors.push(error.message))
  try {
    await signIn(page, test)
    for (const target of pagesOf(fixture)) await checkPage(page, test, width, target, t)
    await page.goto(`${test.baseUrl}/console#/windows/${fixture.october}`)
    await waitForText(page.locator('main'), 'Accept all 3 proposals')
    const file = path.join(outputDir, `console-${width}.png`)
    await page.screenshot({ path: file, fullPage: false })
    if (updateScreenshots) fs.copyFileSync(file, path.join(repositoryRoot, 'docs', `console-${width}.png`))
  } catch (error) {
    await page.screenshot({ path: path.join(outputDir, `layout-failure-${width}.png`), fullPage: true }).catch(() => undefined)
    throw error
  } finally {
    t.same(pageErrors, [], `no uncaught error in the page at ${width} px`)
    await page.close()
  }
}

/** The whole test at one viewport width. */
export function layoutTest(width: number): void {
  t.test(`the console at ${width} px: no sideways scroll, every control by keyboard, no serious axe violation`, async (t) => {
    fs.mkdirSync(outputDir, { recursive: true })
    const launched = await launchChromium()
    t.teardown(() => launched.close())
    const test = await startTestService()
    t.teardown(() => test.destroy())
    const fixture = await prepare(test, { pendingApproval: true })
    const context = await launched.browser.newContext({ locale: 'en-US', viewport: { width, height: 900 } })
    await atWidth(context, test, fixture, width, t)
    await context.close()
  })
}

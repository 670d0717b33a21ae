/** @module Test support for the console's browser tests: dates, waiting for text, the window page's figures, a seeded window. */

import path from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { createAccount, postEntryOk, raiseLimits } from './api.ts'
import { repositoryRoot } from './process.ts'
import { addLinesOk, openWindowOk } from './recon.ts'
import type { TestService } from './service.ts'

export const outputDir = path.join(repositoryRoot, '.tap', 'console')
export const waitMs = 10_000

/** YYYY-MM-DD, `daysAgo` days before today (UTC, the workspace's timezone). */
export function day(daysAgo: number): string {
  return new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10)
}

/** Polls the locator's text until it contains `expected` (playwright-core has no expect()). */
export async function waitForText(locator: Locator, expected: string, timeoutMs = waitMs): Promise<string> {
  const deadline = Date.now() + timeoutMs
  let text = ''
  while (Date.now() < deadline) {
    text = (await locator.first().textContent({ timeout: timeoutMs }).catch(() => '')) ?? ''
    if (text.includes(expected)) return text
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`waited ${timeoutMs} ms for ${JSON.stringify(expected)}; the text is ${JSON.stringify(text)}`)
}

/** The figure whose term is exactly `term` (Claimed, Derived, Matched, Residual, State). */
export const figure = (page: Page, term: string) => page.locator('.figure').filter({ has: page.locator('dt', { hasText: new RegExp(`^${term}`) }) }).locator('dd')
export const residualOf = (page: Page) => figure(page, 'Residual')
export const stateOf = (page: Page) => figure(page, 'State$')

/** Accounts, three entries and a window of five statement lines, all over the API. */
export async function seed(test: TestService) {
  const { baseUrl, apiKey: key } = test
  await raiseLimits(test, 'default')
  for (const name of ['assets:bank', 'income:sales', 'expenses:supplies']) await createAccount(baseUrl, key, name)
  const post = (amount: number, date: string, description: string, other = 'income:sales') =>
    postEntryOk(baseUrl, key, [{ account: 'assets:bank', amount }, { account: other, amount: -amount }], { effective_at: `${date}T10:00:00Z`, description })
  const entries = [await post(10_000, day(4), 'Invoice INV-1 paid'), await post(2_500, day(3), 'Invoice INV-2 paid'), await post(-1_500, day(2), 'Office supplies', 'expenses:supplies')]
  // The statement: the three postings, a bank fee the ledger lacks, and a deposit not yet posted.
  const window = await openWindowOk(baseUrl, key, { label: 'Bank November', accounts: ['assets:bank'], from: day(5), to: day(1), claimed_movement: 11_165 })
  await addLinesOk(baseUrl, key, window.id, [
    { amount: 10_000, date: day(4), reference: 'INV-1', description: 'Customer A' },
    { amount: 2_500, date: day(3), reference: 'INV-2', description: 'Customer B' },
    { amount: -1_500, date: day(2), reference: 'PO-7', description: 'Supplies Ltd' },
    { amount: -35, date: day(2), reference: null, description: 'Account fee' },
    { amount: 200, date: day(1), reference: 'DEP-9', description: 'Cash deposit' },
  ])
  return { window, entries, post }
}


/** Signs in through the form and waits for the windows list. */
export async function signInAs(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/console`)
  await page.getByLabel('API key').fill(key)
  await page.keyboard.press('Enter')
  await page.getByRole('heading', { name: 'Reconciliation windows' }).waitFor({ timeout: waitMs })
}

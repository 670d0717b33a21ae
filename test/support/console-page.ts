/** @module Test support for the console's browser test: waiting for text, the window page's figures, the ledger the scenario starts from. */

import path from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { postEntryOk, raiseLimits } from './api.ts'
import { repositoryRoot } from './process.ts'
import { call, type TestService } from './service.ts'

export const outputDir = path.join(repositoryRoot, '.tap', 'console')
export const waitMs = 10_000

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

/** The figure whose term is exactly `term` (Claimed, Derived, Cleared by matches, Residual, State). */
export const figure = (page: Page, term: string) => page.locator('.figure').filter({ has: page.locator('dt', { hasText: new RegExp(`^${term}`) }) }).locator('dd')
export const residualOf = (page: Page) => figure(page, 'Residual')
export const stateOf = (page: Page) => figure(page, 'State$')

/** The camt.053 statement the scenario uploads: October 2026 of the account DE89370400440532013000, five booked entries. */
export const statementFixture = path.join(repositoryRoot, 'test', 'fixtures', 'statements', 'camt053', 'v02-eur-console-october.xml')

/**
 * The ledger before the statement arrives: the bank account (EUR, its IBAN as external_id, which the
 * upload looks up), its opening balance of 10,000.00 on 30 September, and three postings that the statement's first three lines will match. The deposit
 * (statement line l4) and the fee (l5) are not in the ledger: `post` adds the deposit later; the fee is written off with an adjusting entry to expenses:bank-fees.
 */
export async function seed(test: TestService) {
  const { baseUrl, apiKey: key } = test
  await raiseLimits(test, 'default')
  await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:bank', currency: 'EUR', external_id: 'DE89370400440532013000' } })
  for (const name of ['income:sales', 'expenses:supplies', 'expenses:bank-fees', 'equity:opening']) await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name, currency: 'EUR' } })
  const post = (amount: number, date: string, description: string, other = 'income:sales') =>
    postEntryOk(baseUrl, key, [{ account: 'assets:bank', amount }, { account: other, amount: -amount }], { effective_at: `${date}T10:00:00Z`, description })
  // The books agree with the bank's opening balance (10,000.00 on 1 October): the September balance carried forward.
  await post(1_000_000, '2026-09-30', 'Opening balance carried forward', 'equity:opening')
  const entries = [
    await post(125_000, '2026-10-05', 'Invoice INV-1041 paid, Acme Handels AG'),
    await post(48_000, '2026-10-12', 'Invoice INV-1042 paid, Berg & Tal KG'),
    await post(-31_240, '2026-10-20', 'Office supplies PO-77', 'expenses:supplies'),
  ]
  return { entries, post }
}

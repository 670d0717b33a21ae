/**
 * The console's parts whose routes other branches build (CONTRACT.md 10, 11, 12, 14): statement upload,
 * proposals, what-if, exports, live updates. Here the browser's requests to those routes are answered
 * by the test (page.route, page.routeWebSocket) as the contract says the server will, everything else
 * by a real service: the console must call exactly the contract's routes and messages, show each part
 * once the server's OpenAPI document lists it, and hide it when the route answers 404.
 */

import t, { type Test } from 'tap'
import type { Page, Route, WebSocketRoute } from 'playwright-core'
import { launchChromium } from '../support/browser.ts'
import { residualOf, seed, signInAs, waitForText, waitMs } from '../support/console-page.ts'
import { call, startTestService, type TestService } from '../support/service.ts'

const notFound = { status: 404, json: { error: { code: 'not_found', message: 'No such route.' } } }

/** The server's OpenAPI document plus the pending routes, and dry_run in the match body. */
async function withPendingRoutes(route: Route) {
  const document = await (await route.fetch()).json()
  for (const [path, method] of [['/v2/statements', 'post'], ['/v2/reconciliations/{id}/proposals', 'get'], ['/v2/reconciliations/{id}/matches/batch', 'post'], ['/v2/reconciliations/{id}/export', 'get']]) {
    document.paths[path] = { ...document.paths[path], [method]: { summary: 'pending' } }
  }
  document.components.schemas.MatchCreate.properties.dry_run = { type: 'boolean' }
  await route.fulfill({ json: document })
}

interface Socket { ws: WebSocketRoute; received: any[] }

async function checkLive(t: Test, test: TestService, page: Page, sockets: Socket[], windowId: string, post: (amount: number, date: string, description: string) => Promise<any>, date: string) {
  await waitForText(page.locator('.live [role=status]'), 'Live')
  const { ws, received } = sockets[sockets.length - 1]
  t.same(received.slice(0, 2), [{ type: 'auth', key: test.apiKey }, { type: 'subscribe', reconciliations: [windowId] }], 'auth first, then subscribe to the window (CONTRACT.md 12)')
  await post(200, date, 'Cash deposit')
  const window = (await call(test.baseUrl, 'GET', `/v2/reconciliations/${windowId}`, { key: test.apiKey })).body
  ws.send(JSON.stringify({ type: 'reconciliation', data: window }))
  // 1.65 unexplained before; the deposit's 2.00 is now in the ledger but no line is written off here.
  await waitForText(residualOf(page), '($0.35)')
  t.pass('a reconciliation message moves the residual without Refresh')
}

async function checkProposalsAndWhatIf(t: Test, page: Page, windowId: string, entryIds: string[]) {
  const proposal = { statement_lines: ['l1'], entries: [entryIds[0]], strategy: 'amount_and_date', date_tolerance_days: 3, matched_amount: 0, score: 0.97, reasons: ['amount', 'same_date'] }
  const second = { ...proposal, statement_lines: ['l3'], entries: [entryIds[2]], score: 0.9 }
  let proposalReads = 0
  await page.route(`**/v2/reconciliations/${windowId}/proposals*`, (route) => route.fulfill({ json: { data: proposalReads++ === 0 ? [proposal, second] : [proposal], next_cursor: null } }))
  const batches: any[] = []
  await page.route(`**/v2/reconciliations/${windowId}/matches/batch`, (route) => {
    batches.push(route.request().postDataJSON())
    return route.fulfill(notFound)
  })
  const matchBodies: any[] = []
  await page.route(`**/v2/reconciliations/${windowId}/matches`, async (route) => {
    const body = route.request().postDataJSON()
    matchBodies.push(body)
    if (body?.dry_run === true) return route.fulfill({ json: { dry_run: true, matched_amount: 0, residual: 165, state: 'open' } })
    return route.continue()
  })
  // The page read the proposals when it opened (the real server: 404, hidden): read them again, now answered.
  await page.reload()
  await page.getByRole('button', { name: 'Accept all 2 proposals' }).click()
  await page.getByRole('button', { name: 'Accept all 2 proposals' }).waitFor({ state: 'detached', timeout: waitMs })
  t.same(batches, [{ matches: [proposal, second].map(({ statement_lines, entries, strategy, date_tolerance_days }) => ({ statement_lines, entries, strategy, date_tolerance_days })) }], 'accept all is one POST …/matches/batch of the proposals as given; its 404 hides the button')
  await page.getByRole('button', { name: 'Accept proposal: lines l1' }).click()
  await waitForText(page.getByRole('status').filter({ hasText: 'Accepted' }), 'Accepted the proposal')
  t.same(matchBodies[0], { statement_lines: ['l1'], entries: [entryIds[0]], strategy: 'amount_and_date', date_tolerance_days: 3 }, 'accept posts the proposal as given')
  await page.getByRole('checkbox', { name: /^Select line l2,/ }).check()
  await page.getByRole('checkbox', { name: new RegExp(`^Select entry ${entryIds[1]},`) }).check()
  await page.getByRole('button', { name: 'What if?' }).click()
  t.match(await waitForText(page.locator('.what-if'), 'residual would be'), 'residual would be $1.65, state open', 'the what-if answer is shown')
  t.same(matchBodies[1], { statement_lines: ['l2'], entries: [entryIds[1]], strategy: 'amount_and_date', dry_run: true }, 'the what-if is the match body with dry_run: true')
}

async function checkExports(t: Test, page: Page, windowId: string) {
  const requested: string[] = []
  await page.route(`**/v2/reconciliations/${windowId}/export?*`, (route) => {
    requested.push(new URL(route.request().url()).search)
    const format = new URL(route.request().url()).searchParams.get('format')
    if (format === 'pdf') return route.fulfill(notFound)
    return route.fulfill({ body: 'id,amount\nl1,10000\n', headers: { 'content-type': 'text/csv', 'content-disposition': `attachment; filename="${windowId}.${format}"` } })
  })
  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Download CSV' }).click()
  t.equal((await download).suggestedFilename(), `${windowId}.csv`, 'the export downloads under the server\'s file name')
  await page.getByRole('button', { name: 'Download PDF' }).click()
  await page.getByRole('heading', { name: 'Exports' }).waitFor({ state: 'detached', timeout: waitMs })
  t.same(requested, ['?format=csv', '?format=pdf'], 'GET …/export?format= (CONTRACT.md 14); a 404 hides the exports')
}

async function checkUpload(t: Test, page: Page, window: unknown) {
  const uploads: { type: string | undefined; body: string }[] = []
  await page.route('**/v2/statements*', (route) => {
    uploads.push({ type: route.request().headers()['content-type'], body: route.request().postData() ?? '' })
    return route.fulfill(uploads.length === 1 ? { status: 201, json: { data: [window], statements: 1 } } : notFound)
  })
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Windows' }).click()
  const file = { name: 'statement.xml', mimeType: 'application/xml', buffer: Buffer.from('<Document/>') }
  await page.getByLabel('Statement file (camt.053, MT940, BAI2)').setInputFiles(file)
  await page.getByRole('button', { name: 'Upload and open windows' }).click()
  await waitForText(page.getByRole('status'), '1 statement(s) read')
  t.same(uploads[0], { type: 'application/xml', body: '<Document/>' }, 'the file goes as it is to POST /v2/statements, camt.053 as application/xml')
  await page.getByLabel('Statement file (camt.053, MT940, BAI2)').setInputFiles(file)
  await page.getByRole('button', { name: 'Upload and open windows' }).click()
  await page.getByRole('heading', { name: 'Upload a bank statement' }).waitFor({ state: 'detached', timeout: waitMs })
  t.pass('a 404 from POST /v2/statements hides the upload')
}

t.test('pending routes: live stream, proposals, what-if, exports and upload call the contract\'s routes', async (t) => {
  const launched = await launchChromium()
  t.teardown(() => launched.close())
  const test = await startTestService()
  t.teardown(() => test.destroy())
  const { window, entries, post } = await seed(test)
  const context = await launched.browser.newContext({ locale: 'en-US', viewport: { width: 1400, height: 1000 }, acceptDownloads: true })
  const page = await context.newPage()
  await page.route('**/v2/openapi.json', withPendingRoutes)
  // Every page load opens its own socket: the test speaks on the latest.
  const sockets: Socket[] = []
  await page.routeWebSocket('**/v2/stream', (ws) => {
    const received: any[] = []
    ws.onMessage((message) => received.push(JSON.parse(String(message))))
    sockets.push({ ws, received })
  })
  await signInAs(page, test.baseUrl, test.apiKey)
  await page.getByRole('link', { name: 'Bank November' }).click()
  await page.getByRole('heading', { name: 'Bank November' }).waitFor({ timeout: waitMs })
  const entryIds = entries.map((entry: { id: string }) => entry.id)
  await checkProposalsAndWhatIf(t, page, window.id, entryIds)
  await checkLive(t, test, page, sockets, window.id, post, window.window.to)
  await checkExports(t, page, window.id)
  await checkUpload(t, page, window)
})

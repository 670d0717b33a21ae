/**
 * @module Test support: helpers over `call` for the /v2/reconciliations routes (windows, lines, matches, transitions,
 * history), and the service the reconciliation route tests open with (startReconService).
 */

import { createAccount, postEntryOk, raiseLimits } from './api.ts'
import { call, startTestService, type Reply, type StartOptions, type TestService } from './service.ts'

/** Every field of the window object, docs/API.md, Reconciliation windows, its currency (9), the sealed close (14), the balances and continuity. */
export const windowFields = [
  'id', 'label', 'accounts', 'currency', 'window', 'claimed_movement', 'derived_movement', 'residual', 'matched_count', 'tolerance',
  'statement_ref', 'state', 'opened_at', 'lines_count', 'unmatched_lines_count', 'closed_at', 'closed_by', 'close_reason',
  'abandoned_at', 'abandon_reason', 'seal', 'post_close_drift', 'post_close_entries',
  'opening_balance', 'closing_balance', 'book_opening_balance', 'book_closing_balance', 'opening_difference', 'closing_difference',
  'previous', 'gap_days', 'opening_matches_previous',
] as const

export interface WindowInput {
  label?: string
  accounts: string[]
  from: string
  to: string
  claimed_movement: number
  statement_ref?: string | null
  tolerance?: number
}

export function windowBody(input: WindowInput): Record<string, unknown> {
  const body: Record<string, unknown> = { label: input.label ?? 'statement', accounts: input.accounts, window: { from: input.from, to: input.to }, claimed_movement: input.claimed_movement }
  if (input.statement_ref !== undefined) body.statement_ref = input.statement_ref
  if (input.tolerance !== undefined) body.tolerance = input.tolerance
  return body
}

export async function openWindow(baseUrl: string, key: string, input: WindowInput, headers?: Record<string, string>): Promise<Reply> {
  return call(baseUrl, 'POST', '/v2/reconciliations', { key, body: windowBody(input), headers })
}

/** Opens a window that must be accepted; returns its body. */
export async function openWindowOk(baseUrl: string, key: string, input: WindowInput): Promise<any> {
  const reply = await openWindow(baseUrl, key, input)
  if (reply.status !== 201) throw new Error(`opening a window: ${reply.status} ${reply.text}`)
  return reply.body
}

export async function getWindow(baseUrl: string, key: string, id: string): Promise<Reply> {
  return call(baseUrl, 'GET', `/v2/reconciliations/${id}`, { key })
}

export async function getWindowOk(baseUrl: string, key: string, id: string): Promise<any> {
  const reply = await getWindow(baseUrl, key, id)
  if (reply.status !== 200) throw new Error(`reading window ${id}: ${reply.status} ${reply.text}`)
  return reply.body
}

export interface LineInput { amount: number; date: string; reference?: string | null; description?: string | null }

export async function addLines(baseUrl: string, key: string, id: string, lines: LineInput[]): Promise<Reply> {
  return call(baseUrl, 'POST', `/v2/reconciliations/${id}/lines`, { key, body: { lines } })
}

export async function addLinesOk(baseUrl: string, key: string, id: string, lines: LineInput[]): Promise<any> {
  const reply = await addLines(baseUrl, key, id, lines)
  if (reply.status !== 201) throw new Error(`adding lines: ${reply.status} ${reply.text}`)
  return reply.body
}

export async function addCsv(baseUrl: string, key: string, id: string, csv: string | Buffer): Promise<Reply> {
  return call(baseUrl, 'POST', `/v2/reconciliations/${id}/lines`, { key, raw: csv, headers: { 'content-type': 'text/csv' } })
}

export interface MatchInput { statement_lines: string[]; entries?: string[]; strategy: string; reason?: string | null }

export async function match(baseUrl: string, key: string, id: string, input: MatchInput): Promise<Reply> {
  return call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches`, { key, body: input })
}

export async function matchOk(baseUrl: string, key: string, id: string, input: MatchInput): Promise<any> {
  const reply = await match(baseUrl, key, id, input)
  if (reply.status !== 200) throw new Error(`matching: ${reply.status} ${reply.text}`)
  return reply.body
}

export async function unmatch(baseUrl: string, key: string, id: string, matchId: string): Promise<Reply> {
  return call(baseUrl, 'DELETE', `/v2/reconciliations/${id}/matches/${matchId}`, { key })
}

export async function patchWindow(baseUrl: string, key: string, id: string, body: Record<string, unknown>): Promise<Reply> {
  return call(baseUrl, 'PATCH', `/v2/reconciliations/${id}`, { key, body })
}

async function dataOf(baseUrl: string, key: string, route: string): Promise<any[]> {
  const reply = await call(baseUrl, 'GET', route, { key })
  if (reply.status !== 200) throw new Error(`reading ${route}: ${reply.status} ${reply.text}`)
  if (!Array.isArray(reply.body?.data)) throw new Error(`reading ${route}: no data array`)
  return reply.body.data
}

export async function historyOf(baseUrl: string, key: string, id: string): Promise<any[]> {
  return dataOf(baseUrl, key, `/v2/reconciliations/${id}/history?limit=1000`)
}

export async function linesOf(baseUrl: string, key: string, id: string, status?: 'matched' | 'unmatched'): Promise<any[]> {
  return dataOf(baseUrl, key, `/v2/reconciliations/${id}/lines?limit=1000${status === undefined ? '' : `&status=${status}`}`)
}

export async function matchesOf(baseUrl: string, key: string, id: string): Promise<any[]> {
  return dataOf(baseUrl, key, `/v2/reconciliations/${id}/matches?limit=1000`)
}

export interface WindowView { window: any; lines: any[]; matches: any[]; history: any[] }

/** Everything a client can read of one window, for before/after comparisons. */
export async function readWindow(baseUrl: string, key: string, id: string): Promise<WindowView> {
  return {
    window: await getWindowOk(baseUrl, key, id),
    lines: await linesOf(baseUrl, key, id),
    matches: await matchesOf(baseUrl, key, id),
    history: await historyOf(baseUrl, key, id),
  }
}

/** A simple two-line entry: `amount` to `account`, the other side to `against`. */
export function pair(account: string, against: string, amount: number): { account: string; amount: number }[] {
  return [{ account, amount }, { account: against, amount: -amount }]
}

/** A test service for the reconciliation route tests: workspace `default` with generous limits and its accounts made. */
export interface ReconService {
  readonly service: TestService
  readonly baseUrl: string
  /** The all-scope key of workspace `default`. */
  readonly key: string
  /** A sale: assets:bank debited, income:sales credited, effective at 10:00 UTC on that day of October 2026; its entry id. */
  sale(amount: number, day: string): Promise<string>
  /** Stops the service and starts it again on its data dir with the same options; the new one is stopped at teardown. */
  restart(): Promise<TestService>
}

/** Starts it with `options`, raises the limits and makes `accounts`; the test's teardown stops any restart and destroys the data dir. */
export async function startReconService(t: { teardown(fn: () => Promise<void>): void }, accounts: readonly string[], options: StartOptions = {}): Promise<ReconService> {
  const service = await startTestService(options)
  let restarted: TestService | null = null
  t.teardown(async () => {
    await restarted?.stop()
    await service.destroy()
  })
  const { baseUrl, apiKey: key } = service
  await raiseLimits(service, 'default')
  for (const name of accounts) await createAccount(baseUrl, key, name)
  return {
    service,
    baseUrl,
    key,
    sale: async (amount, day) => (await postEntryOk(baseUrl, key, pair('assets:bank', 'income:sales', amount), { effective_at: `2026-10-${day}T10:00:00Z` })).id,
    restart: async () => {
      await service.stop()
      restarted = await startTestService({ ...options, dataDir: service.dataDir, apiKey: key })
      return restarted
    },
  }
}

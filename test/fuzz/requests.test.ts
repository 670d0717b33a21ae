/**
 * Request fuzzing (reliability): fast-check generates requests to every route — wrong types, 2^53 edges,
 * unicode (lone surrogates, RTL), deep JSON, missing fields, bad dates and zones, odd headers — and
 * misbehaving clients (truncated, slow, vanishing bodies and answers). Properties, for every request:
 * the process neither crashes nor stops answering, never 5xx, every non-2xx body is the error envelope
 * with a catalogued code whose status matches, and a rejection or a read leaves the in-memory state
 * byte-for-byte as it was (test/support/state-fingerprint.ts). Failures are collected, not thrown, so one
 * run reports every class of failure it met; each comes with its request and the seed.
 *
 * Replay: FUZZ_SEED=<seed> npx tap test/fuzz/requests.test.ts. Scale: FUZZ_SCALE=0.2 for a quick run.
 */
import fc from 'fast-check'
import t from 'tap'
import { errorCatalogue } from '../../src/errors.ts'
import { adminCreateKey, adminCreateWorkspace, createAccount, envelopeProblem, postEntryOk, scopesAll } from '../support/api.ts'
import { deepJson, jsonText, mutate, percentEncode, RawJson, type Mutation } from '../support/fuzz-json.ts'
import { rawExchange, type RawExchange } from '../support/raw-exchange.ts'
import { addLinesOk, matchOk, openWindowOk, patchWindow } from '../support/recon.ts'
import { logStates, systemState, workspaceState } from '../support/probes.ts'
import { call, startTestService } from '../support/service.ts'
import { firstDifference } from '../support/state-fingerprint.ts'

const seedBase = process.env.FUZZ_SEED === undefined ? (Date.now() ^ (process.pid << 10)) | 0 : Number(process.env.FUZZ_SEED) | 0
const scale = Number(process.env.FUZZ_SCALE ?? 1)
/** One workspace per worker, each in a zone with its own calendar trap; workers run at once, each one request at a time. */
const v2Workers = [
  { workspace: 'fz-utc', timezone: 'UTC' },
  { workspace: 'fz-kiritimati', timezone: 'Pacific/Kiritimati' },
  { workspace: 'fz-stjohns', timezone: 'America/St_Johns' },
  { workspace: 'fz-kathmandu', timezone: 'Asia/Kathmandu' },
  { workspace: 'fz-london', timezone: 'Europe/London' },
  { workspace: 'fz-lordhowe', timezone: 'Australia/Lord_Howe' },
] as const
const v2RunsPerWorker = Math.max(20, Math.round(1550 * scale))
const adminRuns = Math.max(20, Math.round(650 * scale))
const rawRuns = Math.max(10, Math.round(300 * scale))
/** A healthy answer on 127.0.0.1 takes milliseconds; past this the request counts as unanswered. */
const answerTimeoutMs = 2_500
const adminToken = 'test-admin-token'

t.comment(`fast-check seed ${seedBase} (replay: FUZZ_SEED=${seedBase} npx tap test/fuzz/requests.test.ts)`)
// About a minute on a quiet 2-core machine; the margin is for a machine other jobs keep busy.
t.setTimeout(300_000)

const service = await startTestService({ env: { SHUTDOWN_GRACE_MS: '500' } })
t.teardown(() => service.destroy())
const { baseUrl } = service

// ---------------------------------------------------------------------------------------------
// Failures: collected with their request, reported per class at the end.

/** Each worker's count and current request (for stalls and uncaught exceptions). */
const progress = new Map<string, { count: number; current: string }>()

interface Failure { readonly worker: string; readonly kind: string; readonly route: string; readonly detail: string }
const failures: Failure[] = []
const uncaught: string[] = []
/** The requests in flight when an exception escaped: the suspects, since the stack alone may not name one. */
const inFlightSuspects = (): string => [...progress.entries()].map(([name, { current }]) => `${name}: ${current.slice(0, 400)}`).join('\n        ')
const onUncaught = (error: unknown) => { uncaught.push(`${String((error as Error)?.stack ?? error).slice(0, 1200)}\n      requests in flight:\n        ${inFlightSuspects()}`) }
process.on('uncaughtException', onUncaught)
process.on('unhandledRejection', onUncaught)
t.teardown(() => {
  process.off('uncaughtException', onUncaught)
  process.off('unhandledRejection', onUncaught)
})

// ---------------------------------------------------------------------------------------------
// Requests and answers.

interface RequestSpec {
  /** The route it aims at, for grouping failures: `POST /v2/accounts`. */
  readonly route: string
  readonly method: string
  /** Path and query as sent. */
  readonly target: string
  readonly headers: readonly (readonly [string, string])[]
  readonly body: Buffer | undefined
  /** Send on a raw socket (GET with a body, header bytes fetch refuses, odd methods). */
  readonly raw: boolean
}

interface Answer {
  readonly status: number | null
  readonly headers: ReadonlyMap<string, string>
  readonly text: string
  readonly error: string | null
}

function describe(spec: RequestSpec): string {
  const body = spec.body === undefined ? '' : ` body(${spec.body.length} B)=${JSON.stringify(spec.body.subarray(0, 400).toString('utf8'))}`
  const headers = spec.headers.map(([name, value]) => `${name}: ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…(${value.length})` : value)}`).join('; ')
  const target = spec.target.length > 300 ? `${spec.target.slice(0, 300)}…(${spec.target.length})` : spec.target
  return `${spec.method} ${target} [${headers}]${body}${spec.raw ? ' (raw socket)' : ''}`
}

const fetchMethods = new Set(['GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS', 'HEAD'])

function needsRaw(method: string, headers: readonly (readonly [string, string])[], body: Buffer | undefined): boolean {
  if (!fetchMethods.has(method)) return true
  if ((method === 'GET' || method === 'HEAD') && body !== undefined) return true
  return headers.some(([name, value]) => /[^\t\x20-\x7e]/.test(value) || ['expect', 'transfer-encoding', 'connection', 'content-length', 'host'].includes(name))
}

/** The slowest requests, for the run's comment: where the time goes. */
const slowest: { ms: number; what: string }[] = []

async function send(spec: RequestSpec, timeoutMs = answerTimeoutMs): Promise<Answer> {
  const startedMs = performance.now()
  // A watchdog past the client's own timeout, so one lost answer can never stall a worker.
  let timer: NodeJS.Timeout | undefined
  const stalled = new Promise<Answer>((resolve) => { timer = setTimeout(() => resolve({ status: null, headers: new Map(), text: '', error: 'no answer (watchdog)' }), timeoutMs + 2_000) })
  const answer = await Promise.race([sendOnce(spec, timeoutMs), stalled])
  clearTimeout(timer)
  const ms = performance.now() - startedMs
  if (slowest.length < 8 || ms > slowest[slowest.length - 1].ms) {
    slowest.push({ ms, what: `${describe(spec).slice(0, 200)} → ${answer.status}` })
    slowest.sort((a, b) => b.ms - a.ms)
    slowest.length = Math.min(slowest.length, 8)
  }
  return answer
}

async function sendOnce(spec: RequestSpec, timeoutMs: number): Promise<Answer> {
  if (spec.raw) {
    const exchange: RawExchange = { method: spec.method, route: spec.target, headers: spec.headers, body: spec.body ?? Buffer.alloc(0), mode: 'answer', timeoutMs }
    const outcome = await rawExchange(baseUrl, exchange)
    return { status: outcome.status, headers: outcome.headers, text: outcome.text, error: outcome.status === null ? `no answer (${outcome.timedOut ? 'timed out' : outcome.closedEarly ? 'closed by the server' : outcome.error})` : null }
  }
  try {
    const response = await fetch(baseUrl + spec.target, {
      method: spec.method, headers: spec.headers.map(([name, value]) => [name, value]) as [string, string][],
      body: spec.body === undefined ? undefined : new Uint8Array(spec.body), signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await response.text()
    return { status: response.status, headers: new Map(response.headers), text, error: null }
  } catch (error) {
    return { status: null, headers: new Map(), text: '', error: `no answer (${String((error as Error).cause ?? error)})` }
  }
}

/** Problems of one answer, independent of state. */
function answerProblems(spec: RequestSpec, answer: Answer): string[] {
  if (answer.status === null) return [answer.error ?? 'no answer']
  const problems: string[] = []
  if (answer.status >= 500) problems.push(`status ${answer.status}`)
  if (answer.status < 200) problems.push(`status ${answer.status}`)
  // The service takes methods case-insensitively: `head` is answered as HEAD, without a body.
  if (spec.method.toUpperCase() === 'HEAD') return problems
  if (answer.status >= 300) {
    let body: unknown
    try { body = JSON.parse(answer.text) } catch { return [...problems, `non-2xx body is not JSON: ${JSON.stringify(answer.text.slice(0, 200))}`] }
    const problem = envelopeProblem(body)
    if (problem !== null) return [...problems, `not the error envelope: ${problem}`]
    const code = (body as { error: { code: string } }).error.code
    const entry = (errorCatalogue as Record<string, { status: number }>)[code]
    if (entry === undefined) problems.push(`code ${code} is not in src/errors.ts`)
    else if (entry.status !== answer.status) problems.push(`code ${code} has status ${entry.status} in src/errors.ts, answered ${answer.status}`)
    if (!/application\/json/.test(answer.headers.get('content-type') ?? '')) problems.push('error without content-type application/json')
  } else if (answer.status !== 204 && !spec.target.startsWith('/metrics')) {
    try { JSON.parse(answer.text) } catch { problems.push(`2xx body is not JSON: ${JSON.stringify(answer.text.slice(0, 200))}`) }
  }
  return problems
}

function mayChangeState(spec: RequestSpec, answer: Answer): boolean {
  if (answer.status === null || answer.status < 200 || answer.status >= 300) return false
  if (spec.method === 'GET' || spec.method === 'HEAD') return false
  return answer.headers.get('replayed') !== 'true'
}

/** One request with every check; returns whether it was recorded as failing. */
function record(worker: string, spec: RequestSpec, kind: string, detail: string): void {
  failures.push({ worker, kind, route: spec.route, detail: `${detail}\n      request: ${describe(spec)}` })
}

/** Per route: how many answers of each status and code, so a run shows what it reached (2xx included). */
const outcomes = new Map<string, Map<string, number>>()

function tally(spec: RequestSpec, answer: Answer): void {
  const route = spec.route.replace(/ \[.*\]$/, '')
  let code = String(answer.status ?? 'none')
  if (answer.status !== null && answer.status >= 300) {
    try { const e = JSON.parse(answer.text).error; code += ` ${e.code}${process.env.FUZZ_DETAIL === '1' && e.code === 'request_invalid' ? ` ${(e.details?.[0]?.path ?? '').replace(/\d+/g, 'N')} ${(e.details?.[0]?.message ?? '').slice(0, 30)}` : ''}` } catch { code += ' (not JSON)' }
  }
  const counts = outcomes.get(route) ?? new Map<string, number>()
  counts.set(code, (counts.get(code) ?? 0) + 1)
  outcomes.set(route, counts)
}

/** Time spent serializing state, for the run's comment. */
let stateMs = 0

class Checker {
  #baseline: string
  count = 0
  readonly #stateText: () => Promise<string>
  private constructor(readonly worker: string, stateText: () => Promise<string>, baseline: string) {
    this.#stateText = stateText
    this.#baseline = baseline
  }

  /** A checker whose baseline is the state now (read where it lives: test/support/probes.ts). */
  static async of(worker: string, stateText: () => Promise<string>): Promise<Checker> {
    return new Checker(worker, stateText, await stateText())
  }

  async stateText(): Promise<string> {
    const startedMs = performance.now()
    const text = await this.#stateText()
    stateMs += performance.now() - startedMs
    return text
  }

  async rebase(): Promise<void> { this.#baseline = await this.stateText() }

  /** Checks an answered (or unanswered) request against the state before it. */
  async check(spec: RequestSpec, answer: Answer, stateMayChange = mayChangeState(spec, answer)): Promise<void> {
    this.count++
    tally(spec, answer)
    for (const problem of answerProblems(spec, answer)) {
      record(this.worker, spec, problem.startsWith('no answer') ? 'no answer' : problem.replace(/\d+/g, 'N').slice(0, 60), `${problem}; answered ${answer.status} ${answer.text.slice(0, 300)}`)
    }
    const after = await this.stateText()
    if (!stateMayChange && after !== this.#baseline) {
      record(this.worker, spec, 'state changed by a rejection or read', `answered ${answer.status} ${answer.text.slice(0, 200)}; ${firstDifference(this.#baseline, after)}`)
    }
    this.#baseline = after
  }
}

// ---------------------------------------------------------------------------------------------
// Workspaces to aim at: accounts, entries, windows in every state, matches, and keys of each kind.

interface Pools {
  readonly workspace: string
  readonly keys: { all: string; restricted: string; readOnly: string; revoked: string }
  readonly accountIds: string[]
  readonly accountNames: string[]
  readonly entryIds: string[]
  readonly windowIds: string[]
  readonly matches: { window: string; match: string }[]
  readonly lineIds: string[]
  foreign: { accountIds: string[]; entryIds: string[]; windowIds: string[]; matchIds: string[] }
}

async function setUpWorkspace(workspace: string, timezone: string, bigEntries = 0): Promise<Pools> {
  const created = await adminCreateWorkspace(service, workspace, timezone)
  if (created.status !== 201) throw new Error(`creating ${workspace}: ${created.status} ${created.text}`)
  const all = (await adminCreateKey(service, workspace, scopesAll)).secret
  const restricted = (await adminCreateKey(service, workspace, scopesAll, ['assets:*'])).secret
  const readOnly = (await adminCreateKey(service, workspace, ['accounts:read', 'entries:read', 'recon:read'])).secret
  const revokedKey = await adminCreateKey(service, workspace, scopesAll)
  const revoked = await call(baseUrl, 'DELETE', `/admin/keys/${revokedKey.id}`, { key: adminToken })
  if (revoked.status !== 204) throw new Error(`revoking: ${revoked.status}`)
  const names = ['assets:bank', 'assets:cash', 'income:sales', 'expenses:fees', 'liabilities:card', `assets:${'x'.repeat(193)}`]
  const accounts = []
  for (const name of names) accounts.push(await createAccount(baseUrl, all, name, ['t']))
  const entryIds: string[] = []
  for (let day = 1; day <= 6; day++) {
    const entry = await postEntryOk(baseUrl, all, [{ account: 'assets:bank', amount: 100 * day }, { account: 'income:sales', amount: -100 * day }], { effective_at: `2024-01-0${day}T12:00:00Z`, description: `day ${day}`, metadata: { day: String(day) } })
    entryIds.push(entry.id)
  }
  entryIds.push((await postEntryOk(baseUrl, all, [{ account: 'assets:cash', amount: 5 }, { account: 'expenses:fees', amount: -5 }], { effective_at: '2024-02-10T12:00:00Z' })).id)
  entryIds.push((await postEntryOk(baseUrl, all, [{ account: 'expenses:fees', amount: 7 }, { account: 'liabilities:card', amount: -7 }], { effective_at: '2024-03-10T12:00:00Z' })).id)
  for (let i = 0; i < bigEntries; i++) {
    const lines = Array.from({ length: 1000 }, (_, index) => ({ account: index % 2 === 0 ? 'assets:cash' : 'income:sales', amount: index % 2 === 0 ? 1 : -1 }))
    entryIds.push((await postEntryOk(baseUrl, all, lines, { effective_at: '2023-06-01T00:00:00Z', description: 'd'.repeat(1000) })).id)
  }
  const open = await openWindowOk(baseUrl, all, { label: 'jan', accounts: ['assets:bank'], from: '2024-01-01', to: '2024-01-31', claimed_movement: 2100, statement_ref: 'stmt-1', tolerance: 5 })
  await addLinesOk(baseUrl, all, open.id, [1, 2, 3, 4].map((day) => ({ amount: 100 * day, date: `2024-01-0${day + 1}`, reference: `r${day}`, description: 'line' })))
  const matchOpen = await matchOk(baseUrl, all, open.id, { statement_lines: ['l1'], entries: [entryIds[0]], strategy: 'manual' })
  const abandoned = await openWindowOk(baseUrl, all, { label: 'feb', accounts: ['assets:cash'], from: '2024-02-01', to: '2024-02-29', claimed_movement: 5 })
  const abandonedReply = await patchWindow(baseUrl, all, abandoned.id, { state: 'abandoned', reason: 'fuzz set-up' })
  if (abandonedReply.status !== 200) throw new Error(`abandoning: ${abandonedReply.status} ${abandonedReply.text}`)
  const closed = await openWindowOk(baseUrl, all, { label: 'mar', accounts: ['expenses:fees', 'liabilities:card'], from: '2024-03-01', to: '2024-03-31', claimed_movement: 3 })
  await addLinesOk(baseUrl, all, closed.id, [{ amount: 3, date: '2024-03-15' }])
  const writeOff = await matchOk(baseUrl, all, closed.id, { statement_lines: ['l1'], strategy: 'write_off', reason: 'fees' })
  const closedReply = await patchWindow(baseUrl, all, closed.id, { state: 'closed', reason: 'fuzz set-up' })
  if (closedReply.status !== 200) throw new Error(`closing: ${closedReply.status} ${closedReply.text}`)
  return {
    workspace, keys: { all, restricted, readOnly, revoked: revokedKey.secret },
    accountIds: accounts.map((account) => account.id), accountNames: names, entryIds,
    windowIds: [open.id, abandoned.id, closed.id], matches: [{ window: open.id, match: matchOpen.id }, { window: closed.id, match: writeOff.id }],
    lineIds: ['l1', 'l2', 'l3', 'l4', 'l5'], foreign: { accountIds: [], entryIds: [], windowIds: [], matchIds: [] },
  }
}

const [rawPools, ...pools] = await Promise.all([setUpWorkspace('fz-raw', 'Europe/Berlin', 1), ...v2Workers.map((worker) => setUpWorkspace(worker.workspace, worker.timezone))])
for (const [index, pool] of [...pools, rawPools].entries()) {
  const other = pools[(index + 1) % pools.length]
  pool.foreign = { accountIds: other.accountIds, entryIds: other.entryIds, windowIds: other.windowIds, matchIds: other.matches.map((m) => m.match) }
}
for (const name of ['adm-a', 'adm-b']) {
  const created = await adminCreateWorkspace(service, name, 'Europe/Paris')
  if (created.status !== 201) throw new Error(`creating ${name}: ${created.status}`)
}
const adminKeyIds = [(await adminCreateKey(service, 'adm-a', ['accounts:read'])).id, (await adminCreateKey(service, 'adm-b', scopesAll)).id]

// ---------------------------------------------------------------------------------------------
// Value generators.

const edgeNumberTokens = [
  '9007199254740991', '-9007199254740991', '9007199254740992', '-9007199254740992', '9007199254740993', '1e308', '-1e308',
  '1e309', '-1e400', '-0', '-0.0', '0', '1.5', '-1.5', '1.0', '1e2', '1E2', '0.1e1', '100e-2', '5e-324', '1e-7',
  '123456789012345678901234567890', '4294967296', '-2147483649', '0.30000000000000004', '9007199254740991.0', '9.007199254740991e15',
]
const nastyStrings = [
  '', ' ', '1', '-1', '1.5', '9007199254740992', 'null', 'true', '\u0000', '\uD800', '\uDFFF', 'a\uD83D', '\uDE00b', '\u202Eabc',
  'שלום', 'مرحبا:حساب', '\u200F:\u200F', 'assets:\u200B', '😀', 'é', 'ｆｕｌｌ', 'a'.repeat(201), 'b'.repeat(5000),
  '../../etc/passwd', '<script>', "'; DROP TABLE x;--", '%00', '\r\n', '\t', 'assets:bank', 'assets:*', '__proto__', 'constructor',
  'toString', 'assets:bank ', ' assets:bank', 'ASSETS:BANK', 'assets::bank', 'assets', ':', 'a:b:c:d:e:f',
]
const edgeNumber = fc.constantFrom(...edgeNumberTokens).map((text) => new RawJson(text))
const deepValues = [deepJson(10_000, 'array'), deepJson(10_000, 'object'), deepJson(2_000, 'array'), deepJson(200, 'object')]
const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: edgeNumber },
  { weight: 5, arbitrary: fc.constantFrom(...nastyStrings) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 3, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [1, 2], { a: 1 }, [null], [[]]) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
)
/** Rare: deep nesting costs the server real work, and the crash it finds is one class, reported once is enough. */
const rareDeep = fc.constantFrom(...deepValues)

const amountArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: -1_000_000, max: 1_000_000 }) },
  { weight: 2, arbitrary: fc.constantFrom(0, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1, -1) },
  { weight: 2, arbitrary: edgeNumber },
  { weight: 1, arbitrary: nastyValue },
)
const isoDate = fc.date({ min: new Date('1969-12-01T00:00:00Z'), max: new Date('2031-01-01T00:00:00Z'), noInvalidDate: true })
const timestampArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: isoDate.map((date) => date.toISOString()) },
  { weight: 1, arbitrary: isoDate.map((date) => date.toISOString().replace('Z', '+14:00').replace('.000', '')) },
  {
    weight: 4, arbitrary: fc.constantFrom(
      '2024-01-01T00:00:00Z', '2024-01-01T00:00:00+14:00', '2024-01-01T00:00:00-12:00', '2024-01-01T00:00:00+25:00', '2024-01-01T24:00:00Z',
      '2024-12-31T23:59:60Z', '1970-01-01T00:00:00.000Z', '0000-01-01T00:00:00Z', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z',
      '+275760-09-13T00:00:00Z', '2024-01-01t00:00:00z', '2024-01-01 00:00:00Z', '2024-01-01T00:00:00.123456789Z', '2024-01-01T00:00:00',
      '2024-02-30T00:00:00Z', '2023-02-29T12:00:00Z', '2024-02-29T12:00:00Z', '2024-03-31T02:30:00+02:00', 'now', '', '2024-01-01',
      '2024-01-01T00:00:00.Z', '2024-01-01T00:00Z', '1e308', '-0', '2024-W01', '2024-001T00:00:00Z', '\u202E2024-01-01T00:00:00Z',
      `2024-01-01T00:00:00.${'9'.repeat(60)}Z`,
    ),
  },
)
const dateArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 10, arbitrary: fc.date({ min: new Date('2023-11-01T00:00:00Z'), max: new Date('2024-05-01T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10)) },
  {
    weight: 3, arbitrary: fc.constantFrom<unknown>(
      '2024-02-29', '2023-02-29', '2024-13-01', '2024-00-10', '2024-01-32', '0000-01-01', '0001-01-01', '9999-12-31', '+002024-01-01',
      '2024-1-1', '2024-01-01T00:00:00Z', '20240101', '2030-01-01', '2100-12-31', '', '2024/01/01', '٢٠٢٤-٠١-٠١', '2024-01-01\u0000',
      new RawJson('20240101'), null,
    ),
  },
  { weight: 1, arbitrary: nastyValue },
)
const shortText = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom(...nastyStrings), fc.string({ unit: 'binary', maxLength: 20 }))

function v2Arbitrary(pool: Pools): fc.Arbitrary<RequestSpec> {
  const accountRef = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...pool.accountNames) },
    { weight: 5, arbitrary: fc.constantFrom(...pool.accountIds) },
    { weight: 1, arbitrary: fc.constantFrom(...pool.foreign.accountIds) },
    { weight: 1, arbitrary: fc.stringMatching(/^[a-z]{1,6}:[a-z0-9_.-]{1,10}$/) },
    { weight: 1, arbitrary: nastyValue },
  )
  const newName = fc.oneof(
    { weight: 4, arbitrary: fc.stringMatching(/^(assets|income|expenses|zz)(:[A-Za-z0-9_.-]{1,12}){1,3}$/) },
    { weight: 1, arbitrary: fc.constantFrom(...pool.accountNames, `assets:${'y'.repeat(193)}`, `assets:${'y'.repeat(194)}`) },
    { weight: 2, arbitrary: nastyValue },
  )
  const garbageId = fc.oneof(
    fc.constantFrom('x', '0', 'acc_', 'ent_', 'rec_', 'mat_', 'l1', 'a'.repeat(1500), '%', '%zz', '%ED%A0%80', '%00', '%E2%80%AE', '..', '.',
      '%2F', 'null', 'undefined', '-1', '1e308', '%F0%9F%98%80', '%2e%2e'),
    fc.string({ maxLength: 16 }).map(percentEncode),
    fc.string({ unit: 'binary', maxLength: 12 }).map(percentEncode),
  )
  const idOf = (own: string[], foreign: string[]) => fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...own) },
    { weight: 1, arbitrary: fc.constantFrom(...foreign) },
    { weight: 2, arbitrary: garbageId },
  )
  const accountPathId = fc.oneof({ weight: 3, arbitrary: idOf(pool.accountIds, pool.foreign.accountIds) }, { weight: 2, arbitrary: fc.constantFrom(...pool.accountNames).map(percentEncode) })
  const entryPathId = idOf(pool.entryIds, pool.foreign.entryIds)
  const windowPathId = idOf(pool.windowIds, pool.foreign.windowIds)
  const matchPath = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...pool.matches).map(({ window, match }) => [window, match] as const) },
    { weight: 2, arbitrary: fc.tuple(windowPathId, fc.oneof(fc.constantFrom(...pool.matches.map((m) => m.match), ...pool.foreign.matchIds), garbageId)) },
  )
  const queryValue = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('1', '2', '1000', '1001', '0', '-1', '1.5', '', 'abc', '1e3', '0x10', ' 1', '9007199254740993', '100000000000000000000', 'open', 'balanced', 'closed', 'abandoned', 'matched', 'unmatched', 'OPEN') },
    { weight: 2, arbitrary: timestampArb },
    { weight: 2, arbitrary: accountRef.map((value) => (typeof value === 'string' ? value : jsonText(value))) },
    { weight: 1, arbitrary: fc.constantFrom(...pool.windowIds, ...pool.foreign.windowIds) },
    { weight: 1, arbitrary: fc.constantFrom('MC4x', 'MTAwMDAwMDAwMDAwMDAwMDAwMC4x', '!!!', 'x'.repeat(600), 'LTEuLTE', 'OTAwNzE5OTI1NDc0MDk5My4x') },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  )
  const queryNames = fc.constantFrom('limit', 'cursor', 'at', 'from', 'to', 'account', 'reconciliation', 'state', 'status', 'x', 'limit', 'account')
  const query = fc.array(fc.tuple(queryNames, queryValue, fc.boolean()), { maxLength: 4 }).map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([name, value, raw]) => `${name}=${raw ? value.replace(/[^\x21-\x7e]|[#&]/g, '') : percentEncode(value)}`).join('&')}`))
  const tags = fc.oneof(fc.array(fc.oneof(fc.string({ minLength: 1, maxLength: 10 }), fc.constantFrom('', 'x'.repeat(101), 'x'.repeat(100))), { maxLength: 4 }), fc.constant(Array.from({ length: 51 }, (_, i) => `t${i}`)))
  const line = fc.record({ account: accountRef, amount: amountArb })
  const balancedLines = fc.tuple(accountRef, accountRef, amountArb).map(([a, b, amount]) => [{ account: a, amount }, { account: b, amount: typeof amount === 'number' ? -amount : amount }])
  const entryBody = fc.record({
    lines: fc.oneof({ weight: 4, arbitrary: balancedLines }, { weight: 2, arbitrary: fc.array(line, { maxLength: 5 }) }),
    effective_at: fc.option(timestampArb, { nil: undefined }),
    description: fc.option(fc.oneof(shortText, fc.constant(null), fc.constant('d'.repeat(1001))), { nil: undefined }),
    metadata: fc.option(fc.oneof(fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }), fc.constant(null)), { nil: undefined }),
  }, { requiredKeys: ['lines'] })
  const windowBody = fc.record({
    label: fc.oneof(shortText, fc.constantFrom('l'.repeat(200), 'l'.repeat(201))),
    accounts: fc.array(accountRef, { minLength: 1, maxLength: 3 }),
    window: fc.record({ from: dateArb, to: dateArb }),
    claimed_movement: amountArb,
    statement_ref: fc.option(fc.oneof(shortText, fc.constant(null)), { nil: undefined }),
    tolerance: fc.option(amountArb, { nil: undefined }),
  }, { requiredKeys: ['label', 'accounts', 'window', 'claimed_movement'] })
  const transitionBody = fc.record({
    state: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('closed', 'abandoned', 'open', 'balanced', 'CLOSED', 'closed ') }, { weight: 1, arbitrary: nastyValue }),
    reason: fc.option(fc.oneof(shortText, fc.constant(null), fc.constantFrom('r'.repeat(500), 'r'.repeat(501))), { nil: undefined }),
  })
  const statementLine = fc.record({
    amount: amountArb, date: dateArb,
    reference: fc.option(fc.oneof(shortText, fc.constant(null)), { nil: undefined }),
    description: fc.option(fc.oneof(shortText, fc.constant(null)), { nil: undefined }),
  }, { requiredKeys: ['amount', 'date'] })
  const linesBody = fc.record({ lines: fc.array(statementLine, { maxLength: 5 }) })
  const lineId = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...pool.lineIds) }, { weight: 1, arbitrary: fc.constantFrom('l0', 'l-1', 'L1', 'l01', 'l9007199254740993', '', 'x') })
  const entryId = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...pool.entryIds) }, { weight: 1, arbitrary: fc.constantFrom(...pool.foreign.entryIds) }, { weight: 1, arbitrary: fc.constantFrom('ent_', '', 'x') })
  const matchBody = fc.record({
    statement_lines: fc.array(lineId, { maxLength: 4 }),
    entries: fc.option(fc.array(entryId, { maxLength: 3 }), { nil: undefined }),
    strategy: fc.oneof({ weight: 5, arbitrary: fc.constantFrom('amount_and_date', 'manual', 'write_off') }, { weight: 1, arbitrary: nastyValue }),
    reason: fc.option(fc.oneof(shortText, fc.constant(null), fc.constantFrom('r'.repeat(500), 'r'.repeat(501))), { nil: undefined }),
  }, { requiredKeys: ['statement_lines', 'strategy'] })
  const csvCell = fc.oneof(fc.constantFrom('2024-01-05', '100', '-100', '9007199254740992', '1.5', '', '"quoted, comma"', '"unterminated', '\u202E', 'x'.repeat(600)), fc.string({ maxLength: 8 }))
  const csvBody = fc.tuple(
    fc.constantFrom('date,amount,reference,description', 'DATE,Amount,reference,description', 'amount,date', 'date,amount,extra', 'date,date,amount', '', '\uFEFFdate,amount'),
    fc.array(fc.array(csvCell, { minLength: 1, maxLength: 5 }), { maxLength: 5 }),
    fc.constantFrom('\n', '\r\n', '\r'),
  ).map(([header, rows, newline]) => new RawJson([header, ...rows.map((row) => row.join(','))].join(newline)))

  type Core = { route: string; method: string; path: string; body?: unknown; csv?: boolean }
  const core: fc.Arbitrary<Core> = fc.oneof(
    { weight: 3, arbitrary: query.map((q) => ({ route: 'GET /v2/accounts', method: 'GET', path: `/v2/accounts${q}` })) },
    { weight: 4, arbitrary: fc.record({ name: newName, tags: fc.option(tags, { nil: undefined }) }, { requiredKeys: ['name'] }).map((body) => ({ route: 'POST /v2/accounts', method: 'POST', path: '/v2/accounts', body })) },
    { weight: 3, arbitrary: accountPathId.map((id) => ({ route: 'GET /v2/accounts/:id', method: 'GET', path: `/v2/accounts/${id}` })) },
    { weight: 3, arbitrary: fc.tuple(accountPathId, fc.record({ name: newName, tags }, { requiredKeys: [] })).map(([id, body]) => ({ route: 'PATCH /v2/accounts/:id', method: 'PATCH', path: `/v2/accounts/${id}`, body })) },
    { weight: 3, arbitrary: fc.tuple(accountPathId, query).map(([id, q]) => ({ route: 'GET /v2/accounts/:id/balance', method: 'GET', path: `/v2/accounts/${id}/balance${q}` })) },
    { weight: 3, arbitrary: query.map((q) => ({ route: 'GET /v2/entries', method: 'GET', path: `/v2/entries${q}` })) },
    { weight: 6, arbitrary: entryBody.map((body) => ({ route: 'POST /v2/entries', method: 'POST', path: '/v2/entries', body })) },
    { weight: 3, arbitrary: entryPathId.map((id) => ({ route: 'GET /v2/entries/:id', method: 'GET', path: `/v2/entries/${id}` })) },
    { weight: 3, arbitrary: query.map((q) => ({ route: 'GET /v2/reconciliations', method: 'GET', path: `/v2/reconciliations${q}` })) },
    { weight: 6, arbitrary: windowBody.map((body) => ({ route: 'POST /v2/reconciliations', method: 'POST', path: '/v2/reconciliations', body })) },
    { weight: 3, arbitrary: windowPathId.map((id) => ({ route: 'GET /v2/reconciliations/:id', method: 'GET', path: `/v2/reconciliations/${id}` })) },
    { weight: 4, arbitrary: fc.tuple(windowPathId, transitionBody).map(([id, body]) => ({ route: 'PATCH /v2/reconciliations/:id', method: 'PATCH', path: `/v2/reconciliations/${id}`, body })) },
    { weight: 4, arbitrary: fc.tuple(windowPathId, linesBody).map(([id, body]) => ({ route: 'POST /v2/reconciliations/:id/lines', method: 'POST', path: `/v2/reconciliations/${id}/lines`, body })) },
    { weight: 2, arbitrary: fc.tuple(windowPathId, csvBody).map(([id, body]) => ({ route: 'POST /v2/reconciliations/:id/lines (csv)', method: 'POST', path: `/v2/reconciliations/${id}/lines`, body, csv: true })) },
    { weight: 3, arbitrary: fc.tuple(windowPathId, query).map(([id, q]) => ({ route: 'GET /v2/reconciliations/:id/lines', method: 'GET', path: `/v2/reconciliations/${id}/lines${q}` })) },
    { weight: 5, arbitrary: fc.tuple(windowPathId, matchBody).map(([id, body]) => ({ route: 'POST /v2/reconciliations/:id/matches', method: 'POST', path: `/v2/reconciliations/${id}/matches`, body })) },
    { weight: 3, arbitrary: fc.tuple(windowPathId, query).map(([id, q]) => ({ route: 'GET /v2/reconciliations/:id/matches', method: 'GET', path: `/v2/reconciliations/${id}/matches${q}` })) },
    { weight: 3, arbitrary: matchPath.map(([window, match]) => ({ route: 'DELETE /v2/reconciliations/:id/matches/:match_id', method: 'DELETE', path: `/v2/reconciliations/${window}/matches/${match}` })) },
    { weight: 2, arbitrary: windowPathId.map((id) => ({ route: 'GET /v2/reconciliations/:id/history', method: 'GET', path: `/v2/reconciliations/${id}/history` })) },
    { weight: 1, arbitrary: fc.constantFrom('/healthz', '/healthz?x=1', '/healthz/').map((path) => ({ route: 'GET /healthz', method: 'GET', path })) },
    { weight: 1, arbitrary: fc.constantFrom('/metrics', '/metrics?x=1', '/v2/openapi.json', '/v2/openapi.json?x=%zz').map((path) => ({ route: `GET ${path.split('?')[0]}`, method: 'GET', path })) },
    {
      weight: 2, arbitrary: fc.tuple(fc.constantFrom('DELETE', 'PUT', 'PATCH', 'POST', 'OPTIONS', 'HEAD', 'GET'), fc.constantFrom(
        '/v2/entries/ID', '/v2/accounts/ID/balance', '/v2/webhooks', '/v2/webhooks/wh_1', '/v2', '/v2/', '/v1/accounts', '/', '/v2/accounts/x/y/z',
        '/v2//accounts', '/v2/accounts//balance', '/V2/accounts', '/v2/accounts/', '/v2/reconciliations/ID/matches/', '/healthz', '/admin', '/v2/accounts?',
        '/v2/reconciliations/ID/lines/l1', '/%76%32/accounts', '/v2/accounts/%2F/balance',
      ), fc.option(nastyValue, { nil: undefined })).map(([method, path, body]) => ({ route: 'other method/path', method, path: path.replace('ID', pool.entryIds[0]), body })),
    },
  )

  const key = pool.keys
  const authorization = fc.oneof(
    { weight: 24, arbitrary: fc.constant(`Bearer ${key.all}`) },
    { weight: 2, arbitrary: fc.constant(`Bearer ${key.restricted}`) },
    { weight: 2, arbitrary: fc.constant(`Bearer ${key.readOnly}`) },
    { weight: 1, arbitrary: fc.constant(`Bearer ${key.revoked}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 3, arbitrary: fc.constantFrom('', 'Bearer', 'Bearer ', `Bearer  ${key.all}`, `bearer ${key.all}`, `BEARER ${key.all}`, `Basic ${Buffer.from(`u:${key.all}`).toString('base64')}`,
        `Bearer ${key.all} extra`, `Bearer ${key.all}\t`, `Token ${key.all}`, `Bearer ${'x'.repeat(600)}`, `Bearer ${'x'.repeat(2000)}`, `Bearer ${key.all.slice(0, -1)}`,
        `Bearer ${adminToken}`, 'Bearer null', key.all, `Bearer ${key.all}é`, `Bearer é${key.all}`, `Bearer\t${key.all}`, `Bearer ${key.all},Bearer ${key.all}`),
    },
  )
  const idempotencyKey = fc.oneof(
    { weight: 8, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: fc.constantFrom('fz-a', 'fz-b', 'fz-c') },
    { weight: 2, arbitrary: fc.constantFrom('', ' ', 'k'.repeat(255), 'k'.repeat(256), ' lead', 'trail ', 'in side', 'tab\tin', 'é', 'k\u007f', 'ok\u00ff', 'x'.repeat(2000)) },
    // Control characters in header values are left to the protocol subtest below: uWS never answers them.
    { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 40 }).map((text) => text.replace(/[\x00-\x08\x0a-\x1f]/g, '')) },
  )
  const contentType = fc.oneof(
    { weight: 12, arbitrary: fc.constant('application/json') },
    { weight: 2, arbitrary: fc.constant(undefined) },
    {
      weight: 3, arbitrary: fc.constantFrom('text/csv', 'TEXT/CSV', 'text/csv; charset=utf-8', 'application/json; charset=utf-8', 'application/json; charset=utf-16', 'text/plain',
        'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'text/json', 'application/csv', '*/*', ';', 'c'.repeat(2000), ''),
    },
  )
  const extraHeaders = fc.array(fc.tuple(fc.constantFrom('x-request-id', 'request-id', 'accept', 'accept-encoding', 'x-forwarded-for', 'cookie', 'if-match', 'content-encoding', 'range', 'x-idempotency-key'), fc.constantFrom('1', '', 'gzip', '*/*', 'bytes=0-1', '100-continue', 'x'.repeat(300), 'identity', 'r'.repeat(128), 'r'.repeat(129), 'é\u00ff')), { maxLength: 2 })
  const mutation: fc.Arbitrary<Mutation> = fc.record({
    kind: fc.constantFrom('set', 'set', 'delete', 'add'),
    pick: fc.nat(1000),
    key: fc.constantFrom('extra', '__proto__', 'constructor', 'lines', 'name', 'amount', '', 'state', 'id'),
    value: fc.oneof({ weight: 400, arbitrary: nastyValue }, { weight: 1, arbitrary: rareDeep }),
  })
  const encoding = fc.oneof(
    { weight: 60, arbitrary: fc.constant('json') },
    { weight: 3, arbitrary: fc.nat(10_000).map((cut) => `truncate:${cut}`) },
    { weight: 2, arbitrary: fc.constantFrom('trailing-garbage', 'empty', 'bom', 'invalid-utf8', 'utf16', 'whitespace', 'null', 'second-document', 'nul-byte') },
  )
  return fc.record({
    // Half the bodies go out as generated (reaching the ledger's own rules), half mutated.
    core, authorization, idempotencyKey, contentType, extraHeaders, mutations: fc.oneof(fc.constant([]), fc.array(mutation, { minLength: 1, maxLength: 3 })), encoding,
    bodyless: fc.nat(40), rawMethod: fc.nat(200),
  }).map(({ core, authorization, idempotencyKey, contentType, extraHeaders, mutations, encoding, bodyless, rawMethod }) => {
    const headers: [string, string][] = []
    if (authorization !== undefined) headers.push(['authorization', authorization])
    if (idempotencyKey !== undefined && (core.method === 'POST' || bodyless === 0)) headers.push(['idempotency-key', idempotencyKey])
    let body: Buffer | undefined
    if (core.body !== undefined) {
      const value = core.csv === true ? core.body : mutate(core.body, mutations)
      body = encodeBody(value instanceof RawJson ? value.text : jsonText(value), encoding)
      const type = core.csv === true ? 'text/csv' : contentType
      if (type !== undefined) headers.push(['content-type', type])
    } else if (bodyless === 1 && core.method === 'GET') {
      body = Buffer.from('{"unexpected":"body"}')
    }
    for (const header of extraHeaders) headers.push(header)
    const target = capHead(core.path, headers)
    let method = core.method
    if (rawMethod === 0) method = 'FOO'
    else if (rawMethod === 1) method = core.method.toLowerCase()
    return { route: core.route, method, target, headers, body, raw: needsRaw(method, headers, body) }
  })
}

/**
 * uWS answers 431 past 4 KiB of request line and headers: that is the protocol subtest's case, not the
 * generated requests'. Shortens the longest header values until the head fits in 3,000 bytes.
 */
function capHead(target: string, headers: [string, string][]): string {
  // A long query is cut (a cut escape is one more malformed input); paths stay below this on their own.
  const capped = target.length > 2_200 ? target.slice(0, 2_200) : target
  const size = () => capped.length + headers.reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0)
  for (let round = 0; round < headers.length && size() > 3_000; round++) {
    const longest = headers.reduce((best, header, index) => (header[1].length > headers[best][1].length ? index : best), 0)
    headers[longest] = [headers[longest][0], headers[longest][1].slice(0, 200)]
  }
  return capped
}

function encodeBody(text: string, encoding: string): Buffer {
  if (encoding.startsWith('truncate:')) return Buffer.from(text.slice(0, Number(encoding.slice(9)) % Math.max(1, text.length)))
  switch (encoding) {
    case 'trailing-garbage': return Buffer.from(`${text}}garbage`)
    case 'empty': return Buffer.alloc(0)
    case 'bom': return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])
    case 'invalid-utf8': return Buffer.from(text.replace(/"([^"]{0,3})/, '"$1\u0001')).map((byte) => (byte === 1 ? 0xff : byte)) as Buffer
    case 'utf16': return Buffer.from(text, 'utf16le')
    case 'whitespace': return Buffer.from(` \n\t${text}\r\n `)
    case 'null': return Buffer.from('null')
    case 'second-document': return Buffer.from(`${text}\n${text}`)
    case 'nul-byte': return Buffer.concat([Buffer.from(text), Buffer.from([0])])
    default: return Buffer.from(text)
  }
}

// ---------------------------------------------------------------------------------------------
// The admin API.

function adminArbitrary(): fc.Arbitrary<RequestSpec> {
  const workspaceId = fc.oneof(
    { weight: 4, arbitrary: fc.stringMatching(/^fzadm-[a-z0-9]{1,8}$/) },
    { weight: 2, arbitrary: fc.constantFrom('adm-a', 'adm-b', 'x'.repeat(64), 'x'.repeat(65)) },
    { weight: 2, arbitrary: nastyValue },
  )
  const pathWorkspace = fc.oneof(fc.constantFrom('adm-a', 'adm-b', 'nope', '%', '%ED%A0%80', 'x'.repeat(2000)), fc.string({ maxLength: 10 }).map(percentEncode))
  const timezone = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('UTC', 'Europe/Berlin', 'America/St_Johns', 'Asia/Kathmandu', 'Pacific/Kiritimati', 'Pacific/Apia', 'Etc/GMT-14', 'utc', 'EUROPE/BERLIN', 'US/Eastern', 'EST5EDT') },
    { weight: 2, arbitrary: fc.constantFrom('Foo/Bar', '', '+02:00', '-05:00', 'Europe/../etc', 'Z', 'GMT+2', 'x'.repeat(65), 'Europe/Berlin\u0000', '\u202EUTC') },
    { weight: 1, arbitrary: nastyValue },
  )
  const perMinute = fc.oneof(fc.integer({ min: 1, max: 100_000_000 }), fc.constantFrom<unknown>(0, -1, 100_000_001, 1.5, '600', null), edgeNumber)
  const limits = fc.record({ writes_per_minute: perMinute, reads_per_minute: perMinute }, { requiredKeys: [] })
  const scopeList = fc.array(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...scopesAll) }, { weight: 1, arbitrary: nastyValue }), { maxLength: 18 })
  const keyId = fc.oneof(fc.constantFrom(...adminKeyIds, 'key_', 'nope', '%', 'x'.repeat(2000)), fc.string({ maxLength: 12 }).map(percentEncode))
  type Core = { route: string; method: string; path: string; body?: unknown }
  const core: fc.Arbitrary<Core> = fc.oneof(
    { weight: 3, arbitrary: fc.record({ id: workspaceId, timezone, limits: fc.option(limits, { nil: undefined }) }, { requiredKeys: ['id', 'timezone'] }).map((body) => ({ route: 'POST /admin/workspaces', method: 'POST', path: '/admin/workspaces', body })) },
    { weight: 3, arbitrary: fc.tuple(pathWorkspace, fc.record({ timezone, limits }, { requiredKeys: [] })).map(([id, body]) => ({ route: 'PATCH /admin/workspaces/:id', method: 'PATCH', path: `/admin/workspaces/${id}`, body })) },
    {
      weight: 3, arbitrary: fc.record({
        workspace: fc.oneof(fc.constantFrom('adm-a', 'adm-b', 'nope'), nastyValue), scopes: scopeList,
        accounts: fc.option(fc.oneof(fc.array(fc.oneof(fc.constantFrom('assets:*', 'assets:bank', '*', ':*', 'a'.repeat(201)), nastyValue), { maxLength: 3 }), fc.constant(null)), { nil: undefined }),
        name: fc.option(fc.oneof(shortText, fc.constant(null), fc.constant('n'.repeat(201))), { nil: undefined }),
      }, { requiredKeys: ['workspace', 'scopes'] }).map((body) => ({ route: 'POST /admin/keys', method: 'POST', path: '/admin/keys', body })),
    },
    { weight: 2, arbitrary: keyId.map((id) => ({ route: 'DELETE /admin/keys/:id', method: 'DELETE', path: `/admin/keys/${id}` })) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'), fc.constantFrom('/admin/', '/admin/workspaces', '/admin/keys', '/admin/workspaces/adm-a/keys', '/admin/x', '/admin//keys')).map(([method, path]) => ({ route: 'other admin', method, path })) },
  )
  const authorization = fc.oneof(
    { weight: 12, arbitrary: fc.constant(`Bearer ${adminToken}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.constantFrom('', 'Bearer', `Bearer ${adminToken}x`, `Bearer ${adminToken.slice(1)}`, `Basic ${adminToken}`, `bearer ${adminToken}`, `Bearer ${pools[0].keys.all}`, `Bearer ${'t'.repeat(2000)}`, adminToken) },
  )
  const mutation: fc.Arbitrary<Mutation> = fc.record({
    kind: fc.constantFrom('set', 'delete', 'add'), pick: fc.nat(1000), key: fc.constantFrom('extra', '__proto__', 'limits', 'scopes', 'junk'),
    value: fc.oneof({ weight: 300, arbitrary: nastyValue }, { weight: 1, arbitrary: rareDeep }),
  })
  const encoding = fc.oneof({ weight: 30, arbitrary: fc.constant('json') }, { weight: 2, arbitrary: fc.constantFrom('truncate:7', 'trailing-garbage', 'empty', 'invalid-utf8', 'null', 'utf16') })
  return fc.record({ core, authorization, mutations: fc.array(mutation, { maxLength: 2 }), encoding }).map(({ core, authorization, mutations, encoding }) => {
    const headers: [string, string][] = []
    if (authorization !== undefined) headers.push(['authorization', authorization])
    let body: Buffer | undefined
    if (core.body !== undefined) {
      body = encodeBody(jsonText(mutate(core.body, mutations)), encoding)
      headers.push(['content-type', 'application/json'])
    }
    const target = capHead(core.path, headers)
    return { route: core.route, method: core.method, target, headers, body, raw: needsRaw(core.method, headers, body) }
  })
}

/** 2xx admin answers carry only the contract's limit fields: unknown request fields must not be stored. */
function adminAnswerProblems(spec: RequestSpec, answer: Answer): string[] {
  if (answer.status === null || answer.status >= 300 || answer.status < 200 || !spec.route.includes('workspaces')) return []
  try {
    const limits = JSON.parse(answer.text).limits
    const keys = Object.keys(limits ?? {}).sort()
    if (keys.join(',') !== 'reads_per_minute,writes_per_minute') return [`workspace limits stored with fields ${JSON.stringify(keys).slice(0, 200)}`]
  } catch {
    return []
  }
  return []
}

// ---------------------------------------------------------------------------------------------
// Misbehaving clients: truncated, slow, vanishing. Each one is a generated request too.

type Misbehaviour = { kind: 'truncated'; extra: number; halfClose: boolean } | { kind: 'abort-mid-body'; cut: number } | { kind: 'slow'; pieces: number; delayMs: number } | { kind: 'abort-after-request' } | { kind: 'abort-on-first-byte' } | { kind: 'chunked'; pieces: number }

function rawArbitrary(pool: Pools): fc.Arbitrary<{ spec: RequestSpec; misbehaviour: Misbehaviour }> {
  const bigList = fc.constantFrom('/v2/entries?limit=1000', `/v2/entries/${pool.entryIds[pool.entryIds.length - 1]}`, '/v2/accounts?limit=1000').map((target): RequestSpec => ({
    route: `GET ${target.replace(/ent_\w+/, ':id')}`, method: 'GET', target, headers: [['authorization', `Bearer ${pool.keys.all}`]], body: undefined, raw: true,
  }))
  const misbehaviour: fc.Arbitrary<Misbehaviour> = fc.oneof(
    fc.record({ kind: fc.constant('truncated' as const), extra: fc.integer({ min: 1, max: 5000 }), halfClose: fc.boolean() }),
    fc.record({ kind: fc.constant('abort-mid-body' as const), cut: fc.nat(100_000) }),
    fc.record({ kind: fc.constant('slow' as const), pieces: fc.integer({ min: 2, max: 8 }), delayMs: fc.integer({ min: 1, max: 25 }) }),
    fc.record({ kind: fc.constant('abort-after-request' as const) }),
    fc.record({ kind: fc.constant('abort-on-first-byte' as const) }),
    fc.record({ kind: fc.constant('chunked' as const), pieces: fc.integer({ min: 1, max: 5 }) }),
  )
  return fc.tuple(fc.oneof({ weight: 4, arbitrary: v2Arbitrary(pool) }, { weight: 1, arbitrary: bigList }), misbehaviour).map(([spec, misbehaviour]) => ({ spec: { ...spec, raw: true }, misbehaviour }))
}

function chunkedBody(body: Buffer, pieces: number): Buffer {
  const parts: Buffer[] = []
  const size = Math.max(1, Math.ceil(body.length / pieces))
  for (let offset = 0; offset < body.length; offset += size) {
    const piece = body.subarray(offset, offset + size)
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'))
  }
  parts.push(Buffer.from('0\r\n\r\n'))
  return Buffer.concat(parts)
}

async function runMisbehaving(checker: Checker, spec: RequestSpec, misbehaviour: Misbehaviour): Promise<void> {
  const body = spec.body ?? Buffer.alloc(0)
  const base = { method: spec.method, route: spec.target, headers: spec.headers, body, timeoutMs: answerTimeoutMs }
  let exchange: RawExchange
  // Whether the request reached the server whole: only then may an unanswered write have applied.
  let complete = true
  let expectAnswer = false
  switch (misbehaviour.kind) {
    case 'truncated':
      exchange = { ...base, declaredLength: body.length + misbehaviour.extra, mode: misbehaviour.halfClose ? 'half-close' : 'destroy-after-request' }
      // A route that reads no body (every DELETE) acts once the head is in: the body it declares is not awaited.
      complete = spec.method.toUpperCase() === 'DELETE'
      break
    case 'abort-mid-body':
      if (body.length < 2) return runMisbehaving(checker, spec, { kind: 'abort-after-request' })
      exchange = { ...base, mode: 'destroy-mid-body', cutAt: 1 + (misbehaviour.cut % (body.length - 1)) }
      complete = false
      break
    case 'slow':
      exchange = { ...base, mode: 'answer', pieces: misbehaviour.pieces, delayMs: misbehaviour.delayMs }
      expectAnswer = true
      break
    case 'abort-after-request':
      exchange = { ...base, mode: 'destroy-after-request' }
      break
    case 'abort-on-first-byte':
      exchange = { ...base, mode: 'destroy-on-first-byte' }
      break
    case 'chunked':
      exchange = { ...base, headers: [...spec.headers, ['transfer-encoding', 'chunked']], declaredLength: null, body: chunkedBody(body, misbehaviour.pieces), mode: 'answer' }
      break
  }
  const outcome = await rawExchange(baseUrl, exchange)
  // Let the server finish whatever the vanished client started before the state is compared: a round
  // trip through its event loop after the client left.
  if (outcome.status === null) await healthy()
  const headers = exchange.headers.map(([name, value]) => [name, String(value)] as const)
  const label: RequestSpec = { ...spec, route: `${spec.route} [${misbehaviour.kind}]`, headers }
  const answer: Answer = { status: outcome.status, headers: outcome.headers, text: outcome.text, error: outcome.status === null ? `no answer (${outcome.timedOut ? 'timed out' : outcome.closedEarly ? 'closed' : outcome.error ?? 'client left'})` : null }
  if (answer.status !== null) return await checker.check(label, answer)
  if (expectAnswer || (misbehaviour.kind === 'chunked' && outcome.timedOut)) return await checker.check(label, answer)
  // No answer, by design of the client: state may change only if the whole request arrived.
  await checker.check(label, { ...answer, status: 299, text: '{}' }, complete && spec.method !== 'GET')
}

// ---------------------------------------------------------------------------------------------
// The runs.

async function healthy(): Promise<boolean> {
  try {
    const reply = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(answerTimeoutMs) })
    return reply.status === 200 && (await reply.json()).status === 'ok'
  } catch {
    return false
  }
}

let healthFailures = 0

/** FUZZ_PROGRESS=1 prints each worker's count and current request every 5 s, to find a stall. */
if (process.env.FUZZ_PROGRESS === '1') {
  const timer = setInterval(async () => {
    process.stderr.write(`[fuzz] log ${await logStates(service.service)}; uncaught ${uncaught.length} ${uncaught.join(' | ').slice(0, 3000)}\n`)
    for (const [name, { count, current }] of progress) process.stderr.write(`[fuzz] ${name}: ${count} ${current.slice(0, 300)}\n`)
  }, 5_000)
  timer.unref()
}

async function runWorker<T>(name: string, seed: number, runs: number, arbitrary: fc.Arbitrary<T>, step: (value: T) => Promise<void>): Promise<number> {
  let count = 0
  await fc.assert(fc.asyncProperty(arbitrary, async (value) => {
    progress.set(name, { count, current: JSON.stringify(value, (key, item) => (item?.type === 'Buffer' ? Buffer.from(item.data).toString('utf8').slice(0, 200) : item)) ?? '' })
    await step(value)
    count++
    if (count % 250 === 0 && !(await healthy())) healthFailures++
  }), { seed, numRuns: runs, endOnFailure: true })
  t.comment(`${name}: ${count} generated requests (seed ${seed})`)
  return count
}

const startedMs = Date.now()
const checkers = await Promise.all(pools.map((pool) => Checker.of(pool.workspace, () => workspaceState(service.service, pool.workspace))))
const adminChecker = await Checker.of('admin', () => systemState(service.service))
const rawChecker = await Checker.of('fz-raw', () => workspaceState(service.service, 'fz-raw'))

const counts = await Promise.all([
  ...pools.map((pool, index) => runWorker(pool.workspace, seedBase + index, v2RunsPerWorker, v2Arbitrary(pool), async (spec) => {
    await checkers[index].check(spec, await send(spec))
  })),
  runWorker('admin', seedBase + 100, adminRuns, adminArbitrary(), async (spec) => {
    const answer = await send(spec)
    await adminChecker.check(spec, answer)
    for (const problem of adminAnswerProblems(spec, answer)) record('admin', spec, 'unknown fields stored', `${problem}; answered ${answer.status} ${answer.text.slice(0, 300)}`)
  }),
  runWorker('misbehaving clients', seedBase + 200, rawRuns, rawArbitrary(rawPools), async ({ spec, misbehaviour }) => runMisbehaving(rawChecker, spec, misbehaviour)),
])
const generated = counts.reduce((sum, count) => sum + count, 0)
for (const [route, counts] of [...outcomes.entries()].sort(([a], [b]) => a.localeCompare(b))) {
  const total = [...counts.values()].reduce((sum, count) => sum + count, 0)
  const top = [...counts.entries()].sort(([, a], [, b]) => b - a).slice(0, 6).map(([code, count]) => `${code}: ${count}`).join(', ')
  t.comment(`${route}: ${total} (${top})`)
}
for (const { ms, what } of slowest) t.comment(`slow: ${ms.toFixed(0)} ms ${what}`)
for (const checker of [...checkers, adminChecker, rawChecker]) {
  const startedMs = performance.now()
  const size = (await checker.stateText()).length
  t.comment(`state of ${checker.worker}: ${size} characters, serialized in ${(performance.now() - startedMs).toFixed(1)} ms`)
}
const cpu = process.cpuUsage()
t.comment(`state serialization ${(stateMs / 1000).toFixed(1)} s; process cpu user ${(cpu.user / 1e6).toFixed(1)} s system ${(cpu.system / 1e6).toFixed(1)} s`)
t.comment(`generated requests: ${generated} in ${((Date.now() - startedMs) / 1000).toFixed(1)} s (v2 ${counts.slice(0, pools.length).join(' + ')}, admin ${counts[pools.length]}, misbehaving clients ${counts[pools.length + 1]})`)

// ---------------------------------------------------------------------------------------------
// Deep JSON on every route with a body, with and without an Idempotency-Key: JSON.parse takes nesting
// of 10,000; nothing after it may recurse on the value. Each case gets a fresh workspace of its own, so
// the cases run at once and each state comparison still belongs to one request.

/** A workspace with two accounts, an entry and an open window with a line: enough for every body route. */
async function smallWorkspace(id: string): Promise<{ key: string; accountId: string; windowId: string; entryId: string }> {
  const created = await adminCreateWorkspace(service, id, 'UTC')
  if (created.status !== 201) throw new Error(`creating ${id}: ${created.status} ${created.text}`)
  const key = (await adminCreateKey(service, id, scopesAll)).secret
  const account = await createAccount(baseUrl, key, 'assets:bank')
  await createAccount(baseUrl, key, 'income:sales')
  const entry = await postEntryOk(baseUrl, key, [{ account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -5 }], { effective_at: '2024-01-02T12:00:00Z' })
  const window = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2024-01-01', to: '2024-01-31', claimed_movement: 5 })
  await addLinesOk(baseUrl, key, window.id, [{ amount: 5, date: '2024-01-02' }])
  return { key, accountId: account.id, windowId: window.id, entryId: entry.id }
}

/** Each deep request is answered in milliseconds when it is answered at all. */
const deepTimeoutMs = 1_500

t.test('deep JSON (nesting 10,000) on every body route is answered, never crashes', async (t) => {
  const deep = deepJson(10_000, 'array').text
  const deepObject = deepJson(10_000, 'object').text
  type Case = (ids: { accountId: string; windowId: string; entryId: string }) => [string, string, string, string]
  const v2Cases: Case[] = [
    () => ['POST', '/v2/accounts', `{"name":"assets:deep","tags":${deep}}`, 'in a field'],
    () => ['POST', '/v2/accounts', `{"name":"assets:deep","unknown":${deepObject}}`, 'in an unknown field'],
    ({ accountId }) => ['PATCH', `/v2/accounts/${accountId}`, `{"tags":${deep}}`, 'in a field'],
    () => ['POST', '/v2/entries', `{"lines":${deep}}`, 'in a field'],
    () => ['POST', '/v2/entries', `{"lines":[{"account":"assets:bank","amount":1},{"account":"income:sales","amount":-1}],"metadata":${deepObject}}`, 'in metadata'],
    () => ['POST', '/v2/entries', deep, 'as the whole body'],
    () => ['POST', '/v2/reconciliations', `{"label":"d","accounts":["income:sales"],"window":{"from":"2023-01-01","to":"2023-01-31","x":${deep}},"claimed_movement":0}`, 'in a nested unknown field'],
    ({ windowId }) => ['PATCH', `/v2/reconciliations/${windowId}`, `{"state":${deep}}`, 'in a field'],
    ({ windowId }) => ['POST', `/v2/reconciliations/${windowId}/lines`, `{"lines":[{"amount":1,"date":"2024-01-02","x":${deepObject}}]}`, 'in an unknown field'],
    ({ windowId }) => ['POST', `/v2/reconciliations/${windowId}/matches`, `{"statement_lines":${deep},"strategy":"manual"}`, 'in a field'],
    ({ windowId, entryId }) => ['POST', `/v2/reconciliations/${windowId}/matches`, `{"statement_lines":["l1"],"entries":["${entryId}"],"strategy":"amount_and_date","x":${deepObject}}`, 'in an unknown field'],
  ]
  const before = failures.length
  const variants = v2Cases.flatMap((makeCase, index) => [false, true].map((withKey) => ({ makeCase, index, withKey })))
  const counted = await Promise.all(variants.map(async ({ makeCase, index, withKey }) => {
    const workspace = `deep-${index}-${withKey ? 'k' : 'n'}`
    const ids = await smallWorkspace(workspace)
    const [method, target, body, where] = makeCase(ids)
    if (withKey && method !== 'POST') return 0
    const headers: [string, string][] = [['authorization', `Bearer ${ids.key}`], ['content-type', 'application/json']]
    if (withKey) headers.push(['idempotency-key', `deep-${index}`])
    const spec: RequestSpec = { route: `${method} ${target.replace(/(acc|rec)_\w+/, ':id')} deep ${where}${withKey ? ' + Idempotency-Key' : ''}`, method, target, headers, body: Buffer.from(body), raw: false }
    const checker = await Checker.of(workspace, () => workspaceState(service.service, workspace))
    await checker.check(spec, await send(spec, deepTimeoutMs))
    return 1
  }))
  let count = counted.reduce((sum: number, one) => sum + one, 0)
  // The admin API shares one system state: one request at a time.
  const adminBodies: [string, string, string, string][] = [
    ['POST', '/admin/workspaces', `{"id":"deep-ws","timezone":"UTC","x":${deep}}`, 'in an unknown field'],
    ['POST', '/admin/workspaces', `{"id":"deep-ws2","timezone":"UTC","limits":{"writes_per_minute":5,"reads_per_minute":5,"x":${deep}}}`, 'in an unknown field of limits'],
    ['PATCH', '/admin/workspaces/adm-a', `{"limits":{"x":${deepObject}}}`, 'in an unknown field of limits'],
    ['POST', '/admin/keys', `{"workspace":"adm-a","scopes":${deep}}`, 'in a field'],
  ]
  for (const [method, target, body, where] of adminBodies) {
    const spec: RequestSpec = { route: `${method} ${target} deep ${where}`, method, target, headers: [['authorization', `Bearer ${adminToken}`], ['content-type', 'application/json']], body: Buffer.from(body), raw: false }
    await adminChecker.rebase()
    const answer = await send(spec, deepTimeoutMs)
    await adminChecker.check(spec, answer)
    for (const problem of adminAnswerProblems(spec, answer)) record('admin', spec, 'unknown fields stored', problem)
    count++
  }
  t.comment(`deep JSON: ${count} requests`)
  const found = failures.slice(before)
  for (const failure of found) t.fail(`${failure.route}: ${failure.kind}\n      ${failure.detail.slice(0, 700)}`)
  t.equal(found.length, 0, 'every deep request answered without a crash, a 5xx or a state change')
  t.ok(await healthy(), '/healthz still answers')
})

// ---------------------------------------------------------------------------------------------
// Protocol-level abuse, below the routes: what the HTTP parser does with bytes a client should not send.
// A well-formed request gets the error envelope; malformed framing may get any 4xx or a closed connection,
// but never a crash. Some bytes never reach our code: uWS's own parser answers them (`parser`), and the
// expected answer is pinned here so a uWS upgrade that changes it is noticed (docs/API.md, "Below the
// API"). A header value with a control character makes uWS stop reading the request without an answer;
// the socket is then closed by uWS's idle timeout (about 10 s), so those cases wait up to 13 s.

t.test('protocol-level abuse is answered or closed at once, and the service stays up', async (t) => {
  const key = pools[0].keys.all
  const auth: [string, string] = ['authorization', `Bearer ${key}`]
  const cases: { name: string; exchange: RawExchange; wellFormed: boolean; parser?: number | 'idle-close' }[] = [
    { name: 'control character 0x01 in a custom header', wellFormed: false, exchange: { method: 'GET', route: '/v2/accounts', headers: [auth, ['x-note', 'a\u0001b']], body: Buffer.alloc(0), mode: 'answer', timeoutMs: 13_000 }, parser: 'idle-close' },
    { name: 'control character 0x02 in Idempotency-Key', wellFormed: false, exchange: { method: 'POST', route: '/v2/accounts', headers: [auth, ['content-type', 'application/json'], ['idempotency-key', 'k\u0002']], body: Buffer.from('{"name":"assets:ctl"}'), mode: 'answer', timeoutMs: 13_000 }, parser: 'idle-close' },
    { name: 'control character 0x1f in Authorization', wellFormed: false, exchange: { method: 'GET', route: '/v2/accounts', headers: [['authorization', `Bearer ${key}\u001f`]], body: Buffer.alloc(0), mode: 'answer', timeoutMs: 13_000 }, parser: 'idle-close' },
    { name: 'NUL in a header value', wellFormed: false, exchange: { method: 'GET', route: '/v2/accounts', headers: [auth, ['x-note', 'a\u0000b']], body: Buffer.alloc(0), mode: 'answer', timeoutMs: 13_000 }, parser: 'idle-close' },
    { name: 'Authorization of 8,000 bytes (headers over 4 KiB)', wellFormed: true, exchange: { method: 'GET', route: '/v2/accounts', headers: [['authorization', `Bearer ${'x'.repeat(8000)}`]], body: Buffer.alloc(0), mode: 'answer', timeoutMs: 2_000 }, parser: 431 },
    { name: 'Idempotency-Key of 5,000 bytes', wellFormed: true, exchange: { method: 'POST', route: '/v2/accounts', headers: [auth, ['content-type', 'application/json'], ['idempotency-key', 'k'.repeat(5000)]], body: Buffer.from('{"name":"assets:big-key"}'), mode: 'answer', timeoutMs: 2_000 }, parser: 431 },
    { name: 'expect: 100-continue (a client that waits for it)', wellFormed: true, exchange: { method: 'POST', route: '/v2/accounts', headers: [auth, ['content-type', 'application/json'], ['expect', '100-continue']], body: Buffer.from('{"name":"assets:expect-continue"}'), mode: 'answer', timeoutMs: 2_000 } },
    { name: 'expect with an unknown expectation', wellFormed: true, exchange: { method: 'GET', route: '/v2/accounts', headers: [auth, ['expect', 'bytes=0-1']], body: Buffer.alloc(0), mode: 'answer', timeoutMs: 2_000 } },
    { name: 'expect empty', wellFormed: true, exchange: { method: 'GET', route: '/v2/accounts', headers: [auth, ['expect', '']], body: Buffer.alloc(0), mode: 'answer', timeoutMs: 2_000 } },
    { name: 'a raw non-ASCII byte in the request target (leniency allowed)', wellFormed: true, exchange: { method: 'GET', route: '/v2/accounts?x=\u00e9', headers: [auth], body: Buffer.alloc(0), mode: 'answer', timeoutMs: 2_000 } },
    { name: 'transfer-encoding neither chunked nor identity', wellFormed: false, exchange: { method: 'POST', route: '/v2/accounts', headers: [auth, ['transfer-encoding', 'gzip']], body: Buffer.from('{"name":"assets:te"}'), mode: 'answer', timeoutMs: 2_000 } },
    { name: 'content-length and transfer-encoding both', wellFormed: false, exchange: { method: 'POST', route: '/v2/accounts', headers: [auth, ['transfer-encoding', 'chunked']], body: Buffer.from('0\r\n\r\n'), mode: 'answer', timeoutMs: 2_000 } },
    { name: 'negative content-length', wellFormed: false, exchange: { method: 'POST', route: '/v2/accounts', headers: [auth], declaredLength: -1, body: Buffer.alloc(0), mode: 'answer', timeoutMs: 2_000 } },
    { name: 'content-length 2^64', wellFormed: false, exchange: { method: 'POST', route: '/v2/accounts', headers: [auth], declaredLength: 18446744073709551616, body: Buffer.alloc(0), mode: 'half-close', timeoutMs: 2_000 } },
    { name: 'an absolute-form target', wellFormed: false, exchange: { method: 'GET', route: `${baseUrl}/v2/accounts`, headers: [auth], body: Buffer.alloc(0), mode: 'answer', timeoutMs: 2_000 }, parser: 505 },
    { name: 'a target of 20,000 bytes', wellFormed: false, exchange: { method: 'GET', route: `/v2/accounts/${'a'.repeat(20_000)}`, headers: [auth], body: Buffer.alloc(0), mode: 'answer', timeoutMs: 2_000 } },
  ]
  const outcomes = await Promise.all(cases.map(async ({ exchange }) => {
    const startedMs = Date.now()
    return { outcome: await rawExchange(baseUrl, exchange), ms: Date.now() - startedMs }
  }))
  for (const [index, { name, wellFormed, parser, exchange }] of cases.entries()) {
    const { outcome, ms } = outcomes[index]
    const what = `${name}: answered ${outcome.status} ${outcome.text.slice(0, 120)} in ${ms} ms${outcome.closedEarly ? ' (closed)' : ''}${outcome.timedOut ? ' (no answer, socket held open)' : ''}`
    t.notOk(outcome.timedOut, `${what}: answered or closed within ${exchange.timeoutMs} ms`)
    if (parser === 'idle-close') {
      t.equal(outcome.status, null, `${what}: uWS's parser drops it unanswered and closes the socket`)
      continue
    }
    if (parser !== undefined) {
      t.equal(outcome.status, parser, `${what}: uWS's parser answers ${parser} before our code runs`)
      continue
    }
    if (outcome.status !== null) {
      t.ok(outcome.status < 500, `${what}: not a 5xx`)
      if (!wellFormed) t.ok(outcome.status >= 400, `${what}: malformed, so a 4xx`)
      if (wellFormed && outcome.status >= 300) t.equal(envelopeProblem(outcome.body), null, `${what}: the error envelope`)
    }
  }
  t.ok(await healthy(), '/healthz still answers')
})

t.test('every generated request kept the properties', async (t) => {
  t.ok(generated >= 10_000 * Math.min(1, scale), `at least ${10_000 * Math.min(1, scale)} generated requests (${generated})`)
  const classes = new Map<string, Failure[]>()
  for (const failure of failures.filter((f) => !f.route.includes(' deep '))) {
    const name = `${failure.route} — ${failure.kind}`
    classes.set(name, [...(classes.get(name) ?? []), failure])
  }
  for (const [name, members] of classes) {
    t.fail(`${name} (${members.length}×, seed ${seedBase})\n      ${members.slice(0, 2).map((member) => `[${member.worker}] ${member.detail.slice(0, 900)}`).join('\n      ')}`)
  }
  t.equal(classes.size, 0, `no failing class of requests (seed ${seedBase})`)
  t.equal(healthFailures, 0, '/healthz answered 200 throughout')
})

t.test('afterwards the service still answers and works', async (t) => {
  t.ok(await healthy(), '/healthz 200')
  const reply = await call(baseUrl, 'GET', '/v2/accounts?limit=5', { key: pools[0].keys.all })
  t.equal(reply.status, 200, 'a read still works')
  const write = await call(baseUrl, 'POST', '/v2/accounts', { key: pools[0].keys.all, body: { name: `assets:after-${Date.now()}` } })
  t.equal(write.status, 201, 'a write still works')
})

t.test('the service stops cleanly afterwards (drain, flush, snapshots)', async (t) => {
  const error = await service.stop().then(() => null, (caught: unknown) => caught as Error)
  t.equal(error === null ? null : String(error.stack ?? error).slice(0, 800), null, 'stop() resolves')
})

t.test('no uncaught exception in the process', async (t) => {
  for (const error of uncaught.slice(0, 5)) t.fail(`uncaught: ${error}`)
  t.equal(uncaught.length, 0, `uncaught exceptions: ${uncaught.length} (seed ${seedBase})`)
})

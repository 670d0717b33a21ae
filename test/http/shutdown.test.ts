/**
 * SIGTERM under write load, on a real child process: every request sent on a kept-alive connection gets
 * an HTTP answer (2xx, or 503 while shutting down), the process prints what it flushed and exits 0, and
 * every write answered 2xx is there after a restart.
 */
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { listAll } from '../support/api.ts'
import { killHard, startProcess, type RunningProcess } from '../support/process.ts'
import { call } from '../support/service.ts'

// Each test starts a service (four shards in npm test's second run), which on a loaded CI machine takes
// tens of seconds: tap's default 120 s per file was met with 90-105 s at load 17.
t.setTimeout(300_000)

const connectionsCount = 40
const adminToken = 'shutdown-admin-token'

interface Outcome {
  readonly status: number | null
  /** The connection error, when no answer came (ECONNRESET, ECONNREFUSED, socket hang up …). */
  readonly error: string | null
  readonly entryId: string | null
  /** Whether the request went out on a connection that had carried a request before. */
  readonly reused: boolean
}

/** One POST /v2/entries on the worker's own kept-alive connection. */
function postEntry(baseUrl: string, agent: http.Agent, key: string, amount: number): Promise<Outcome> {
  const body = JSON.stringify({ lines: [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }] })
  return new Promise((resolve) => {
    const request = http.request(`${baseUrl}/v2/entries`, {
      method: 'POST', agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        const entryId = response.statusCode === 201 ? (JSON.parse(text) as { id: string }).id : null
        resolve({ status: response.statusCode ?? null, error: null, entryId, reused: request.reusedSocket })
      })
      response.on('error', (error) => resolve({ status: null, error: error.message, entryId: null, reused: request.reusedSocket }))
    })
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ status: null, error: error.code ?? error.message, entryId: null, reused: request.reusedSocket }))
    request.end(body)
  })
}

/** Writes until the service says it is going away (503) or cannot be reached any more. */
async function writer(baseUrl: string, key: string, index: number, outcomes: Outcome[]): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  try {
    for (let sent = 0; ; sent++) {
      const outcome = await postEntry(baseUrl, agent, key, 1 + index * 100_000 + sent)
      outcomes.push(outcome)
      if (outcome.status !== 201) return
    }
  } finally {
    agent.destroy()
  }
}

async function startOn(dataDir: string): Promise<RunningProcess> {
  // LOG_LEVEL=warn: the per-request lines are not what this test reads.
  return startProcess({ dataDir, adminToken, env: { LOG_LEVEL: 'warn' } })
}

t.test('SIGTERM under write load: answers, a shutdown line, exit 0, and every 2xx write after restart', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-shutdown-'))
  const running: RunningProcess[] = []
  t.teardown(async () => {
    for (const child of running) await killHard(child)
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  const first = await startOn(dataDir)
  running.push(first)
  const key = first.apiKey ?? ''
  const limits = { writes_per_minute: 10_000_000, reads_per_minute: 10_000_000 }
  t.equal((await call(first.baseUrl, 'PATCH', '/admin/workspaces/default', { key: adminToken, body: { limits } })).status, 200)
  for (const name of ['assets:bank', 'income:sales']) t.equal((await call(first.baseUrl, 'POST', '/v2/accounts', { key, body: { name } })).status, 201)

  const outcomes: Outcome[] = []
  const writers = Array.from({ length: connectionsCount }, (_, index) => writer(first.baseUrl, key, index, outcomes))
  // SIGTERM once every connection carries writes (each worker has had at least one answer).
  while (outcomes.filter((outcome) => outcome.status === 201).length < connectionsCount * 3) await new Promise((done) => setTimeout(done, 5))
  first.child.kill('SIGTERM')
  await Promise.all(writers)
  const exit = await first.exited

  const created = outcomes.filter((outcome) => outcome.status === 201)
  const unavailable = outcomes.filter((outcome) => outcome.status === 503)
  // A refused connection carried no request: the listen socket closes at SIGTERM, and a writer whose last
  // answer said Connection: close has to open a new one. Anything else without an answer is a lost reply.
  const lost = outcomes.filter((outcome) => outcome.status === null && outcome.error !== 'ECONNREFUSED')
  t.same(lost.map((outcome) => `${outcome.error}${outcome.reused ? ' (reused connection)' : ''}`), [], 'no request sent went unanswered')
  t.same(outcomes.filter((outcome) => outcome.status !== null && outcome.status !== 201 && outcome.status !== 503), [], 'every answer is 201 or 503')
  t.ok(created.length >= connectionsCount * 3, `${created.length} writes answered 201, ${unavailable.length} answered 503`)
  t.same(exit, { code: 0, signal: null }, 'the process exits 0')
  const shutdownLine = first.stdout.find((line) => /^trueup stopped:/.test(line))
  t.ok(shutdownLine !== undefined, `a shutdown line is printed (${shutdownLine})`)
  t.match(shutdownLine ?? '', /last durable seq \d+/, 'it names the last durable seq')
  t.match(shutdownLine ?? '', /\d+ log records flushed/, 'and the records flushed while stopping')

  const second = await startOn(dataDir)
  running.push(second)
  const entries = await listAll(second.baseUrl, key, '/v2/entries', 1000)
  const ids = new Set(entries.items.map((entry: { id: string }) => entry.id))
  const missing = created.filter((outcome) => !ids.has(outcome.entryId ?? ''))
  t.equal(missing.length, 0, `every write answered 201 is there after the restart (${created.length} checked)`)
})

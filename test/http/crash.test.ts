/**
 * kill -9 durability (docs/RELIABILITY.md) against a real process: concurrent writers, SIGKILL mid-load, restart on the
 * same data dir. Every acknowledged entry must be there exactly once; an unacknowledged one may or may not be.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import type { Asserts } from '../support/api.ts'
import { killHard, startProcess, type RunningProcess, requestJson as request } from '../support/process.ts'

const adminToken = 'x'
const writersCount = 8
const loadMs = 1500
const postsPerWriterMax = 5000
const rounds = 3
const accountNames = ['assets:bank', 'assets:cash', 'income:sales', 'expenses:rent']
// Small snapshot interval, so a snapshot may be written while the load runs and the replay reads it.
const env = { SNAPSHOT_COMMANDS_INTERVAL: '100' }

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-crash-'))
const live: RunningProcess[] = []
t.teardown(async () => {
  for (const running of live) await killHard(running)
  fs.rmSync(dataDir, { recursive: true, force: true })
})

interface Attempt {
  readonly round: number
  readonly lines: { account: string; amount: number }[]
  readonly effective_at: string
}

/** Every entry ever attempted, by its unique description. */
const attempts = new Map<string, Attempt>()
/** Every acknowledged (201) entry: id → the body of the 201. */
const acknowledged = new Map<string, any>()

/** Deterministic per writer, so a failing run can be reasoned about. */
function makeRandom(seed: number): (n: number) => number {
  let state = seed
  return (n) => {
    state = (state * 1103515245 + 12345) % 2 ** 31
    return state % n
  }
}

function planEntry(random: (n: number) => number): Omit<Attempt, 'round'> {
  const first = random(accountNames.length)
  const second = (first + 1 + random(accountNames.length - 1)) % accountNames.length
  const amount = 1 + random(1_000_000)
  const others = accountNames.filter((_, index) => index !== first && index !== second)
  const lines = random(4) === 0 && amount > 1
    ? [{ account: accountNames[first], amount }, { account: accountNames[second], amount: -amount + 1 }, { account: others[random(others.length)], amount: -1 }]
    : [{ account: accountNames[first], amount }, { account: accountNames[second], amount: -amount }]
  // Back-dated up to 30 days, to the millisecond, so entries land all over each account's history.
  const effective_at = new Date(Date.now() - random(30 * 86_400_000)).toISOString()
  return { lines, effective_at }
}

interface LoadReport {
  readonly acknowledged: number
  readonly unexpected: string[]
}

/** Runs the writers until killed or out of time; kills the process after killAfterMs. */
async function loadAndKill(running: RunningProcess, key: string, round: number, killAfterMs: number): Promise<LoadReport> {
  let killed = false
  let count = 0
  const unexpected: string[] = []
  const deadlineMs = Date.now() + loadMs
  const writer = async (writerIndex: number) => {
    const random = makeRandom(round * 1000 + writerIndex + 1)
    for (let i = 0; i < postsPerWriterMax && !killed && Date.now() < deadlineMs; i++) {
      const description = `round${round}-writer${writerIndex}-${i}`
      const plan = planEntry(random)
      attempts.set(description, { round, ...plan })
      let reply: { status: number; body: any }
      try {
        reply = await request(running.baseUrl, key, 'POST', '/v2/entries', { ...plan, description })
      } catch {
        if (!killed) unexpected.push(`${description}: the request failed before the kill`)
        return
      }
      if (reply.status === 201) {
        acknowledged.set(reply.body.id, reply.body)
        count++
      } else {
        unexpected.push(`${description}: ${reply.status} ${JSON.stringify(reply.body)}`)
      }
    }
  }
  const killer = (async () => {
    await new Promise((resolve) => setTimeout(resolve, killAfterMs))
    killed = true
    await killHard(running)
  })()
  await Promise.all([...Array.from({ length: writersCount }, (_, i) => writer(i)), killer])
  return { acknowledged: count, unexpected }
}

async function listEntries(baseUrl: string, key: string): Promise<any[]> {
  const entries: any[] = []
  let cursor: string | null = null
  for (let page = 0; page < 1000; page++) {
    const route: string = `/v2/entries?limit=1000${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`
    const reply = await request(baseUrl, key, 'GET', route)
    if (reply.status !== 200) throw new Error(`listing entries: ${reply.status}`)
    entries.push(...reply.body.data)
    cursor = reply.body.next_cursor
    if (cursor === null) return entries
  }
  throw new Error('more than 1000 pages of entries')
}

/** Checks the recovered ledger against what was acknowledged and attempted. */
async function verify(t: Tap, running: RunningProcess, key: string, label: string): Promise<void> {
  const entries = await listEntries(running.baseUrl, key)
  const byId = new Map<string, any>()
  const descriptions = new Set<string>()
  let problems = 0
  const problem = (message: string) => {
    if (problems++ < 20) t.fail(`${label}: ${message}`)
  }
  for (const entry of entries) {
    if (byId.has(entry.id)) problem(`entry ${entry.id} is listed twice`)
    byId.set(entry.id, entry)
    const attempt = attempts.get(entry.description)
    if (attempt === undefined) {
      problem(`entry ${entry.id} (${entry.description}) was never posted`)
      continue
    }
    if (descriptions.has(entry.description)) problem(`the post ${entry.description} is in the ledger twice`)
    descriptions.add(entry.description)
    const lines = entry.lines.map(({ account, amount }: { account: string; amount: number }) => ({ account, amount }))
    if (JSON.stringify(lines) !== JSON.stringify(attempt.lines)) problem(`entry ${entry.id} has other lines than posted`)
    if (entry.effective_at !== attempt.effective_at) problem(`entry ${entry.id} has another effective_at than posted`)
  }
  let missing = 0
  for (const [id, body] of acknowledged) {
    const found = byId.get(id)
    if (found === undefined) {
      missing++
      problem(`acknowledged entry ${id} (${body.description}) is missing`)
    } else if (JSON.stringify(found) !== JSON.stringify(body)) {
      problem(`acknowledged entry ${id} differs from its 201: ${JSON.stringify(found)} vs ${JSON.stringify(body)}`)
    }
  }
  t.equal(missing, 0, `${label}: all ${acknowledged.size} acknowledged entries are present`)
  const unacknowledged = entries.filter((entry) => !acknowledged.has(entry.id))
  t.ok(unacknowledged.length <= writersCount * rounds, `${label}: ${unacknowledged.length} unacknowledged entries survived, at most one in flight per writer and round`)

  // A sample read one by one: GET /v2/entries/:id agrees with the list.
  const sample = [...acknowledged.keys()].filter((_, index) => index % 25 === 0).slice(0, 200)
  for (const id of sample) {
    const reply = await request(running.baseUrl, key, 'GET', `/v2/entries/${id}`)
    if (reply.status !== 200 || JSON.stringify(reply.body) !== JSON.stringify(acknowledged.get(id))) problem(`GET /v2/entries/${id}: ${reply.status}`)
  }

  const farFuture = encodeURIComponent(new Date(Date.now() + 365 * 86_400_000).toISOString())
  let total = 0
  for (const name of accountNames) {
    const reply = await request(running.baseUrl, key, 'GET', `/v2/accounts/${encodeURIComponent(name)}/balance?at=${farFuture}`)
    const expected = entries.flatMap((entry) => entry.lines).filter((line) => line.account === name).reduce((sum, line) => sum + line.amount, 0)
    t.equal(reply.body?.balance, expected, `${label}: ${name} equals the sum of its recovered lines`)
    total += reply.body?.balance ?? NaN
  }
  t.equal(total, 0, `${label}: the books sum to zero`)
  t.equal(problems, 0, `${label}: no inconsistencies`)
}

type Tap = Asserts & { ok(value: any, message: string): unknown; fail(message: string): unknown; same(found: any, wanted: any, message: string): unknown }

t.test('kill -9 under load loses no acknowledged write', async (t) => {
  let running = await startProcess({ dataDir, adminToken, env })
  live.push(running)
  const key = running.apiKey
  if (key === null) throw new Error(`no API key printed at first start: ${running.stdout.join(' | ')}`)
  const limits = await fetch(`${running.baseUrl}/admin/workspaces/default`, {
    method: 'PATCH', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ limits: { writes_per_minute: 100_000_000, reads_per_minute: 100_000_000 } }),
  })
  t.equal(limits.status, 200, 'rate limits raised for the load')
  for (const name of accountNames) t.equal((await request(running.baseUrl, key, 'POST', '/v2/accounts', { name })).status, 201, `created ${name}`)

  for (let round = 1; round <= rounds; round++) {
    const report = await loadAndKill(running, key, round, 500 + round * 250)
    t.ok(report.acknowledged > 0, `round ${round}: ${report.acknowledged} entries acknowledged before the kill`)
    t.same(report.unexpected.slice(0, 10), [], `round ${round}: no failures before the kill`)
    t.ok(running.child.signalCode === 'SIGKILL', `round ${round}: the process died of SIGKILL`)
    running = await startProcess({ dataDir, adminToken, env })
    live.push(running)
    t.equal(running.apiKey, null, `round ${round}: the restart is not a first start`)
    await verify(t, running, key, `after kill ${round}`)
    const accounts = await request(running.baseUrl, key, 'GET', '/v2/accounts')
    t.same(accounts.body.data.map((a: { name: string }) => a.name).sort(), [...accountNames].sort(), `round ${round}: the accounts are there`)
  }

  // A clean stop after all that: SIGTERM flushes and exits 0 (README.md, Configuration), and nothing is lost either.
  const after = await request(running.baseUrl, key, 'POST', '/v2/entries', { lines: [{ account: 'assets:bank', amount: 1 }, { account: 'assets:cash', amount: -1 }], description: 'final' })
  t.equal(after.status, 201)
  attempts.set('final', { round: rounds + 1, lines: [{ account: 'assets:bank', amount: 1 }, { account: 'assets:cash', amount: -1 }], effective_at: after.body.effective_at })
  acknowledged.set(after.body.id, after.body)
  running.child.kill('SIGTERM')
  const exit = await running.exited
  t.same(exit, { code: 0, signal: null }, 'SIGTERM exits 0')
  running = await startProcess({ dataDir, adminToken, env })
  live.push(running)
  await verify(t, running, key, 'after SIGTERM')
})

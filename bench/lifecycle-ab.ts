/**
 * @module Two builds' request path without HTTP, in one process: the lifecycle (src/api/lifecycle.ts) of each dist/ over its own
 * in-process shard, driven with the same reads and keyed writes, CPU per request from process.cpuUsage. On a machine shared
 * with other work this moves far less than an HTTP row (no sockets, no load generator, no scheduling of a child process), so
 * it shows differences of a few µs that the HTTP rows cannot; it leaves out what HTTP itself costs (uWS, the abort watch).
 */
// Run: BENCH_AB_DISTS=/path/a/dist,/path/b/dist node --import=tsx bench/lifecycle-ab.ts    (both built; run under a dir with node_modules)
//   BENCH_AB_REQUESTS (50,000 per round and kind), BENCH_AB_ROUNDS (5, alternating; the lowest kept), BENCH_AB_IN_FLIGHT (64 requests run per turn)
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const dists = (process.env.BENCH_AB_DISTS ?? '').split(',').filter((dist) => dist !== '').map((dist) => path.resolve(dist))
if (dists.length === 0) throw new Error('BENCH_AB_DISTS: comma-separated dist/ dirs')
const requests = Number(process.env.BENCH_AB_REQUESTS ?? 50_000)
const rounds = Number(process.env.BENCH_AB_ROUNDS ?? 5)
const inFlight = Number(process.env.BENCH_AB_IN_FLIGHT ?? 64)
const accountsCount = 100

interface Request { readonly method: string; readonly path: string; readonly headers: Map<string, string>; readonly query: string; readonly body?: { value: unknown } }
interface Subject { readonly dist: string; run(request: Request, done: () => void): void; durable(): Promise<void>; close(): Promise<void> }

/** One dist's lifecycle over a fresh log with one workspace, one key and `accountsCount` accounts. */
async function subjectOf(dist: string, index: number): Promise<{ subject: Subject; secret: string }> {
  const load = (file: string) => import(path.join(dist, file))
  const [{ CommandLog }, { Runtime }, { LocalShard }, { Lifecycle }, { v2Surface }, { createKeyCommand, newKeySecret }, { limitsDefault, scopes }] = await Promise.all([
    load('log/command-log.js'), load('actor/runtime.js'), load('shard/local-shard.js'), load('api/lifecycle.js'), load('api/surfaces.js'), load('api/admin-routes.js'), load('ledger/system.js'),
  ])
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `trueup-lifecycle-ab-${index}-`))
  const log = new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 8192, pendingRecordsMax: 100_000 })
  const runtime = new Runtime(log, 100_000_000)
  runtime.replay(() => Date.now())
  const shard = new LocalShard(runtime, (error: Error) => { throw error })
  runtime.submitSystem({ type: 'workspace.create', at_ms: Date.now(), id: 'w', time_zone: 'UTC', limits: limitsDefault, tag: `abtag${index}` })
  const secret = newKeySecret() as string
  runtime.submitSystem(createKeyCommand(Date.now(), 'w', scopes, null, 'k', secret))
  const transport = { respond: (done: () => void) => done() }
  const lifecycle = new Lifecycle({ ...v2Surface(shard), clock: () => Date.now(), bodyBytesMax: 1 << 20, importBodyBytesMax: 1 << 24, skip: [] }, transport)
  const durable = () => new Promise<void>((resolve) => log.afterDurable(log.lastSeq, () => resolve()))
  const subject: Subject = { dist, run: (request, done) => lifecycle.run(request, done), durable, close: async () => { await log.close(); fs.rmSync(dir, { recursive: true, force: true }) } }
  const auth = new Map([['authorization', `Bearer ${secret}`], ['content-type', 'application/json']])
  for (let i = 0; i < accountsCount; i++) await runAll(subject, [{ method: 'POST', path: '/v2/accounts', headers: auth, query: '', body: { value: { name: `acct:${i}` } } }])
  await durable()
  return { subject, secret }
}

/** Runs the requests `inFlight` at a time, each batch in one turn, the next after the last answer of the batch. */
async function runAll(subject: Subject, list: readonly Request[]): Promise<void> {
  for (let at = 0; at < list.length; at += inFlight) {
    const batch = list.slice(at, at + inFlight)
    await new Promise<void>((resolve) => {
      let left = batch.length
      for (const request of batch) subject.run(request, () => { if (--left === 0) resolve() })
    })
  }
}

function cpuUsOf(run: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage()
  return run().then(() => {
    const used = process.cpuUsage(before)
    return used.user + used.system
  })
}

const subjects = await Promise.all(dists.map((dist, index) => subjectOf(dist, index)))
const kinds = {
  balance: (secret: string) => Array.from({ length: requests }, (_, i): Request => ({ method: 'GET', path: `/v2/accounts/acct%3A${i % accountsCount}/balance`, headers: new Map([['authorization', `Bearer ${secret}`]]), query: '' })),
  'keyed post': (secret: string, round: number) => Array.from({ length: requests }, (_, i): Request => ({
    method: 'POST', path: '/v2/entries', headers: new Map([['authorization', `Bearer ${secret}`], ['content-type', 'application/json'], ['idempotency-key', `r${round}-${i}`]]), query: '',
    body: { value: { lines: [{ account: `acct:${i % accountsCount}`, amount: i + 1 }, { account: `acct:${(i + 1) % accountsCount}`, amount: -(i + 1) }], description: `ab ${i}` } },
  })),
}
const best = new Map<string, number>()
for (let round = 0; round < rounds; round++) {
  for (const [kind, make] of Object.entries(kinds)) {
    for (const { subject, secret } of subjects) {
      const list = make(secret, round)
      const cpuUs = await cpuUsOf(async () => { await runAll(subject, list); await subject.durable() })
      const perRequest = cpuUs / list.length
      const label = `${kind} | ${subject.dist}`
      process.stdout.write(`round ${round + 1}: ${label}: ${perRequest.toFixed(2)} µs CPU per request (load ${os.loadavg()[0].toFixed(1)})\n`)
      best.set(label, Math.min(best.get(label) ?? Infinity, perRequest))
    }
  }
}
process.stdout.write(`lowest of ${rounds} rounds, ${requests} requests each, ${inFlight} per turn:\n${[...best].map(([label, us]) => `  ${label}: ${us.toFixed(2)} µs`).join('\n')}\n`)
for (const { subject } of subjects) await subject.close()

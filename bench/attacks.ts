/**
 * @module Benchmark of hostile input (the third outside review): while each attack runs against one workspace,
 * another workspace reads its balance on one keep-alive connection, one request after another; the table gives
 * that victim's p50/p99/max latency beside a quiet phase of the same run, the server's peak RSS, and whether the
 * service was still answering afterwards. The same script runs against any checkout (BENCH_ATTACKS_REPO), so a
 * "before" and an "after" are one script measured twice.
 */
// Run: node --import=tsx bench/attacks.ts
//   BENCH_ATTACKS_REPO=/path/to/checkout   the tree whose src/main.ts is started (default: this one)
//   BENCH_ATTACKS_LABEL=before|after       names the result file bench/results/attacks-<label>.json (default: after)
//   BENCH_ATTACKS_ONLY=name,name           only these attacks (the quiet phase always runs)
// Every attack is bounded in bytes, sockets and time; the server runs on 127.0.0.1 under `timeout`.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { spawnChild, type Child } from './http.ts'

const repoDir = path.resolve(process.env.BENCH_ATTACKS_REPO ?? path.join(import.meta.dirname, '..'))
const label = process.env.BENCH_ATTACKS_LABEL ?? 'after'
const resultsPath = path.join(import.meta.dirname, 'results', `attacks-${label}.json`)
const adminToken = `adm_attacks_${process.pid}`
/** How long each attack phase runs (and the victim reads meanwhile). */
const phaseMs = 6_000
/** Between two phases: the server settles (a stalled actor finishes, buffers drain). */
const settleMs = 1_500
/** How long any one request of the bench may take before it counts as failed (a stalled actor answers late, not never). */
const victimReadTimeoutMs = 180_000
const rssSampleMs = 50

interface Keyed { readonly secret: string; readonly port: number; readonly externalId: string }

function request(port: number, method: string, pathname: string, headers: Record<string, string>, body?: string | Buffer, agent?: http.Agent): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port, method, path: pathname, headers, agent: agent ?? false }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
      response.on('error', reject)
    })
    outgoing.setTimeout(victimReadTimeoutMs, () => outgoing.destroy(new Error('timeout')))
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

async function json(port: number, method: string, pathname: string, token: string, body: unknown): Promise<Record<string, unknown>> {
  const answer = await request(port, method, pathname, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, JSON.stringify(body))
  if (answer.status >= 300) throw new Error(`${method} ${pathname}: ${answer.status} ${answer.text.slice(0, 300)}`)
  return JSON.parse(answer.text) as Record<string, unknown>
}

/** A workspace with generous limits (the attacks are about work and memory, not the rate limiter), a key and an account. */
async function workspace(port: number, id: string, writesPerMinute: number): Promise<Keyed> {
  await json(port, 'POST', '/admin/workspaces', adminToken, { id, timezone: 'UTC', currency: 'EUR', limits: { writes_per_minute: writesPerMinute, reads_per_minute: 10_000_000 } })
  const key = await json(port, 'POST', '/admin/keys', adminToken, { workspace: id, name: 'bench', scopes: ['accounts:read', 'accounts:write', 'entries:read', 'entries:write', 'recon:read', 'recon:write'] })
  const secret = String(key.secret)
  const externalId = `DE0000${id.replace(/[^A-Za-z0-9]/g, '')}`
  await json(port, 'POST', '/v2/accounts', secret, { name: 'assets:bank', currency: 'EUR', external_id: externalId })
  await json(port, 'POST', '/v2/accounts', secret, { name: 'income:sales', currency: 'EUR' })
  return { secret, port, externalId }
}

function rssBytes(pid: number): number | null {
  try {
    const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((text) => text.startsWith('VmRSS:'))
    return line === undefined ? null : Number(line.split(/\s+/)[1]) * 1024
  } catch {
    return null
  }
}

/** The node process under `timeout`: its only child. */
function servicePid(server: Child): number {
  const children = fs.readFileSync(`/proc/${server.process.pid}/task/${server.process.pid}/children`, 'utf8').trim().split(' ')
  return Number(children[0])
}

interface VictimStats { readonly reads: number; readonly failed: number; readonly p50_ms: number; readonly p99_ms: number; readonly max_ms: number }

function percentile(sorted: readonly number[], share: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]
}

/** Reads the victim's balance one request after another until `until` says stop (or a read fails or times out). */
async function victimReads(victim: Keyed, stop: () => boolean): Promise<VictimStats> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const latencies: number[] = []
  let failed = 0
  while (!stop()) {
    const startedMs = performance.now()
    try {
      const answer = await request(victim.port, 'GET', '/v2/accounts/assets%3Abank/balance', { authorization: `Bearer ${victim.secret}` }, undefined, agent)
      if (answer.status !== 200) failed++
    } catch {
      failed++
      if (failed > 20) break
    }
    latencies.push(performance.now() - startedMs)
  }
  agent.destroy()
  latencies.sort((a, b) => a - b)
  const round = (value: number) => Math.round(value * 100) / 100
  return { reads: latencies.length, failed, p50_ms: round(percentile(latencies, 0.5)), p99_ms: round(percentile(latencies, 0.99)), max_ms: round(latencies.at(-1) ?? Number.NaN) }
}

interface Attack {
  readonly name: string
  readonly what: string
  /** Runs the attack until `deadlineMs` (performance.now()); resolves when it has stopped by itself. */
  run(attacker: Keyed, deadlineMs: number): Promise<string>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A camt.053 file of `count` statements on one account, one day each, one line each, consecutive: no overlap. */
function camtStatements(externalId: string, idPrefix: string, count: number, text: (index: number) => string): string {
  const dayMs = 86_400_000
  const startMs = Date.parse('1990-01-01T00:00:00Z')
  const statements: string[] = []
  for (let index = 0; index < count; index++) {
    const day = new Date(startMs + index * dayMs).toISOString().slice(0, 10)
    statements.push(`<Stmt><Id>${idPrefix}${index}</Id><FrToDt><FrDtTm>${day}T00:00:00</FrDtTm><ToDtTm>${day}T23:59:59</ToDtTm></FrToDt>` +
      `<Acct><Id><Othr><Id>${externalId}</Id></Othr></Id><Ccy>EUR</Ccy></Acct>` +
      `<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${index}.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${day}</Dt></Dt></Bal>` +
      `<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${index + 1}.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${day}</Dt></Dt></Bal>` +
      `<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${day}</Dt></BookgDt><AddtlNtryInf>${text(index)}</AddtlNtryInf></Ntry></Stmt>`)
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>` +
    `<GrpHdr><MsgId>M</MsgId><CreDtTm>2026-01-01T00:00:00</CreDtTm></GrpHdr>${statements.join('\n')}</BkToCstmrStmt></Document>\n`
}

/** One statement with `count` one-cent lines (opening 0, closing count cents). */
function camtManyLines(externalId: string, count: number): string {
  const lines = '<Ntry><Amt Ccy="EUR">0.01</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>1975-06-01</Dt></BookgDt></Ntry>\n'.repeat(count)
  const closing = (count / 100).toFixed(2)
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>` +
    `<GrpHdr><MsgId>M</MsgId><CreDtTm>2026-01-01T00:00:00</CreDtTm></GrpHdr><Stmt><Id>MANY</Id>` +
    `<FrToDt><FrDtTm>1975-06-01T00:00:00</FrDtTm><ToDtTm>1975-06-01T23:59:59</ToDtTm></FrToDt><Acct><Id><Othr><Id>${externalId}</Id></Othr></Id><Ccy>EUR</Ccy></Acct>` +
    `<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>1975-06-01</Dt></Dt></Bal>` +
    `<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${closing}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>1975-06-01</Dt></Dt></Bal>` +
    `${lines}</Stmt></BkToCstmrStmt></Document>\n`
}

function statementPost(attacker: Keyed, file: string | Buffer, query = ''): Promise<{ status: number; text: string }> {
  return request(attacker.port, 'POST', `/v2/statements${query}`, { authorization: `Bearer ${attacker.secret}`, 'content-type': 'application/xml' }, file)
}

/** Sends `count` requests on one socket in a loop until the deadline (each one after the previous answer). */
async function loopUntil(deadlineMs: number, senders: number, send: () => Promise<unknown>): Promise<number> {
  let sent = 0
  await Promise.all(Array.from({ length: senders }, async () => {
    while (performance.now() < deadlineMs) {
      await send().catch(() => undefined)
      sent++
    }
  }))
  return sent
}

const attacks: readonly Attack[] = [
  {
    name: 'quiet',
    what: 'no attack: the victim alone (the baseline of this run)',
    run: async (_attacker, deadlineMs) => { await sleep(deadlineMs - performance.now()); return 'none' },
  },
  {
    name: 'ws-unauthenticated-big-frames',
    what: '100 unauthenticated /v2/stream sockets each announce a 16 MiB frame and send up to 8 MiB of it, held until the phase ends',
    run: async (attacker, deadlineMs) => {
      const sockets: net.Socket[] = []
      let written = 0
      let closedEarly = 0
      const upgrade = 'GET /v2/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n'
      const chunk = Buffer.alloc(64 * 1024, 0x41)
      const header = Buffer.from([0x81, 0xff, 0, 0, 0, 0, 0x01, 0x00, 0x00, 0x00, 1, 2, 3, 4]) // text, masked, 64-bit length 16 MiB
      await Promise.all(Array.from({ length: 100 }, () => new Promise<void>((resolve) => {
        const socket = net.connect(attacker.port, '127.0.0.1')
        sockets.push(socket)
        let budget = 8 * 1024 * 1024
        socket.on('error', () => undefined)
        socket.on('close', () => { if (performance.now() < deadlineMs) closedEarly++; resolve() })
        socket.once('data', () => {
          socket.write(header)
          const pump = () => {
            while (budget > 0 && performance.now() < deadlineMs) {
              budget -= chunk.length
              written += chunk.length
              if (!socket.write(chunk)) return void socket.once('drain', pump)
            }
            resolve()
          }
          pump()
        })
        socket.write(upgrade)
      })))
      await sleep(Math.max(0, deadlineMs - performance.now()))
      for (const socket of sockets) socket.destroy()
      return `${(written / 2 ** 20).toFixed(0)} MiB written, ${closedEarly} of 100 closed by the server`
    },
  },
  {
    name: 'camt-many-statements',
    what: 'one camt.053 file of 8,000 consecutive one-day statements on one account',
    run: async (attacker) => {
      const answer = await statementPost(attacker, camtStatements(attacker.externalId, 'MANY-', 8_000, (index) => `s${index}`))
      return `status ${answer.status}`
    },
  },
  {
    name: 'camt-empty-elements',
    what: '4 senders post 250 KB camt files of empty elements (refused) in a loop',
    run: async (attacker, deadlineMs) => {
      const file = `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>${'<a/>'.repeat(62_000)}</BkToCstmrStmt></Document>`
      const sent = await loopUntil(deadlineMs, 4, () => statementPost(attacker, file))
      return `${sent} files sent`
    },
  },
  {
    name: 'camt-many-lines',
    what: 'one camt.053 statement of 140,000 lines (16 MiB)',
    run: async (attacker) => {
      const answer = await statementPost(attacker, camtManyLines(attacker.externalId, 140_000))
      return `status ${answer.status}`
    },
  },
  {
    name: 'batch-16mib-after-429',
    what: 'a 300-entry batch empties the write bucket, then 2 senders post 16 MiB entry batches in a loop (refused)',
    run: async (attacker, deadlineMs) => {
      const line = '{"lines":[{"account":"assets:bank","amount":1},{"account":"income:sales","amount":-1}],"description":"' + 'x'.repeat(400) + '"},'
      const body = Buffer.from(`{"entries":[${line.repeat(Math.floor((16 * 2 ** 20 - 64) / line.length)).slice(0, -1)}]}`)
      const statuses = new Map<number, number>()
      // A batch as large as the bucket empties it (it passes on a full bucket); every batch after it is refused.
      const emptying = JSON.stringify({ entries: Array.from({ length: 300 }, () => ({ lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -1 }] })) })
      const postEmptying = () => request(attacker.port, 'POST', '/v2/entries/batch', { authorization: `Bearer ${attacker.secret}`, 'content-type': 'application/json' }, emptying)
      let first = await postEmptying()
      // Creating the accounts took two tokens: the bucket is full again a second later (Retry-After: 1).
      if (first.status === 429) first = await sleep(1_100).then(postEmptying)
      const emptied = first.status
      const sent = await loopUntil(deadlineMs, 2, async () => {
        const answer = await request(attacker.port, 'POST', '/v2/entries/batch', { authorization: `Bearer ${attacker.secret}`, 'content-type': 'application/json' }, body)
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
      })
      return `emptying batch ${emptied}; ${sent} batches: ${[...statuses].map(([status, count]) => `${count}×${status}`).join(', ')}`
    },
  },
  {
    name: 'ws-unread-answers',
    what: '40 sockets of one key each send 20,000 balance requests and never read an answer',
    run: async (attacker, deadlineMs) => {
      const upgrade = `GET /v2/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer ${attacker.secret}\r\n\r\n`
      const frame = (text: string) => {
        const payload = Buffer.from(text)
        const head = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff])
        return Buffer.concat([head, Buffer.from([0, 0, 0, 0]), payload]) // zero mask: payload as is
      }
      const sockets: net.Socket[] = []
      let closedEarly = 0
      await Promise.all(Array.from({ length: 40 }, (_, socketIndex) => new Promise<void>((resolve) => {
        const socket = net.connect(attacker.port, '127.0.0.1')
        sockets.push(socket)
        socket.on('error', () => undefined)
        socket.on('close', () => { if (performance.now() < deadlineMs) closedEarly++; resolve() })
        socket.once('data', () => {
          socket.pause() // never read again: answers pile up on the server
          const frames: Buffer[] = []
          for (let index = 0; index < 20_000; index++) frames.push(frame(`{"type":"request","id":"${socketIndex}-${index}","method":"GET","path":"/v2/accounts/assets%3Abank/balance"}`))
          socket.write(Buffer.concat(frames), () => resolve())
        })
        socket.write(upgrade)
      })))
      await sleep(Math.max(0, deadlineMs - performance.now()))
      for (const socket of sockets) socket.destroy()
      return `${closedEarly} of 40 closed by the server`
    },
  },
  {
    name: 'camt-huge-texts-then-list',
    what: 'a camt.053 file with a 4 MiB Stmt/Id and 2 MB texts, then GET /v2/reconciliations (last: it took the service down before)',
    run: async (attacker) => {
      const long = 'x'.repeat(2_000_000)
      const file = camtStatements(attacker.externalId, 'HUGE-', 4, () => long).replace('<Id>HUGE-0</Id>', `<Id>${'I'.repeat(4 * 2 ** 20)}</Id>`)
      const imported = await statementPost(attacker, file)
      const read = (pathname: string) => request(attacker.port, 'GET', pathname, { authorization: `Bearer ${attacker.secret}` }).catch((error: Error) => ({ status: 0, text: error.message }))
      const list = await read('/v2/reconciliations?limit=100')
      const windowId = imported.status === 201 ? (JSON.parse(imported.text) as { data: { id: string }[] }).data[0].id : null
      const window = windowId === null ? { status: 0, text: '' } : await read(`/v2/reconciliations/${windowId}`)
      return `import ${imported.status}, list ${list.status} (${list.text.length} bytes), window ${window.status} (${window.text.length} bytes)`
    },
  },
]

interface Row { readonly name: string; readonly what: string; readonly outcome: string; readonly victim: VictimStats; readonly rss_peak_mib: number | null; readonly alive_after: boolean }

async function alive(port: number): Promise<boolean> {
  try {
    return (await request(port, 'GET', '/healthz', {})).status === 200
  } catch {
    return false
  }
}

async function runPhase(attack: Attack, attacker: Keyed, victim: Keyed, pid: number): Promise<Row> {
  let rssPeak = rssBytes(pid) ?? 0
  const sampler = setInterval(() => { rssPeak = Math.max(rssPeak, rssBytes(pid) ?? 0) }, rssSampleMs)
  const deadlineMs = performance.now() + phaseMs
  let attackDone = false
  const attackRun = attack.run(attacker, deadlineMs).catch((error: Error) => `failed: ${error.message}`).finally(() => { attackDone = true })
  // The victim reads for the phase and, if the attack is still running (a stalled actor), until it ends.
  const victimStats = await victimReads(victim, () => performance.now() > deadlineMs && attackDone)
  const outcome = await attackRun
  clearInterval(sampler)
  const aliveAfter = await alive(victim.port)
  return { name: attack.name, what: attack.what, outcome, victim: victimStats, rss_peak_mib: rssPeak === 0 ? null : Math.round(rssPeak / 2 ** 20), alive_after: aliveAfter }
}

function table(rows: readonly Row[]): string {
  const head = '| attack | outcome | victim reads | victim p50 ms | victim p99 ms | victim max ms | failed | peak RSS MiB | alive after |\n|---|---|---|---|---|---|---|---|---|\n'
  return head + rows.map((row) => `| ${row.name} | ${row.outcome} | ${row.victim.reads} | ${row.victim.p50_ms} | ${row.victim.p99_ms} | ${row.victim.max_ms} | ${row.victim.failed} | ${row.rss_peak_mib ?? '?'} | ${row.alive_after ? 'yes' : 'NO'} |`).join('\n')
}

/** Before and after side by side, for README.md and docs/PERFORMANCE.md (copied from this output, not by hand). */
function comparison(before: { rows: readonly Row[] }, after: readonly Row[]): string {
  const head = '| attack | victim p99 ms before → after | victim max ms before → after | peak RSS MiB before → after | alive after |\n|---|---|---|---|---|\n'
  return head + after.map((row) => {
    const old = before.rows.find((candidate) => candidate.name === row.name)
    const pair = (from: number | null | undefined, to: number | null) => `${from ?? '?'} → ${to ?? '?'}`
    return `| ${row.name} | ${pair(old?.victim.p99_ms, row.victim.p99_ms)} | ${pair(old?.victim.max_ms, row.victim.max_ms)} | ${pair(old?.rss_peak_mib, row.rss_peak_mib)} | ${old === undefined ? '?' : old.alive_after ? 'yes' : 'NO'} → ${row.alive_after ? 'yes' : 'NO'} |`
  }).join('\n')
}

async function main(): Promise<void> {
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-attacks-'))
  const server = await spawnChild(['--import=tsx', path.join(repoDir, 'src', 'main.ts')], {
    HOST: '127.0.0.1', PORT: '0', DATA_DIR: path.join(tempDir, 'data'), ADMIN_TOKEN: adminToken, LOG_LEVEL: 'warn',
  }, /listening on http:\/\/127\.0\.0\.1:(\d+)/, 'trueup', path.join(tempDir, 'trueup.out'))
  const rows: Row[] = []
  try {
    const pid = servicePid(server)
    const victim = await workspace(server.port, 'victim', 600)
    const only = process.env.BENCH_ATTACKS_ONLY?.split(',') ?? null
    for (const [index, attack] of attacks.entries()) {
      if (only !== null && attack.name !== 'quiet' && !only.includes(attack.name)) continue
      // Each attack from a workspace of its own (default write limits, reads unbounded): one attack's spent
      // budget or windows do not change what the next one meets.
      if (!(await alive(server.port))) {
        rows.push({ name: attack.name, what: attack.what, outcome: 'not run: the service was down', victim: { reads: 0, failed: 0, p50_ms: Number.NaN, p99_ms: Number.NaN, max_ms: Number.NaN }, rss_peak_mib: null, alive_after: false })
        continue
      }
      const attacker = await workspace(server.port, `attacker${index}`, 600)
      const row = await runPhase(attack, attacker, victim, pid)
      rows.push(row)
      process.stdout.write(`${row.name}: ${row.outcome}; victim p99 ${row.victim.p99_ms} ms, max ${row.victim.max_ms} ms; RSS ${row.rss_peak_mib} MiB; alive ${row.alive_after}\n`)
      await sleep(settleMs)
    }
  } finally {
    await server.stop(5_000)
  }
  const gitCommit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoDir, encoding: 'utf8' }).trim()
  const report = { date: new Date().toISOString(), label, repo: repoDir, git_commit: gitCommit, node: process.version, cpu_count: os.cpus().length, load_average_start: os.loadavg(), phase_ms: phaseMs, rows }
  fs.mkdirSync(path.dirname(resultsPath), { recursive: true })
  fs.writeFileSync(resultsPath, JSON.stringify(report, null, 2) + '\n')
  process.stdout.write(`\n${table(rows)}\n\nwritten ${resultsPath}\n`)
  const beforePath = path.join(path.dirname(resultsPath), 'attacks-before.json')
  if (label !== 'before' && fs.existsSync(beforePath)) process.stdout.write(`\n${comparison(JSON.parse(fs.readFileSync(beforePath, 'utf8')) as { rows: Row[] }, rows)}\n`)
  fs.rmSync(tempDir, { recursive: true, force: true })
}

await main()
process.exit(0)

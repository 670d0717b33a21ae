/** @module The HTTP scenarios: what each request is, the load settings, and the target as a ratio of the ceiling. */

import { randomBytes } from 'node:crypto'
import type { LoadRequest, LoadSettings } from './http.ts'
import type { HttpSeed } from './seed.ts'

export interface Target {
  /** Met when req/s ÷ ceiling req/s is at least this. */
  readonly ratioMin?: number
  /** Met when p99 is below this. */
  readonly p99MsMax?: number
  /** Met when req/s ÷ the req/s of the row with this key (same run) is at least ratioMin. */
  readonly ofRow?: { readonly key: string; readonly ratioMin: number }
}

export interface Scenario {
  readonly key: string
  readonly name: string
  readonly settings: LoadSettings
  readonly target: Target
  /** A fresh request maker per scenario: counters start at zero, keys are unique to this run. */
  readonly makeNext: () => () => LoadRequest
  /** The requests of the probe before the load (bench/run.ts), when they must not be the row's own (match pairs are used once). */
  readonly probe?: () => () => LoadRequest
}

/** Seeded (mulberry32) so every run asks for the same accounts in the same order. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state)
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * The rows. Writes are measured without pipelining only: uWebSockets.js closes a connection when a
 * pipelined request arrives while an earlier response on it is still pending (uNetworking/uWebSockets.js#277,
 * wontfix; #1301), and every durable write is answered after its fsync (and every read waits for the
 * durable barrier while writes are in flight), so a `-p 10` write row gets no answers at all. The same
 * 640 requests in flight, one per connection (`-c 640 -p 1`), give the write path its throughput figure.
 */
export function buildScenarios(seed: HttpSeed, durationS: number, warmupS: number): Scenario[] {
  const auth = { authorization: `Bearer ${seed.secret}` }
  const pipelined: LoadSettings = { connections: 64, pipelining: 10, durationS, warmupS }
  const unpipelined: LoadSettings = { ...pipelined, pipelining: 1 }
  const manyConnections: LoadSettings = { ...unpipelined, connections: 640 }
  const accounts = seed.accountIds.map((id) => id)
  const names = accounts.map((_, i) => `acct:${String(i).padStart(3, '0')}`)
  const runTag = randomBytes(6).toString('hex')
  const balance = (random: () => number): LoadRequest => ({ method: 'GET', path: `/v2/accounts/${accounts[Math.floor(random() * accounts.length)]}/balance`, headers: auth })
  const entryBody = (random: () => number, index: number): string => {
    const debit = Math.floor(random() * names.length)
    const credit = (debit + 1 + Math.floor(random() * (names.length - 1))) % names.length
    const amount = 1 + (index % 10_000)
    return JSON.stringify({ lines: [{ account: names[debit], amount }, { account: names[credit], amount: -amount }], description: `bench ${index}` })
  }
  const post = (random: () => number, index: number): LoadRequest => ({ method: 'POST', path: '/v2/entries', headers: auth, body: entryBody(random, index) })
  const linesPerWindow = seed.matchWindows[0]?.entryIds.length ?? 0
  const bigWindow = `GET reconciliation (window over ${seed.entriesCount.toLocaleString('en')} entries)`
  return [
    {
      key: 'balance', name: 'GET balance (random of 1,000 accounts)', settings: pipelined, target: { ratioMin: 0.8 },
      makeNext: () => { const random = seededRandom(1); return () => balance(random) },
    },
    {
      key: 'window', name: bigWindow, settings: pipelined, target: { ratioMin: 0.8 },
      makeNext: () => () => ({ method: 'GET', path: `/v2/reconciliations/${seed.bigWindowId}`, headers: auth }),
    },
    {
      key: 'balance-p1', name: 'GET balance (random of 1,000 accounts)', settings: unpipelined, target: { ratioMin: 0.9 },
      makeNext: () => { const random = seededRandom(6); return () => balance(random) },
    },
    {
      key: 'window-p1', name: bigWindow, settings: unpipelined, target: { ratioMin: 0.9 },
      makeNext: () => () => ({ method: 'GET', path: `/v2/reconciliations/${seed.bigWindowId}`, headers: auth }),
    },
    {
      key: 'post-latency', name: 'POST entries, 2 lines, durable', settings: unpipelined, target: { ratioMin: 0.35, p99MsMax: 10 },
      makeNext: () => { const random = seededRandom(3); let index = 0; return () => post(random, index++) },
    },
    {
      key: 'post-c640', name: 'POST entries, 2 lines, durable', settings: manyConnections, target: { ratioMin: 0.45 },
      makeNext: () => { const random = seededRandom(2); let index = 0; return () => post(random, index++) },
    },
    {
      key: 'idempotent-c640', name: 'POST entries + Idempotency-Key, half replays', settings: manyConnections, target: { ratioMin: 0.3 },
      makeNext: () => {
        const tag = `${runTag}-${randomBytes(3).toString('hex')}`
        let index = 0
        let body = ''
        return () => {
          const keyIndex = index >> 1
          // Every key is sent twice in a row with the same body: the second is a replay (Replayed: true).
          if ((index & 1) === 0) body = entryBody(seededRandom(keyIndex + 7), keyIndex)
          index++
          return { method: 'POST', path: '/v2/entries', headers: { ...auth, 'idempotency-key': `bench-${tag}-${keyIndex}` }, body }
        }
      },
    },
    {
      // The first window is the preflight's (bench/run.ts); the row's cursor draws on the others.
      key: 'match-c640', name: `POST matches one-to-one (window of ${linesPerWindow.toLocaleString('en')} lines)`, settings: manyConnections, target: { ratioMin: 0.3 },
      makeNext: () => matchCursor(seed.matchWindows.slice(1), auth),
      probe: () => matchCursor(seed.matchWindows.slice(0, 1), auth),
    },
    {
      key: 'mixed-c640', name: 'mixed 80% GET balance / 20% POST entries', settings: manyConnections, target: { ratioMin: 0.5 },
      makeNext: () => { const random = seededRandom(4); let index = 0; return () => (random() < 0.8 ? balance(random) : post(random, index++)) },
    },
  ]
}

/** A cursor over the prepared pairs of these windows, each pair used once (warm-up and the ceiling's run included). */
export function matchCursor(windows: HttpSeed['matchWindows'], auth: Record<string, string>): () => LoadRequest {
  const linesPerWindow = windows[0]?.entryIds.length ?? 0
  let pair = 0
  const pairsCount = linesPerWindow * windows.length
  return () => {
    // Past the prepared pairs the requests repeat the last pair: they answer 409 and count as non-2xx.
    const index = Math.min(pair++, pairsCount - 1)
    const window = windows[Math.floor(index / linesPerWindow)]
    const line = index % linesPerWindow
    return { method: 'POST', path: `/v2/reconciliations/${window.id}/matches`, headers: auth, body: JSON.stringify({ statement_lines: [`l${line + 1}`], entries: [window.entryIds[line]], strategy: 'amount_and_date' }) }
  }
}

/** The levels the log-level rows compare: the default, and the one that writes no request line. */
export const comparedLogLevels = ['info', 'warn'] as const
export type ComparedLogLevel = (typeof comparedLogLevels)[number]

/**
 * GET balance at -c 64 -p 1 on a server started with this LOG_LEVEL (bench/run.ts runs one server per
 * level): what the request log lines cost by default. Unpipelined, so every request is a turn of the
 * event loop, as for most clients. The default must stay within 10 % of `warn`.
 */
export function logLevelScenario(seed: HttpSeed, durationS: number, warmupS: number, level: ComparedLogLevel): Scenario {
  const auth = { authorization: `Bearer ${seed.secret}` }
  const target: Target = level === 'info' ? { ofRow: { key: logLevelKey('warn'), ratioMin: 0.9 } } : {}
  return {
    key: logLevelKey(level), name: `GET balance, LOG_LEVEL=${level}`, settings: { connections: 64, pipelining: 1, durationS, warmupS }, target,
    makeNext: () => {
      const random = seededRandom(5)
      return () => ({ method: 'GET', path: `/v2/accounts/${seed.accountIds[Math.floor(random() * seed.accountIds.length)]}/balance`, headers: auth })
    },
  }
}

export function logLevelKey(level: ComparedLogLevel): string {
  return `balance-p1-log-${level}`
}

/** @module HTTP side of the bench: child servers (ceiling and trueup) and autocannon scenarios measured the same way. */

import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import autocannon from 'autocannon'

export interface Child {
  readonly process: ChildProcess
  readonly port: number
  /** Where the child's stdout and stderr went (a file: a pipe the bench drains late would slow the server). */
  readonly outputPath: string
  /** SIGTERM, then SIGKILL after graceMs; resolves when the child has exited. */
  stop(graceMs: number): Promise<void>
  /** CPU time (user + system) the node process has used so far, in ms (10 ms steps); null where /proc cannot tell. */
  cpuMs(): number | null
}

const clockTicksPerS = 100

/**
 * The node process under `timeout` (its only child; under a wrapper such as strace, the first node process down
 * the chain of first children), or null once it is gone.
 */
export function nodePidUnder(timeoutPid: number | undefined): number | null {
  if (timeoutPid === undefined) return null
  let pid = timeoutPid
  try {
    for (let depth = 0; depth < 3; depth++) {
      const child = Number(fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ')[0])
      if (!Number.isInteger(child) || child <= 0) return null
      if (fs.readFileSync(`/proc/${child}/comm`, 'utf8').trim() === 'node' || depth === 2) return child
      pid = child
    }
  } catch {
    // Gone meanwhile.
  }
  return null
}

/**
 * The CPU time of the node process under `timeout` (its only child), from /proc: on a machine shared with
 * the load generator and other work, CPU per answer is steadier than answers per second.
 */
function cpuMsOf(timeoutPid: number | undefined): number | null {
  const pid = nodePidUnder(timeoutPid)
  if (pid === null) return null
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces) start at field 3; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1_000) / clockTicksPerS
  } catch {
    return null
  }
}

const startTimeoutMs = 180_000
const readyPollMs = 50
/** No child outlives this, even if the bench itself is killed: it runs under coreutils `timeout`. */
export const childLifetimeS = 900

/**
 * Spawns `node args` under `timeout`, output to a file, and waits until the file matches `ready`
 * (the port in group 1). A file rather than a pipe: the service logs a line per request, and a pipe
 * that the busy bench process drains late would block or slow the server under test.
 */
export function spawnChild(args: readonly string[], env: NodeJS.ProcessEnv, ready: RegExp, label: string, outputPath: string, spawning: Spawning = {}): Promise<Child> {
  const output = fs.openSync(outputPath, 'w')
  const child = spawn('timeout', ['--kill-after=10', String(spawning.lifetimeS ?? childLifetimeS), ...(spawning.wrapper ?? []), process.execPath, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', output, output] })
  fs.closeSync(output)
  spawning.onSpawned?.(child)
  // If the bench dies first, its children go with it (and `timeout` bounds them even on SIGKILL).
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  const exited = new Promise<void>((resolve) => child.once('exit', () => { process.off('exit', killOnExit); resolve() }))
  const stop = async (graceMs: number) => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
    await exited
    clearTimeout(timer)
  }
  const text = () => fs.readFileSync(outputPath, 'utf8')
  return new Promise((resolve, reject) => {
    const startedMs = Date.now()
    const poll = setInterval(() => {
      const match = ready.exec(text())
      if (match !== null) {
        clearInterval(poll)
        return resolve({ process: child, port: Number(match[1]), outputPath, stop, cpuMs: () => cpuMsOf(child.pid) })
      }
      if (child.exitCode !== null || child.signalCode !== null) {
        clearInterval(poll)
        return reject(new Error(`${label}: exited (${child.exitCode ?? child.signalCode}) before ready\n${text().slice(-4_000)}`))
      }
      if (Date.now() - startedMs > startTimeoutMs) {
        clearInterval(poll)
        child.kill('SIGKILL')
        reject(new Error(`${label}: not ready after ${startTimeoutMs} ms\n${text().slice(-4_000)}`))
      }
    }, readyPollMs)
  })
}

/** Optional ways to start a child: a command it runs under (say strace), a callback as soon as it is spawned (before ready). */
export interface Spawning {
  /** Words put between `timeout` and node, e.g. `['strace', '-f', ..., '--']`. */
  readonly wrapper?: readonly string[]
  readonly onSpawned?: (child: ChildProcess) => void
  /** The child's lifetime under `timeout` when not childLifetimeS (a long seeding run). */
  readonly lifetimeS?: number
}

export function startCeiling(benchDir: string, outputPath: string): Promise<Child> {
  return spawnChild(['--import=tsx', path.join(benchDir, 'ceiling-server.ts')], {}, /listening (\d+)/, 'ceiling', outputPath)
}

export interface ServerStart {
  readonly dataDir: string
  readonly adminToken: string
  /** Extra node flags, e.g. --cpu-prof. */
  readonly nodeFlags: readonly string[]
  /** The service's own log level (LOG_LEVEL). */
  readonly logLevel: string
  /** The file that takes its stdout and stderr. */
  readonly outputPath: string
  /** More environment for this server only (say SHARDS), over the bench's own. */
  readonly env?: NodeJS.ProcessEnv
  readonly spawning?: Spawning
}

/**
 * The node flags `npm start` gives the service, so the benches measure the service as it is run. The start
 * script runs bin/trueup, whose `exec node <flags> .../dist/main.js` line names them (reading only the
 * script's own words found none, and every bench ran the server without them).
 */
export function startScriptNodeFlags(): string[] {
  const start = (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start
  const flagsOf = (words: string) => words.split(/\s+/).filter((word) => word.startsWith('--'))
  const script = /(?:^|\s)(\.\/bin\/\S+)/.exec(start)?.[1]
  if (script === undefined) return flagsOf(start)
  const execLine = fs.readFileSync(new URL(`../${script.slice(2)}`, import.meta.url), 'utf8').split('\n').find((line) => /^\s*exec node\s/.test(line))
  if (execLine === undefined) throw new Error(`${script}: no \`exec node\` line to read the service's node flags from`)
  return flagsOf(execLine)
}

/** The service as `npm start` runs it (`node <distDir>/main.js`, see buildService in run.ts), on a free port of 127.0.0.1. */
export function startTrueup(distDir: string, start: ServerStart): Promise<Child> {
  return spawnChild([...start.nodeFlags, path.join(distDir, 'main.js')], {
    HOST: '127.0.0.1', PORT: '0', DATA_DIR: start.dataDir, ADMIN_TOKEN: start.adminToken, LOG_LEVEL: start.logLevel,
    // Periodic snapshots would land in the middle of a scenario at random; the snapshot cost is its own scale row.
    SNAPSHOT_COMMANDS_INTERVAL: '100000000',
    // One shard unless the bench asks for more (SHARDS in its environment): the tables compare like with like,
    // whatever the machine's cores (the service's own default).
    SHARDS: process.env.SHARDS ?? '1',
    ...start.env,
  }, /listening on http:\/\/127\.0\.0\.1:(\d+)/, 'trueup', start.outputPath, start.spawning)
}

export interface LoadSettings {
  readonly connections: number
  readonly pipelining: number
  readonly durationS: number
  readonly warmupS: number
  /** Requests per second over all connections, paced (autocannon's overallRate); as fast as answered when absent. */
  readonly ratePerS?: number
}

export interface LoadRequest {
  readonly method: 'GET' | 'POST'
  readonly path: string
  readonly headers?: Record<string, string>
  readonly body?: string
}

export interface LoadResult {
  readonly reqPerS: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly non2xx: number
  /** Socket errors and timeouts. */
  readonly errors: number
  /** Responses received. */
  readonly total: number
  /** Requests written to a socket; more than total when connections were closed under them. */
  readonly sent: number
  /** Connections opened beyond the first of each client: the server closed one under it. */
  readonly reconnects: number
  readonly statusCounts: Record<string, number>
  /** CPU time the server used during the measured run (ms), when the caller could tell. */
  readonly cpuMs: number | null
}

interface Counters {
  readonly statusCounts: Record<string, number>
  connects: number
}

/** One autocannon run against port; `next` makes each request (called once per request sent). */
function runOnce(port: number, settings: LoadSettings, durationS: number, next: () => LoadRequest, counters: Counters): Promise<autocannon.Result> {
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration: durationS,
    ...(settings.ratePerS === undefined ? {} : { overallRate: settings.ratePerS }),
    timeout: 10,
    // autocannon reconnects silently when the server closes a connection (it counts no error), so count connects.
    setupClient: (unknownClient) => {
      const client = unknownClient as { _connect: () => void }
      const connect = client._connect.bind(client)
      client._connect = () => { counters.connects++; connect() }
    },
    requests: [{
      setupRequest: (request: Record<string, unknown>) => {
        const made = next()
        return { ...request, method: made.method, path: made.path, headers: { ...(made.body === undefined ? {} : { 'content-type': 'application/json' }), ...made.headers }, body: made.body }
      },
      onResponse: (status: number) => { counters.statusCounts[status] = (counters.statusCounts[status] ?? 0) + 1 },
    }],
  })
}

/** Warm-up (discarded; warmUpS 0 skips it) then the measured run, same settings. */
export async function measure(port: number, settings: LoadSettings, next: () => LoadRequest, cpuMs: () => number | null = () => null): Promise<LoadResult> {
  if (settings.warmupS > 0) await runOnce(port, settings, settings.warmupS, next, { statusCounts: {}, connects: 0 })
  const counters: Counters = { statusCounts: {}, connects: 0 }
  const cpuBeforeMs = cpuMs()
  const result = await runOnce(port, settings, settings.durationS, next, counters)
  const cpuAfterMs = cpuMs()
  const total = Object.values(counters.statusCounts).reduce((sum, count) => sum + count, 0)
  return {
    reqPerS: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total,
    sent: result.requests.sent,
    reconnects: Math.max(0, counters.connects - settings.connections),
    statusCounts: counters.statusCounts,
    cpuMs: cpuBeforeMs === null || cpuAfterMs === null ? null : cpuAfterMs - cpuBeforeMs,
  }
}

/** A JSON call to a running server (admin setup, sanity checks). */
export async function call(port: number, method: string, urlPath: string, token: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`http://127.0.0.1:${port}${urlPath}`, {
    method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, json: text === '' ? null : JSON.parse(text) }
}

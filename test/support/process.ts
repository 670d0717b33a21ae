/** @module Test support: trueup as a real child process (node --import=tsx src/main.ts) on 127.0.0.1, for kill -9 tests. */

import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { freePort } from '../../scripts/free-port.ts'

export const repositoryRoot = path.resolve(import.meta.dirname, '../..')

export { freePort }

export interface RunningProcess {
  readonly child: ChildProcess
  readonly baseUrl: string
  /** The key printed at first start, or null when this start printed none. */
  readonly apiKey: string | null
  readonly stdout: string[]
  readonly stderr: string[]
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

export interface ProcessOptions {
  readonly dataDir: string
  readonly adminToken: string
  readonly env?: Record<string, string>
  /** How long to wait for the `listening` line. */
  readonly startTimeoutMs?: number
  /** Called with the child as soon as it is spawned (to kill it during start-up, say). */
  readonly onSpawn?: (child: ChildProcess) => void
  /** The port to listen on (default: a free one). */
  readonly port?: number
}

/**
 * EDGE_THREADS only when the run names it (TEST_EDGE_THREADS); else unset, so a run with TEST_SHARDS above 1 gets
 * the service's default (the edges on the shards' threads), as a start without the variable would. Used for the
 * in-process service too (service.ts).
 */
export function testEdgeThreads(): { EDGE_THREADS?: string } {
  const named = process.env.TEST_EDGE_THREADS
  return named === undefined || named === '' ? {} : { EDGE_THREADS: named }
}

/** The child's environment: a minimal one, so nothing of the test runner's loaders or options leaks into it. */
function childEnv(options: ProcessOptions, port: number): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '',
    HOST: '127.0.0.1', PORT: String(port), DATA_DIR: options.dataDir, ADMIN_TOKEN: options.adminToken,
    // The shards of the run (test/support/service.ts, testShards) and its edge threads unless the test names its own.
    SHARDS: process.env.TEST_SHARDS ?? '1', ...testEdgeThreads(), ...options.env,
  }
}

export interface FinishedProcess {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Spawns the service (src/main.ts, or `args` instead) and waits for it to exit by itself: for starts that
 * must be refused. Killed (SIGKILL) if it has not exited within timeoutMs, which the answer then shows.
 */
export async function runToExit(options: ProcessOptions & { readonly args?: readonly string[]; readonly timeoutMs?: number; readonly asUser?: number }): Promise<FinishedProcess> {
  const port = options.port ?? await freePort()
  const args = options.args ?? ['--import=tsx', 'src/main.ts']
  // As another user (root tests for permissions): through setpriv, and without the NODE_OPTIONS the test runner
  // adds, whose hooks would write the runner's files as that user.
  const [command, ...commandArgs] = options.asUser === undefined ? [process.execPath, ...args]
    : ['setpriv', `--reuid=${options.asUser}`, `--regid=${options.asUser}`, '--clear-groups', 'env', '-u', 'NODE_OPTIONS', process.execPath, ...args]
  const child = spawn(command, commandArgs, { cwd: repositoryRoot, env: childEnv(options, port), stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000)
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('close', (code, signal) => resolve([code, signal])))
  clearTimeout(timer)
  return { code, signal, stdout, stderr }
}

/**
 * How long a start may take by default: node loads the TypeScript sources through tsx, and each shard's worker
 * thread loads them again on its own, which on a busy 2-core machine takes a while.
 */
function startTimeoutDefaultMs(options: ProcessOptions): number {
  const shards = Number(options.env?.SHARDS ?? process.env.TEST_SHARDS ?? '1')
  return shards > 1 ? 120_000 : 60_000
}

/** Spawns the service and resolves once it prints its `listening` line; rejects if it exits or is slow. */
export async function startProcess(options: ProcessOptions): Promise<RunningProcess> {
  options = { ...options, startTimeoutMs: options.startTimeoutMs ?? startTimeoutDefaultMs(options) }
  const port = options.port ?? await freePort()
  const child = spawn(process.execPath, ['--import=tsx', 'src/main.ts'], { cwd: repositoryRoot, env: childEnv(options, port), stdio: ['ignore', 'pipe', 'pipe'] })
  options.onSpawn?.(child)
  const stdout: string[] = []
  const stderr: string[] = []
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  let buffered = ''
  let apiKey: string | null = null
  const listening = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within ${options.startTimeoutMs ?? 30_000} ms; stdout: ${stdout.join(' | ')}; stderr: ${stderr.join('').slice(-2000)}`)), options.startTimeoutMs ?? 30_000)
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (chunk: string) => {
      buffered += chunk
      const lines = buffered.split('\n')
      buffered = lines.pop() ?? ''
      for (const line of lines) {
        stdout.push(line)
        const key = /API key \(shown once\): (\S+)/.exec(line)
        if (key !== null) apiKey = key[1]
        if (/listening/.test(line)) {
          clearTimeout(timer)
          resolve()
        }
      }
    })
    child.stderr!.setEncoding('utf8')
    child.stderr!.on('data', (chunk: string) => { if (stderr.length < 1000) stderr.push(chunk) })
    void exited.then(({ code, signal }) => {
      clearTimeout(timer)
      reject(new Error(`the service exited (code ${code}, signal ${signal}) before listening; stderr: ${stderr.join('').slice(-2000)}`))
    })
  })
  try {
    await listening
  } catch (error) {
    child.kill('SIGKILL')
    throw error
  }
  return { child, baseUrl: `http://127.0.0.1:${port}`, apiKey, stdout, stderr, exited }
}

/** kill -9, then wait for the exit. */
export async function killHard(running: RunningProcess): Promise<void> {
  if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL')
  await running.exited
}

/** One JSON request to a running process with its key; the body parsed (null when empty); 10 s at most. */
export async function requestJson(baseUrl: string, key: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(baseUrl + route, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  })
  const text = await response.text()
  return { status: response.status, body: text === '' ? null : JSON.parse(text) }
}

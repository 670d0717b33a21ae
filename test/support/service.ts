/** @module Test support: a real trueup service in-process on 127.0.0.1 with a fresh data dir, and a tiny HTTP client. */

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { loadConfig } from '../../src/config.ts'
import type { CommitFaults } from '../../src/log/command-log.ts'
import { clockCellOf } from './clock.ts'
import { testEdgeThreads } from './process.ts'
import { startService, type Service } from '../../src/service.ts'

export interface TestService {
  readonly service: Service
  readonly baseUrl: string
  readonly dataDir: string
  readonly adminToken: string
  /** The all-scope key of workspace `default`, as printed at first start. */
  readonly apiKey: string
  /** What the service printed (start-up lines, the last line of its stop), in order. */
  readonly printed: readonly string[]
  /** Stop the service; the data dir stays, for restart tests. */
  stop(): Promise<void>
  /** Stop and delete the data dir. */
  destroy(): Promise<void>
}

export interface StartOptions {
  readonly dataDir?: string
  readonly clock?: () => number
  readonly env?: Record<string, string>
  readonly apiKey?: string
  /** What a failed log commit calls (default: throw, which fails the test); disk-fault tests record it instead. */
  readonly onLogFailure?: (error: Error) => void
  /** Start-up and snapshot warnings (default: stderr). */
  readonly warn?: (line: string) => void
  /** Seams that make the log's commit step fail. */
  readonly logFaults?: CommitFaults
}

/**
 * The number of shards a test's service runs with unless the test names SHARDS itself: TEST_SHARDS (default 1),
 * so the same HTTP and WebSocket tests run against one shard and against several (package.json, test:shards).
 */
export function testShards(): string {
  return process.env.TEST_SHARDS ?? '1'
}

export async function startTestService(options: StartOptions = {}): Promise<TestService> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-test-'))
  const adminToken = 'test-admin-token'
  // Request logs off unless a test asks for them (LOG_LEVEL in options.env): they would land in tap's output.
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, LOG_LEVEL: 'silent', SHARDS: testShards(), ...testEdgeThreads(), ...options.env })
  const lines: string[] = []
  const service = await startService(config, {
    print: (line) => lines.push(line),
    clock: options.clock ?? (() => Date.now()),
    clockCell: options.clock === undefined ? undefined : clockCellOf(options.clock),
    onLogFailure: options.onLogFailure ?? ((error) => { throw error }),
    warn: options.warn,
    logFaults: options.logFaults,
  })
  const printed = lines.map((line) => /API key \(shown once\): (\S+)/.exec(line)?.[1]).find((key) => key !== undefined)
  const apiKey = printed ?? options.apiKey ?? ''
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    await service.stop()
  }
  return {
    service, baseUrl: `http://127.0.0.1:${service.port}`, dataDir, adminToken, apiKey, printed: lines, stop,
    destroy: async () => {
      await stop()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly body: any
  readonly text: string
}

export async function call(baseUrl: string, method: string, route: string, options: { key?: string; body?: unknown; raw?: string | Buffer; headers?: Record<string, string> } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`
  let body: string | Buffer | undefined
  if (options.raw !== undefined) body = options.raw
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers['content-type'] ??= 'application/json'
  }
  const response = await fetch(baseUrl + route, { method, headers, body: body as BodyInit | undefined })
  const text = await response.text()
  let parsed: unknown = null
  try { parsed = text === '' ? null : JSON.parse(text) } catch { parsed = text }
  return { status: response.status, headers: response.headers, body: parsed, text }
}

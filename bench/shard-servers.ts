/**
 * @module What the shard benches (bench/shard-time.ts, startup-shards.ts, forwarded.ts) share: src/ compiled for
 * the run, a server started with SHARDS=n from outside (HTTP only, so the benches outlive changes inside), workspaces
 * made over the admin API, and the run's context (commit, load average) that every table and JSON carries.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { call, startScriptNodeFlags, startTrueup, type Child, type Spawning } from './http.ts'

export const benchDir = import.meta.dirname
export const repoDir = path.dirname(benchDir)
/** Fixed, so that a cached data dir (bench/startup-shards.ts) starts again with the token it was made with. */
export const adminToken = 'adm_shardbench_0123456789abcdef'

/**
 * src/ compiled by tsc into `tmp` (dist/ may be stale or another tree's), with package.json and node_modules beside
 * it so the compiled imports resolve; BENCH_DIST names a compiled dir to use instead.
 */
export function buildDist(tmp: string): string {
  if (process.env.BENCH_DIST !== undefined && process.env.BENCH_DIST !== '') return path.resolve(process.env.BENCH_DIST)
  const distDir = path.join(tmp, 'dist')
  fs.symlinkSync(path.join(repoDir, 'package.json'), path.join(tmp, 'package.json'))
  fs.symlinkSync(path.join(repoDir, 'node_modules'), path.join(tmp, 'node_modules'))
  const built = spawnSync(process.execPath, [path.join(repoDir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', distDir], { cwd: repoDir, encoding: 'utf8', timeout: 300_000 })
  if (!fs.existsSync(path.join(distDir, 'main.js'))) throw new Error(`the build emitted no main.js:\n${built.stdout}${built.stderr}`)
  return distDir
}

export interface RunContext {
  readonly date: string
  readonly commit: string
  readonly node: string
  readonly cpus: number
  /** os.loadavg() (1, 5, 15 minutes) when the run started and when it ended: the machine is shared. */
  readonly load_average_start: readonly number[]
  load_average_end: readonly number[]
}

export function runContext(): RunContext {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoDir, encoding: 'utf8' })
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'src'], { cwd: repoDir, encoding: 'utf8' }).stdout.trim() !== ''
  return {
    date: new Date().toISOString(), commit: `${head.stdout.trim() || 'unknown'}${dirty ? ' (src/ modified)' : ''}`, node: process.version,
    cpus: os.cpus().length, load_average_start: loadNow(), load_average_end: [],
  }
}

export function loadNow(): number[] {
  return os.loadavg().map((load) => Math.round(load * 100) / 100)
}

/** The service from outside: `node <dist>/main.js` with SHARDS=shards on 127.0.0.1, under `timeout`. */
export function startShards(dist: string, shards: number, dataDir: string, outputPath: string, spawning?: Spawning, env: NodeJS.ProcessEnv = {}): Promise<Child> {
  return startTrueup(dist, { dataDir, adminToken, nodeFlags: startScriptNodeFlags(), logLevel: 'warn', outputPath, env: { ...env, SHARDS: String(shards) }, spawning })
}

/** Workspaces with these ids, each with an all-write key, limits out of the way and the accounts named; their secrets. */
export async function makeWorkspaces(port: number, ids: readonly string[], accounts: readonly string[] = ['assets:bank', 'income:sales']): Promise<string[]> {
  const secrets: string[] = []
  for (const id of ids) {
    const created = await call(port, 'POST', '/admin/workspaces', adminToken, { id, timezone: 'UTC', limits: { writes_per_minute: 100_000_000, reads_per_minute: 100_000_000 } })
    if (created.status !== 201) throw new Error(`workspace ${id}: ${created.status} ${JSON.stringify(created.json)}`)
    const key = await call(port, 'POST', '/admin/keys', adminToken, { workspace: id, scopes: ['accounts:read', 'accounts:write', 'entries:read', 'entries:write'] })
    if (key.status !== 201) throw new Error(`key of ${id}: ${key.status} ${JSON.stringify(key.json)}`)
    const secret = (key.json as { secret: string }).secret
    for (const name of accounts) {
      const account = await call(port, 'POST', '/v2/accounts', secret, { name })
      if (account.status !== 201) throw new Error(`account ${name} of ${id}: ${account.status} ${JSON.stringify(account.json)}`)
    }
    secrets.push(secret)
  }
  return secrets
}

export function writeResult(name: string, value: unknown): void {
  fs.writeFileSync(path.join(benchDir, 'results', `${name}.json`), `${JSON.stringify(value, null, 2)}\n`)
}

/**
 * @module A throwaway PostgreSQL for the tests and the local cluster: initdb into a temporary directory, the server
 * on a free 127.0.0.1 port with its unix socket inside that directory, fsync on, a bounded wait for it to accept
 * connections, and a stop that ends the process it started (fast shutdown, then SIGKILL after a bound).
 *
 * PostgreSQL refuses to run as root. As root every PostgreSQL program runs as the unprivileged `postgres` user
 * (scripts/ensure-cluster-tools.sh makes sure it exists) through setpriv, which execs in place: the pid we hold is
 * the server's own, so stopping it never depends on a wrapper forwarding a signal.
 */

import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { freePort } from './free-port.ts'

/** Where Debian's PostgreSQL 15 keeps its programs (PG_BIN names another). */
export const postgresBin = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin'

/** Settings small enough for a machine shared by many: the tests and the local cluster use them all. */
export const smallSettings: Readonly<Record<string, string>> = {
  shared_buffers: '16MB', max_connections: '20', fsync: 'on', synchronous_commit: 'on',
  listen_addresses: "'127.0.0.1'", log_min_messages: 'warning', dynamic_shared_memory_type: 'posix',
}

export interface RunAs {
  readonly uid: number
  readonly gid: number
}

/** The user PostgreSQL runs as: ourselves, or `postgres` when we are root. */
export function postgresUser(): RunAs | null {
  if (process.getuid?.() !== 0) return null
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
  return { uid, gid }
}

/** The command line that runs `program` as `user` (setpriv execs, so the pid is the program's). */
export function asUser(user: RunAs | null, program: string, args: readonly string[]): [string, string[]] {
  if (user === null) return [program, [...args]]
  return ['setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', program, ...args]]
}

/** A directory made for PostgreSQL: owned by the user it runs as, private to it. */
export function makeOwnedDir(dir: string, user: RunAs | null): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  if (user !== null) fs.chownSync(dir, user.uid, user.gid)
  return dir
}

export { freePort }

/** Runs a PostgreSQL program to its end as `user`; its output in the error when it fails or outlasts timeoutMs. */
export function runPostgresProgram(user: RunAs | null, program: string, args: readonly string[], timeoutMs: number, env: Record<string, string> = {}): Promise<string> {
  const [command, commandArgs] = asUser(user, program, args)
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...minimalEnv(), ...env } })
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('error', (error) => { clearTimeout(timer); reject(error) })
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve(output)
      else reject(new Error(`${path.basename(program)} ${args.join(' ')}: exit ${code} ${signal ?? ''}\n${output.slice(-3000)}`))
    })
  })
}

/** The environment PostgreSQL's programs get: nothing of the test runner's (NODE_OPTIONS and its loaders). */
export function minimalEnv(): Record<string, string> {
  return { PATH: `${postgresBin}:${process.env.PATH ?? '/usr/bin:/bin'}`, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' }
}

/** Spawns a long-running program as `user`, detached into its own process group, output appended to logFile. */
export function spawnServer(user: RunAs | null, program: string, args: readonly string[], logFile: string, env: Record<string, string> = {}): ChildProcess {
  const [command, commandArgs] = asUser(user, program, args)
  const log = fs.openSync(logFile, 'a')
  const options: SpawnOptions = { stdio: ['ignore', log, log], detached: true, env: { ...minimalEnv(), ...env } }
  const child = spawn(command, commandArgs, options)
  fs.closeSync(log)
  child.unref()
  return child
}

/** Resolves once a TCP connection to 127.0.0.1:port is accepted; rejects after timeoutMs. */
export async function waitForPort(port: number, timeoutMs: number, alive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`the process meant to listen on ${port} exited`)
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => { socket.destroy(); resolve(true) })
      socket.once('error', () => resolve(false))
    })
    if (open) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`nothing listened on 127.0.0.1:${port} within ${timeoutMs} ms`)
}

/** Resolves once the server on 127.0.0.1:port accepts connections (pg_isready), not just its port; bounded. */
export async function waitForPostgres(port: number, timeoutMs: number, alive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`the PostgreSQL meant to listen on ${port} exited`)
    const ready = await runPostgresProgram(null, path.join(postgresBin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port), '-t', '1'], 5_000)
      .then(() => true, () => false)
    if (ready) return
    await new Promise((resolve) => setTimeout(resolve, 150))
  }
  throw new Error(`PostgreSQL on 127.0.0.1:${port} did not accept connections within ${timeoutMs} ms`)
}

/** Whether a process with this pid exists (signal 0 checks without sending). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Sends `signal`, then SIGKILL if the process is still there after graceMs; resolves once it is gone (bounded). */
export async function stopProcess(pid: number, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (!processAlive(pid)) return
  try { process.kill(pid, signal) } catch { return }
  const deadline = Date.now() + graceMs
  while (Date.now() < deadline && processAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50))
  if (!processAlive(pid)) return
  try { process.kill(pid, 'SIGKILL') } catch { return }
  const killDeadline = Date.now() + 5_000
  while (Date.now() < killDeadline && processAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50))
}

/** Writes `settings` at the end of the data dir's postgresql.conf (the last setting of a name wins). */
export function appendSettings(dataDir: string, settings: Readonly<Record<string, string>>): void {
  const lines = Object.entries(settings).map(([name, value]) => `${name} = ${value}`)
  fs.appendFileSync(path.join(dataDir, 'postgresql.conf'), `\n# trueup local PostgreSQL\n${lines.join('\n')}\n`)
}

export interface LocalPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication, local only). */
  readonly url: string
  readonly port: number
  readonly pid: number
  readonly dir: string
  /** Fast shutdown, SIGKILL after a bound, and the temporary directory removed. */
  stop(): Promise<void>
}

export interface LocalPostgresOptions {
  /** The temporary directory's parent (default: the system's). */
  readonly parent?: string
  /** How long start-up may take before it is given up (default 30 s). */
  readonly startTimeoutMs?: number
}

/** initdb into a new temporary directory, then the server on a free port; resolves once it accepts connections. */
export async function startLocalPostgres(options: LocalPostgresOptions = {}): Promise<LocalPostgres> {
  const user = postgresUser()
  const dir = fs.mkdtempSync(path.join(options.parent ?? os.tmpdir(), 'trueup-pg-'))
  if (user !== null) fs.chownSync(dir, user.uid, user.gid)
  const dataDir = path.join(dir, 'data')
  const socketDir = makeOwnedDir(path.join(dir, 'socket'), user)
  const timeoutMs = options.startTimeoutMs ?? 30_000
  let server: ChildProcess | null = null
  try {
    await runPostgresProgram(user, path.join(postgresBin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-instructions'], timeoutMs)
    const port = await freePort()
    appendSettings(dataDir, { ...smallSettings, port: String(port), unix_socket_directories: `'${socketDir}'` })
    server = spawnServer(user, path.join(postgresBin, 'postgres'), ['-D', dataDir], path.join(dir, 'postgres.log'))
    const pid = server.pid!
    await waitForPostgres(port, timeoutMs, () => processAlive(pid))
    const stop = async () => {
      await stopProcess(pid, 'SIGINT', 10_000)
      fs.rmSync(dir, { recursive: true, force: true })
    }
    return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, port, pid, dir, stop }
  } catch (error) {
    if (server?.pid !== undefined) await stopProcess(server.pid, 'SIGKILL', 0)
    const log = fs.existsSync(path.join(dir, 'postgres.log')) ? fs.readFileSync(path.join(dir, 'postgres.log'), 'utf8').slice(-2000) : ''
    fs.rmSync(dir, { recursive: true, force: true })
    throw new Error(`local PostgreSQL did not start: ${(error as Error).message}\n${log}`)
  }
}

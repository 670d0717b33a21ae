/**
 * A supervisor's stop stops the service (docs/API.md, "Running it"): SIGTERM to the process that `npm start` or the
 * `trueup` executable made frees the port and the data dir, with the clean stop's last line and exit 0. Runs the
 * built service (dist/, which `npm install` builds; `npm run build` after a change to src/).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { freePort, repositoryRoot, runToExit } from '../support/process.ts'

t.setTimeout(300_000)
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-supervisor-'))
/** Process groups started here: killed whole at the end, so a service its parent left behind cannot outlive the test. */
const groups: number[] = []
t.teardown(() => {
  for (const group of groups) {
    try { process.kill(-group, 'SIGKILL') } catch { /* already gone */ }
  }
  fs.rmSync(tmpRoot, { recursive: true, force: true })
})

interface Supervised {
  readonly child: ChildProcess
  readonly port: number
  readonly stdout: () => string
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** Spawns command as a supervisor would (its own process group) and waits for the listening line. */
async function supervise(command: string, args: readonly string[], dataDir: string): Promise<Supervised> {
  const port = await freePort()
  // The run's shards (TEST_SHARDS), as assertFreed's start has them (test/support/process.ts): the data dir keeps its number.
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, ADMIN_TOKEN: 'supervised', SHARDS: process.env.TEST_SHARDS ?? '1' }
  const child = spawn(command, args, { cwd: repositoryRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  if (child.pid !== undefined) groups.push(child.pid)
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  child.once('error', (error) => { stderr += String(error) })
  for (let waitedMs = 0; !stdout.includes('trueup listening on'); waitedMs += 100) {
    if (child.exitCode !== null || child.pid === undefined || waitedMs > 60_000) throw new Error(`no listening line; stdout: ${stdout}; stderr: ${stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { child, port, stdout: () => stdout, exited }
}

/** What a supervisor checks after a stop: another service starts on the same port and data dir, and stops. */
async function assertFreed(t: Test, dataDir: string, port: number): Promise<void> {
  const next = await runToExit({ dataDir, adminToken: 'supervised', port, env: { SHUTDOWN_GRACE_MS: '100' }, args: ['--import=tsx', '--input-type=module', '-e', `
    const { loadConfig } = await import('./src/config.ts')
    const { startService } = await import('./src/service.ts')
    const service = await startService(loadConfig(process.env), { print: () => {}, clock: Date.now, onLogFailure: () => {} })
    await service.stop()
    console.log('started and stopped')
  `], timeoutMs: 60_000 })
  t.equal(next.stdout.trim(), 'started and stopped', `the port and the data dir are free (${next.stderr.trim().split('\n')[0] ?? ''})`)
}

function requireBuild(t: Test): boolean {
  if (fs.existsSync(path.join(repositoryRoot, 'dist', 'main.js'))) return true
  t.fail('dist/main.js is missing: npm run build')
  return false
}

for (const [label, command, args] of [
  ['npm start', 'npm', ['start', '--silent']],
  ['the trueup executable', path.join(repositoryRoot, 'bin', 'trueup'), []],
] as const) {
  t.test(`SIGTERM to the process ${label} made stops the service and frees the port and the data dir`, async (t) => {
    if (!requireBuild(t)) return
    const dataDir = path.join(tmpRoot, label.replaceAll(' ', '-'))
    const supervised = await supervise(command, args, dataDir)
    if (label === 'the trueup executable') {
      const commandLine = fs.readFileSync(`/proc/${supervised.child.pid}/cmdline`, 'utf8').split('\0')
      t.same(commandLine.slice(1, 3), ['--max-semi-space-size=32', '--no-memory-reducer'], 'the process spawned is node itself, with npm start\'s flags')
    }
    supervised.child.kill('SIGTERM')
    const exited = await Promise.race([supervised.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 30_000))])
    t.same(exited, { code: 0, signal: null }, 'it exits 0')
    t.match(supervised.stdout(), /trueup stopped: /, 'after the clean stop\'s last line')
    await assertFreed(t, dataDir, supervised.port)
  })
}

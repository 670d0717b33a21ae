/**
 * trueup/client's connect() when there is nothing to connect to (docs/API.md, "The client"): it rejects,
 * and then it is done: no reconnecting in the background, so a process that called it exits by itself.
 * And a runtime with neither a global WebSocket nor the `ws` package gets a rejection that says so.
 * Each case runs in a node process of its own, since what is checked is that process's exit.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { freePort, repositoryRoot } from '../support/process.ts'

const clientUrl = pathToFileURL(path.join(repositoryRoot, 'src/client/index.ts')).href
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-client-connect-'))
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))

interface Exit {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly elapsedMs: number
  /** Date.now() when it exited. */
  readonly exitedAtMs: number
  readonly killed: boolean
}

/** Runs a module script with the tsx loader; kills it after killAfterMs (the process was meant to exit by itself long before). */
function run(script: string, killAfterMs: number, extraArgs: readonly string[] = []): Promise<Exit> {
  const file = path.join(dir, `script-${Math.random().toString(36).slice(2)}.mjs`)
  fs.writeFileSync(file, script)
  const startedMs = Date.now()
  const child = spawn(process.execPath, ['--import=tsx', ...extraArgs, file], { cwd: repositoryRoot, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => { stdout += chunk })
  child.stderr.on('data', (chunk) => { stderr += chunk })
  let killed = false
  const timer = setTimeout(() => { killed = true; child.kill('SIGKILL') }, killAfterMs)
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, elapsedMs: Date.now() - startedMs, exitedAtMs: Date.now(), killed })
    })
  })
}

t.test('connect() to a closed port rejects, then the process exits by itself', async (t) => {
  const port = await freePort()
  const script = `
import { connect } from ${JSON.stringify(clientUrl)}
const startedMs = Date.now()
try {
  await connect('ws://127.0.0.1:${port}/v2/stream', { key: 'tu_nothing' })
  console.log('connected?')
} catch (error) {
  console.log(JSON.stringify({ rejected: error.code ?? error.message, ms: Date.now() - startedMs, atMs: Date.now() }))
}
`
  // Unfixed, the process never exits (a reconnect timer every few seconds): killed after 30 s.
  const exit = await run(script, 30_000)
  t.notOk(exit.killed, `the process exited by itself (after ${exit.elapsedMs} ms; stderr: ${exit.stderr.slice(0, 300)})`)
  t.equal(exit.code, 0)
  const line = JSON.parse(exit.stdout.trim().split('\n').at(-1) ?? '{}')
  t.equal(line.rejected, 'unavailable', 'connect() rejected as unavailable')
  // The loader's start is slow on a busy machine; what counts is the time from the rejection to the exit.
  t.ok(exit.exitedAtMs - line.atMs < 3_000, `exited ${exit.exitedAtMs - line.atMs} ms after the rejection (connect took ${line.ms} ms)`)
})

t.test('a runtime without a global WebSocket and without `ws`: connect() rejects saying what to install', async (t) => {
  // A resolve hook that finds no `ws`, and no global WebSocket (Node 22 has one).
  const hooks = `export async function resolve(specifier, context, next) {
  if (specifier === 'ws') throw Object.assign(new Error("Cannot find package 'ws'"), { code: 'ERR_MODULE_NOT_FOUND' })
  return next(specifier, context)
}`
  const hooksFile = path.join(dir, 'no-ws-hooks.mjs')
  fs.writeFileSync(hooksFile, hooks)
  const script = `
import { register } from 'node:module'
register(${JSON.stringify(pathToFileURL(hooksFile).href)})
delete globalThis.WebSocket
const { connect } = await import(${JSON.stringify(clientUrl)})
try {
  await connect('ws://127.0.0.1:9/v2/stream', { key: 'tu_nothing' })
} catch (error) {
  console.log(JSON.stringify({ message: error.message }))
}
`
  const exit = await run(script, 15_000)
  t.notOk(exit.killed, 'exited by itself')
  const line = JSON.parse(exit.stdout.trim().split('\n').at(-1) ?? '{}')
  t.match(line.message, /no global WebSocket/, 'names the missing global')
  t.match(line.message, /npm install ws/, 'says what to install')
  t.match(line.message, /optional peer dependency/, 'and why it is not there already')
})

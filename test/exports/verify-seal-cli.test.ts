/**
 * scripts/verify-seal.mjs as an auditor runs it (docs/API.md, "The seal"): --help, no argument, a missing file,
 * a file that is not a sealed export, an unusable key: each unusable input exits 2 with its own message; nothing
 * waits on a terminal. The signature against a key is checked in test/http/signed-seal.test.ts.
 * The seal itself (MATCH, exit 0) is checked against real exports in test/http/sealed-close.test.ts.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { repositoryRoot } from '../support/process.ts'

const script = path.join(repositoryRoot, 'scripts', 'verify-seal.mjs')
const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-verify-seal-'))
t.teardown(() => fs.rmSync(tmpDir, { recursive: true, force: true }))

interface Run { readonly code: number | null; readonly stdout: string; readonly stderr: string }

/** Runs the script; stdin stays open (as a terminal's would) unless input is given, and a run that waits is killed after 10 s. */
function run(args: readonly string[], input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    if (input !== undefined) child.stdin.end(input)
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    child.once('close', (code) => {
      clearTimeout(timer)
      child.stdin.destroy()
      resolve({ code, stdout, stderr })
    })
  })
}

t.test('--help prints the usage and the exit codes, exit 2 (no verdict was given)', async (t) => {
  const help = await run(['--help'])
  t.equal(help.code, 2)
  t.match(help.stdout, /^Usage: node scripts\/verify-seal\.mjs <export\.json \| -> \[--public-key <key or file>\]/m)
  t.match(help.stdout, /checks only that the file agrees with itself/, 'says what a check without a key proves')
  for (const code of ['0', '1', '2']) t.match(help.stdout, new RegExp(`^ +${code} `, 'm'), `exit code ${code} explained`)
  t.equal(help.stderr, '')
})

t.test('no argument, or an unknown option: the usage on stderr, exit 2, without waiting for stdin', async (t) => {
  for (const args of [[], ['--frobnicate'], ['a.json', 'b.json']]) {
    const usage = await run(args)
    t.equal(usage.code, 2, `${JSON.stringify(args)}: exit 2`)
    t.match(usage.stderr, /Usage: node scripts\/verify-seal\.mjs/, `${JSON.stringify(args)}: the usage`)
    t.equal(usage.stdout, '')
  }
})

t.test('a file that cannot be read: exit 2 (unusable input) and its own message, not a mismatch', async (t) => {
  const missing = path.join(tmpDir, 'no-such-export.json')
  const result = await run([missing])
  t.equal(result.code, 2)
  t.equal(result.stderr, `cannot read ${missing}: no such file\n`)
  t.notMatch(result.stdout, /MISMATCH/)
})

t.test('not a sealed JSON export (not JSON, not an export, from a file or stdin `-`): exit 2', async (t) => {
  const notJson = path.join(tmpDir, 'not.json')
  fs.writeFileSync(notJson, 'date,amount\n')
  const broken = await run([notJson])
  t.equal(broken.code, 2, 'not JSON')
  t.match(broken.stderr, /^not the JSON export of a closed window: .*JSON/)
  const fromStdin = await run(['-'], '{"format":"something else"}')
  t.equal(fromStdin.code, 2, 'stdin, explicitly')
  t.match(fromStdin.stderr, /^not the JSON export of a closed window/)
})

t.test('an unusable --public-key, or --public-key without a value: exit 2 before any verdict', async (t) => {
  const pack = path.join(tmpDir, 'any.json')
  fs.writeFileSync(pack, '{}')
  const bad = await run([pack, '--public-key', 'bm90IGEga2V5'])
  t.equal(bad.code, 2)
  t.match(bad.stderr, /^unusable --public-key/)
  t.notMatch(bad.stdout, /MATCH/)
  const missingValue = await run([pack, '--public-key'])
  t.equal(missingValue.code, 2)
  t.match(missingValue.stderr, /Usage:/)
})

/**
 * scripts/verify-seal.mjs as an auditor runs it (docs/API.md, "The seal"): --help, no argument, a missing file,
 * a file that is not a sealed export, each with its own exit code and message; nothing waits on a terminal.
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

t.test('--help prints the usage and the exit codes, exit 0', async (t) => {
  const help = await run(['--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /^Usage: node scripts\/verify-seal\.mjs <export\.json \| ->/m)
  for (const code of ['0', '1', '2', '3']) t.match(help.stdout, new RegExp(`^ +${code} `, 'm'), `exit code ${code} explained`)
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

t.test('a file that cannot be read: exit 3 and its own message, not a mismatch', async (t) => {
  const missing = path.join(tmpDir, 'no-such-export.json')
  const result = await run([missing])
  t.equal(result.code, 3)
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

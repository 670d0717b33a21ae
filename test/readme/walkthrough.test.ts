/**
 * README.md's walk-through runs as written: its shell blocks, in order, in one bash session, against a
 * service started on a fresh data dir, each printing what README shows after it (issue 12.18). The rules
 * for reading README are in markdown-blocks.ts and in an HTML comment in README.md itself; the test
 * replaces `:8080` by the port of the service it started and `tu_…` by the API key that service printed.
 * Needs bash, curl and jq (npm test's pretest, scripts/ensure-test-tools.sh, installs the last two).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { freePort, repositoryRoot } from '../support/process.ts'
import { linePattern, outputDifferences, shellBlocks, type ShellBlock } from './markdown-blocks.ts'

const readme = fs.readFileSync(path.join(repositoryRoot, 'README.md'), 'utf8')
const blocksTimeoutMs = 60_000

interface Started {
  readonly child: ChildProcess
  readonly port: number
  /** stdout lines up to and including the `listening` line. */
  readonly startLines: string[]
  readonly apiKey: string
}

/** `npm start` as README's server block runs it, from src/ (no build), on a free port and a fresh data dir. */
async function startService(dataDir: string): Promise<Started> {
  const port = await freePort()
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), DATA_DIR: dataDir }
  const child = spawn(process.execPath, ['--import=tsx', 'src/main.ts'], { cwd: repositoryRoot, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const startLines: string[] = []
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  await new Promise<void>((resolve, reject) => {
    let buffered = ''
    const timer = setTimeout(() => reject(new Error(`no listening line within 30 s; stderr: ${stderr.slice(-2000)}`)), 30_000)
    child.once('exit', (code) => reject(new Error(`the service exited (${code}) before listening; stderr: ${stderr.slice(-2000)}`)))
    // Read stdout to the end (request log lines follow), so that the child never blocks on a full pipe.
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      if (startLines.at(-1)?.includes('listening') === true) return
      buffered += chunk
      const lines = buffered.split('\n')
      buffered = lines.pop() ?? ''
      for (const line of lines) {
        if (startLines.at(-1)?.includes('listening') === true) break
        startLines.push(line)
      }
      if (startLines.at(-1)?.includes('listening') === true) {
        clearTimeout(timer)
        resolve()
      }
    })
  }).catch((error: unknown) => {
    child.kill('SIGKILL')
    throw error
  })
  const apiKey = startLines.map((line) => /API key \(shown once\): (\S+)/.exec(line)?.[1]).find((key) => key !== undefined)
  if (apiKey === undefined) throw new Error(`no API key printed at first start: ${startLines.join(' | ')}`)
  return { child, port, startLines, apiKey }
}

/** One bash script running every block in turn, each block's stdout and stderr to its own files. */
function scriptOf(blocks: readonly ShellBlock[], outputDir: string, substitute: (text: string) => string): string {
  const steps = blocks.map((block, index) => [
    `echo ${index} > ${outputDir}/current`,
    `{\n${substitute(block.script)}\n} > ${outputDir}/${index}.stdout 2> ${outputDir}/${index}.stderr`,
  ].join('\n'))
  return ['set -euo pipefail', ...steps, `echo done > ${outputDir}/current`, ''].join('\n')
}

interface BashRun { readonly code: number; readonly stderr: string }

function runBash(script: string, cwd: string): Promise<BashRun> {
  return new Promise((resolve) => {
    const child = execFile('bash', ['-c', script], { cwd, timeout: blocksTimeoutMs, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } }, (error, _stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stderr })
    })
    child.stdin?.end()
  })
}

t.test('the rules README is read by', async (t) => {
  t.ok(linePattern('{"id":"acc_…","name":"assets:bank"}').test('{"id":"acc_l17v1s0000000001","name":"assets:bank"}'), '… stands for an id')
  t.notOk(linePattern('{"balance":8500}').test('{"balance":8495}'), 'everything else is literal')
  t.notOk(linePattern('a.c').test('abc'), 'regular expression characters are literal')
  t.same(outputDifferences('x\n', 'x\ny'), ['line 2: README shows (nothing), printed "y"'], 'a line more is a difference')
  const blocks = shellBlocks('<!-- walkthrough: skip (install) -->\n```sh\nnpm install\n```\n\ntext\n\n```sh\necho hi\n```\n\n```text\nhi\n```\n\nprose\n\n```sh\ntrue\n```\nmore\n```json\n{}\n```\n')
  t.same(blocks.map((block) => [block.kind, block.expected]), [['skip', null], ['run', 'hi'], ['run', null]], 'markers and output blocks, prose between cuts the link')
})

t.test('README walk-through runs as written on a fresh data dir', async (t) => {
  const blocks = shellBlocks(readme)
  const servers = blocks.filter((block) => block.kind === 'server')
  t.equal(servers.length, 1, 'one block starts the service')
  const runnable = blocks.filter((block) => block.kind === 'run')
  t.ok(runnable.length >= 5, `README has runnable blocks (${runnable.length})`)
  t.ok(blocks.indexOf(servers[0]) < blocks.indexOf(runnable[0]), 'the service starts before the first runnable block')

  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-readme-'))
  t.teardown(() => fs.rmSync(workDir, { recursive: true, force: true }))
  const started = await startService(path.join(workDir, 'data'))
  t.teardown(async () => {
    const exited = new Promise((resolve) => started.child.once('exit', resolve))
    if (started.child.exitCode === null) started.child.kill('SIGTERM')
    await exited
  })
  const substitute = (text: string) => text.replaceAll(':8080', `:${started.port}`).replaceAll('tu_…', started.apiKey)

  // npm's own lines (`> trueup@… start`) are not printed: the test starts src/main.ts, not npm.
  const shownStart = (servers[0].expected ?? '').split('\n').filter((line) => !line.startsWith('> ') && line.trim() !== '').join('\n')
  t.same(outputDifferences(substitute(shownStart), started.startLines.join('\n')), [], `start-up lines as README line ${servers[0].line} shows`)

  const outputDir = path.join(workDir, 'out')
  fs.mkdirSync(outputDir)
  // The blocks run where README says to run them, the repository root: the example files they send are there.
  fs.cpSync(path.join(repositoryRoot, 'docs', 'examples'), path.join(workDir, 'docs', 'examples'), { recursive: true })
  const run = await runBash(scriptOf(runnable, outputDir, substitute), workDir)
  const reached = fs.readFileSync(path.join(outputDir, 'current'), 'utf8').trim()
  const failedBlock = reached === 'done' ? null : runnable[Number(reached)]
  const failedStderr = failedBlock === null ? '' : fs.readFileSync(path.join(outputDir, `${reached}.stderr`), 'utf8')
  t.equal(run.code, 0, failedBlock === null ? 'every block ran' : `the block at README line ${failedBlock.line} failed: ${failedStderr || run.stderr}`)

  runnable.forEach((block, index) => {
    if (failedBlock !== null && index > Number(reached)) return
    const printed = fs.readFileSync(path.join(outputDir, `${index}.stdout`), 'utf8')
    t.same(outputDifferences(substitute(block.expected ?? ''), printed), [], `the block at README line ${block.line} prints ${block.expected === null ? 'nothing' : 'what README shows'}`)
  })
})

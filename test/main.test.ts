/**
 * The trueup process (src/main.ts) as a child process on 127.0.0.1: --version and an unknown argument answered
 * without touching the data dir; a bad configuration and a refused start each one line on stderr and exit 2; a
 * start printing its replay and listening lines, and SIGTERM stopping it cleanly (exit 0, its last line).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { version } from '../src/version.ts'
import { runToExit, startProcess } from './support/process.ts'

t.setTimeout(240_000)

function tempDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-main-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

t.test('the command line is answered before any configuration is read or data dir touched', async (t) => {
  const dataDir = path.join(tempDir(t), 'absent')
  const shown = await runToExit({ dataDir, adminToken: 'main-admin-token', args: ['--import=tsx', 'src/main.ts', '--version'], env: { PORT: 'not a port' } })
  t.same([shown.code, shown.stdout, shown.stderr], [0, `${version}\n`, ''], 'a bad PORT is not even read')
  const unknown = await runToExit({ dataDir, adminToken: 'main-admin-token', args: ['--import=tsx', 'src/main.ts', '--port=1'] })
  t.equal(unknown.code, 2)
  t.equal(unknown.stdout, '')
  t.match(unknown.stderr, /^unknown argument "--port=1": /)
  t.notOk(fs.existsSync(dataDir), 'no data dir made')
})

t.test('a bad configuration: one line naming it on stderr, exit 2, no stack', async (t) => {
  const dataDir = path.join(tempDir(t), 'absent')
  const finished = await runToExit({ dataDir, adminToken: 'main-admin-token', env: { GROUP_COMMIT_RECORDS_MAX: 'many' } })
  t.equal(finished.code, 2)
  t.match(finished.stderr, /^invalid configuration: .*GROUP_COMMIT_RECORDS_MAX.*\n$/)
  t.equal(finished.stderr.split('\n').length, 2, 'one line')
  t.notOk(fs.existsSync(dataDir))
})

t.test('a refused start: its one line on stderr, exit 2', async (t) => {
  const file = path.join(tempDir(t), 'a-file')
  fs.writeFileSync(file, 'not a directory')
  const finished = await runToExit({ dataDir: file, adminToken: 'main-admin-token' })
  t.equal(finished.code, 2)
  t.ok(finished.stderr.startsWith(`DATA_DIR ${file} `), finished.stderr)
  t.equal(finished.stderr.split('\n').length, 2, 'one line, no stack')
  t.equal(finished.stdout, '')
})

t.test('a start says what it replayed and where it listens; SIGTERM stops it cleanly', async (t) => {
  const dataDir = tempDir(t)
  const running = await startProcess({ dataDir, adminToken: 'main-admin-token' })
  t.ok(running.apiKey, 'the first start printed its key')
  t.ok(running.stdout.some((line) => /^Replayed 0 log records \(0 snapshots, 0 older records not needed\) in \d+ ms\.$/.test(line)), 'the replay line')
  t.ok(running.stdout.some((line) => line === `trueup listening on ${running.baseUrl} (data in ${dataDir})`), 'the listening line')
  const response = await fetch(`${running.baseUrl}/v2/accounts`, { headers: { authorization: `Bearer ${running.apiKey}` } })
  t.equal(response.status, 200)
  await response.arrayBuffer()
  running.child.kill('SIGTERM')
  running.child.kill('SIGINT')
  const exit = await running.exited
  t.same(exit, { code: 0, signal: null }, 'a second signal during the stop changes nothing')
  t.match(running.stdout.join('\n'), /trueup stopped: /)

  const again = await startProcess({ dataDir, adminToken: 'main-admin-token' })
  t.equal(again.apiKey, null, 'no first start again')
  t.ok(again.stdout.some((line) => /^Replayed \d+ log records \(\d+ snapshots, \d+ older records not needed\) in \d+ ms\.$/.test(line)))
  again.child.kill('SIGINT')
  t.same(await again.exited, { code: 0, signal: null }, 'SIGINT stops it as SIGTERM does')
})

/**
 * `npm run log:doctor` on a data dir of several shards (scripts/log-doctor.ts): verify checks every log, the
 * registry's and each shard's, and names the one that is damaged; truncate, which cuts one log, asks for its
 * directory and then cuts that shard's log alone.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { open } from 'lmdb'
import t from 'tap'
import { shardOf } from '../../src/shard/placement.ts'
import { killHard, repositoryRoot, requestJson, startProcess } from '../support/process.ts'

t.setTimeout(600_000)

const run = promisify(execFile)
const adminToken = 'doctor-admin'
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-doctor-shards-'))
t.teardown(() => fs.rmSync(tmpRoot, { recursive: true, force: true }))

const doctor = (...args: string[]) => run(process.execPath, ['--import=tsx', 'scripts/log-doctor.ts', ...args], { cwd: repositoryRoot }).then(
  ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
  (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
)

/** Flips a byte of the last record of one log (its checksum then fails), as test/log/corruption.test.ts does. */
async function damageLastRecord(logPath: string): Promise<number> {
  const root = open({ path: logPath, maxDbs: 8 })
  try {
    const records = root.openDB<Buffer, number>({ name: 'records', encoding: 'binary' })
    let last = 0
    for (const key of records.getKeys({ reverse: true, limit: 1 })) last = key
    const value = Buffer.from(records.get(last)!)
    value[8] ^= 0x10
    records.putSync(last, value)
    await root.flushed
    return last
  } finally {
    await root.close()
  }
}

t.test('verify covers the registry and every shard; truncate cuts the one log named', async (t) => {
  const dataDir = path.join(tmpRoot, 'two')
  const service = await startProcess({ dataDir, adminToken, env: { SHARDS: '2' }, startTimeoutMs: 120_000 })
  // A workspace on shard 1 (the first start's "default" is on its own shard).
  const id = ['doc-a', 'doc-b', 'doc-c', 'doc-d'].find((candidate) => shardOf(candidate, 2) === 1)!
  t.equal((await requestJson(service.baseUrl, adminToken, 'POST', '/admin/workspaces', { id, timezone: 'UTC' })).status, 201)
  await killHard(service)

  const clean = await doctor('verify', '--data-dir', dataDir)
  t.equal(clean.code, 0, 'every log intact')
  t.match(clean.stdout, /== registry\n.*\n.*every record is intact/, 'the registry is checked')
  for (const shard of [0, 1]) t.match(clean.stdout, new RegExp(`== shard ${shard}\\nlog ${dataDir}/shards/${shard}/log: \\d+ records`), `shard ${shard} is checked`)

  const shardLog = path.join(dataDir, 'shards', '1', 'log')
  const seq = await damageLastRecord(shardLog)
  const damaged = await doctor('verify', '--data-dir', dataDir)
  t.equal(damaged.code, 2, 'a damaged shard fails the verify')
  t.match(damaged.stdout, new RegExp(`== shard 1\\n(.*\\n)*record ${seq}: DAMAGED: checksum mismatch`), 'under that shard\'s name')
  t.match(damaged.stdout, new RegExp(`truncate --data-dir ${dataDir}/shards/1 --from ${seq} --yes`), 'with the command that cuts that shard\'s log')

  const ambiguous = await doctor('truncate', '--data-dir', dataDir, '--from', String(seq), '--yes')
  t.equal(ambiguous.code, 64, 'truncate on the whole data dir asks which log')
  t.match(ambiguous.stderr, new RegExp(`holds 3 logs; truncate cuts one: give its directory as --data-dir, one of\\n  ${dataDir}/registry\\n  ${dataDir}/shards/0\\n  ${dataDir}/shards/1\\n`))
  const cut = await doctor('truncate', '--data-dir', path.join(dataDir, 'shards', '1'), '--from', String(seq), '--yes')
  t.equal(cut.code, 0, `the shard's log is cut: ${cut.stdout.trim().split('\n').at(-1)}`)
  t.equal((await doctor('verify', '--data-dir', dataDir)).code, 0, 'and the data dir verifies')
})

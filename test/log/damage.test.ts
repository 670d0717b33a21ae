/**
 * src/log/damage.ts on its own: each refusal has its kind and first seq, and a message an operator can act on: the
 * path, the seq, and the recovery commands with the data dir (the log dir's parent) and seq filled in.
 */
import path from 'node:path'
import t from 'tap'
import {
  logRecoveryText, recordDamaged, recordsMissing, recordsRetainedAway, snapshotAhead, StoreDamaged, storeFileDamaged, storeUnopenable,
} from '../../src/log/damage.ts'

const logPath = '/srv/trueup/data/log'

t.test('the recovery text names the data dir and the seq in its commands', async (t) => {
  const text = logRecoveryText(logPath, 17)
  t.match(text, 'cp -a /srv/trueup/data /srv/trueup/data.damaged')
  t.match(text, 'npm run log:doctor -- verify --data-dir /srv/trueup/data\n')
  t.match(text, 'npm run log:doctor -- truncate --data-dir /srv/trueup/data --from 17 --yes')
  t.match(text, 'accept losing record 17 and every record after it')
  t.match(logRecoveryText('log', 3), `--data-dir ${path.resolve('.')}`, 'a relative log path: the data dir resolved')
})

t.test('a damaged record: log_record at its seq, the reason and the recovery', async (t) => {
  const error = recordDamaged(logPath, 12, 'checksum mismatch')
  t.ok(error instanceof StoreDamaged && error instanceof Error)
  t.equal(error.name, 'StoreDamaged')
  t.equal(error.kind, 'log_record')
  t.equal(error.seq, 12)
  t.ok(error.message.startsWith(`log record 12 in ${logPath} is damaged: checksum mismatch.\n`))
  t.match(error.message, '--from 12 --yes')
})

t.test('a missing record: log_gap at the expected seq, saying what follows', async (t) => {
  const gap = recordsMissing(logPath, 8, 11)
  t.equal(gap.kind, 'log_gap')
  t.equal(gap.seq, 8)
  t.match(gap.message, `log record 8 in ${logPath} is missing (the next record is 11).`)
  t.match(recordsMissing(logPath, 8, null).message, '(the log ends there)')
  t.match(gap.message, '--from 8 --yes')
})

t.test('records retention deleted: log_retained at the start seq, the reason, a backup the only way', async (t) => {
  const unusable = recordsRetainedAway(logPath, 1, 500, ['workspace ws_1', 'the system'])
  t.equal(unusable.kind, 'log_retained')
  t.equal(unusable.seq, 1)
  t.match(unusable.message, 'must replay the log from record 1 because the snapshot of workspace ws_1, the system cannot be used')
  t.match(unusable.message, `the log in ${logPath} begins at record 500`)
  t.match(unusable.message, 'copy /srv/trueup/data aside')
  t.notMatch(unusable.message, 'truncate', 'truncating would not help')
  t.match(recordsRetainedAway(logPath, 1, 500, []).message, 'because a workspace or the system has no snapshot')
})

t.test('a snapshot ahead of the log: snapshot_ahead at the first missing record', async (t) => {
  const error = snapshotAhead(logPath, 'workspace ws_1', 90, 80)
  t.equal(error.kind, 'snapshot_ahead')
  t.equal(error.seq, 81)
  t.match(error.message, 'the snapshot of workspace ws_1 covers the log up to record 90')
  t.match(error.message, 'ends at record 80')
  t.match(error.message, '--from 81 --yes')
})

t.test('the store file: store_file and store_unopenable, no seq', async (t) => {
  const file = storeFileDamaged('/srv/trueup/data/log/data.mdb', 'cut short at 4096 bytes')
  t.equal(file.kind, 'store_file')
  t.equal(file.seq, null)
  t.match(file.message, 'the LMDB file /srv/trueup/data/log/data.mdb is damaged: cut short at 4096 bytes.')
  t.match(file.message, 'copy /srv/trueup/data aside')
  const unopenable = storeUnopenable(logPath, 'EACCES')
  t.equal(unopenable.kind, 'store_unopenable')
  t.equal(unopenable.seq, null)
  t.match(unopenable.message, `cannot open the log at ${logPath}: EACCES.`)
})

/**
 * @module `npm run log:doctor -- verify|truncate --data-dir DIR [--from SEQ] [--yes]`: the offline recovery tool of
 * docs/RELIABILITY.md. Run it only while trueup is stopped.
 *
 *   verify    checks every log record (checksum, decoding, no missing seq) and every snapshot; exit 0 clean, 2 damaged.
 *             A data dir of several shards: every log, the registry's and each shard's (DATA_DIR/registry, DATA_DIR/shards/<n>)
 *   truncate  exports record SEQ and every later one to DATA_DIR/log-removed-from-SEQ-<time>.jsonl, then removes them
 *             and every snapshot, so that the next start replays records 1..SEQ-1; needs --yes. One log: with several
 *             shards, --data-dir names the registry's or a shard's directory (the start-up refusal prints which)
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { StoreDamaged } from '../src/log/damage.ts'
import { truncateLog, verifyStore } from '../src/log/doctor.ts'
import { logsOf, type DataDirLog } from '../src/shard/layout.ts'

const usage = 'usage: npm run log:doctor -- verify --data-dir DIR\n       npm run log:doctor -- truncate --data-dir DIR --from SEQ --yes'

async function verify(logPath: string): Promise<number> {
  const report = await verifyStore(logPath)
  process.stdout.write(`log ${logPath}: ${report.records} records, last seq ${report.lastSeq}\n`)
  for (const snapshot of report.snapshots) {
    const name = snapshot.key === ' system' ? 'system' : `workspace ${snapshot.key}`
    process.stdout.write(`snapshot of ${name}: ${snapshot.ok ? 'ok' : `DAMAGED (${snapshot.reason}); start-up ignores it and replays the log`}\n`)
  }
  if (report.damagedCount === 0) {
    process.stdout.write('every record is intact\n')
    return 0
  }
  for (const { seq, reason } of report.damaged) process.stdout.write(`record ${seq}: DAMAGED: ${reason}\n`)
  if (report.damagedCount > report.damaged.length) process.stdout.write(`... and ${report.damagedCount - report.damaged.length} more\n`)
  const first = report.damaged[0].seq
  process.stdout.write(`${report.damagedCount} damaged. Restore from a backup, or cut the log back to record ${first - 1}:\n`)
  process.stdout.write(`  npm run log:doctor -- truncate --data-dir ${path.dirname(logPath)} --from ${first} --yes\n`)
  return 2
}

/** Every log of the data dir (the single one, or the registry's and each shard's), each named when there are several: the worst exit. */
async function verifyAll(logs: readonly DataDirLog[]): Promise<number> {
  let exit = 0
  for (const log of logs) {
    if (logs.length > 1) process.stdout.write(`== ${log.name}\n`)
    try {
      exit = Math.max(exit, await verify(log.path))
    } catch (error) {
      // One unreadable log does not hide the others' verdicts.
      if (!(error instanceof StoreDamaged) || logs.length === 1) throw error
      process.stdout.write(`log ${log.path}: ${error.message}\n`)
      exit = 2
    }
  }
  return exit
}

async function truncate(dataDir: string, logPath: string, fromText: string | undefined, yes: boolean): Promise<number> {
  const fromSeq = Number(fromText)
  if (!Number.isSafeInteger(fromSeq) || fromSeq < 1) {
    process.stderr.write(`--from must be a positive integer\n${usage}\n`)
    return 64
  }
  const before = await verifyStore(logPath)
  const lost = Math.max(0, before.lastSeq - fromSeq + 1)
  process.stdout.write(`cutting the log back to record ${fromSeq - 1} removes ${lost} records (${fromSeq}..${before.lastSeq}) and every snapshot\n`)
  if (!yes) {
    process.stdout.write('nothing done: add --yes to do it (keep a copy of the data dir first)\n')
    return 1
  }
  const exportFile = path.join(dataDir, `log-removed-from-${fromSeq}-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`)
  const report = await truncateLog(logPath, fromSeq, exportFile)
  process.stdout.write(`removed ${report.removed} records and ${report.snapshotsRemoved} snapshots; the removed records are in ${report.exportFile}\n`)
  const after = await verifyStore(logPath)
  if (after.damagedCount > 0) {
    process.stdout.write(`the log still has ${after.damagedCount} damaged records below ${fromSeq}; the first is ${after.damaged[0].seq}\n`)
    return 2
  }
  process.stdout.write(`the log is intact up to record ${after.lastSeq}; trueup can start\n`)
  return 0
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { 'data-dir': { type: 'string' }, from: { type: 'string' }, yes: { type: 'boolean', default: false } },
  })
  const dataDir = values['data-dir']
  if (dataDir === undefined || positionals.length !== 1) {
    process.stderr.write(`${usage}\n`)
    return 64
  }
  const logs = logsOf(path.resolve(dataDir))
  if (positionals[0] === 'verify') return verifyAll(logs)
  if (positionals[0] === 'truncate') {
    if (logs.length > 1) {
      process.stderr.write(`${dataDir} holds ${logs.length} logs; truncate cuts one: give its directory as --data-dir, one of\n${logs.map(({ path: logPath }) => `  ${path.dirname(logPath)}\n`).join('')}`)
      return 64
    }
    return truncate(path.resolve(dataDir), logs[0].path, values.from, values.yes)
  }
  process.stderr.write(`${usage}\n`)
  return 64
}

try {
  process.exitCode = await main()
} catch (error) {
  if (!(error instanceof StoreDamaged)) throw error
  process.stderr.write(`log doctor: ${error.message}\n`)
  process.exitCode = 2
}

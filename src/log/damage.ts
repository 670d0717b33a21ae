/** @module What start-up says when the data dir cannot be trusted: one error type, messages an operator can act on. */

import path from 'node:path'

/**
 * What is wrong. `log_record`: a record fails its checksum or cannot be decoded; `log_gap`: a seq
 * is missing; `log_retained`: recovery needs records that retention deleted; `snapshot_ahead`: a snapshot covers records the log no longer has; `store_file`:
 * the LMDB file is cut short or is not an LMDB file; `store_unopenable`: LMDB refused to open it.
 */
export type DamageKind = 'log_record' | 'log_gap' | 'log_retained' | 'snapshot_ahead' | 'store_file' | 'store_unopenable'

/** A refusal to start: the data dir holds something that start-up cannot turn into trustworthy state. */
export class StoreDamaged extends Error {
  readonly kind: DamageKind
  /** The first log seq concerned, when the damage is in the log. */
  readonly seq: number | null

  constructor(kind: DamageKind, message: string, seq: number | null = null) {
    super(message)
    this.name = 'StoreDamaged'
    this.kind = kind
    this.seq = seq
  }
}

/** The data dir of an LMDB log dir (`DATA_DIR/log`), for the commands the messages print. */
function dataDirOf(logPath: string): string {
  return path.dirname(path.resolve(logPath))
}

/** The recovery steps of docs/RELIABILITY.md, with this data dir and seq filled in. */
export function logRecoveryText(logPath: string, seq: number): string {
  const dataDir = dataDirOf(logPath)
  return [
    'trueup does not start on a log it cannot trust: replaying around the damage would serve wrong balances.',
    'Recovery (docs/RELIABILITY.md, "Recovering from damage"):',
    `  1. Keep trueup stopped and copy the data dir aside: cp -a ${dataDir} ${dataDir}.damaged`,
    `  2. See every damaged record: npm run log:doctor -- verify --data-dir ${dataDir}`,
    '  3. Restore the data dir from a backup taken before the damage, if there is one; or',
    `  4. accept losing record ${seq} and every record after it (they are exported to a file first):`,
    `     npm run log:doctor -- truncate --data-dir ${dataDir} --from ${seq} --yes`,
    '     then start trueup again. Tell clients: writes acknowledged from that record on are gone and their ids will be reused.',
  ].join('\n')
}

export function recordDamaged(logPath: string, seq: number, reason: string): StoreDamaged {
  return new StoreDamaged('log_record', `log record ${seq} in ${logPath} is damaged: ${reason}.\n${logRecoveryText(logPath, seq)}`, seq)
}

export function recordsMissing(logPath: string, expectedSeq: number, foundSeq: number | null): StoreDamaged {
  const found = foundSeq === null ? 'the log ends there' : `the next record is ${foundSeq}`
  return new StoreDamaged('log_gap', `log record ${expectedSeq} in ${logPath} is missing (${found}).\n${logRecoveryText(logPath, expectedSeq)}`, expectedSeq)
}

/**
 * Replay must begin at startSeq (a snapshot it would start from is unusable or missing), but retention
 * deleted every record below firstSeq, trusting the snapshots. The log alone cannot rebuild that state.
 */
export function recordsRetainedAway(logPath: string, startSeq: number, firstSeq: number, unusable: readonly string[]): StoreDamaged {
  const why = unusable.length > 0 ? `the snapshot of ${unusable.join(', ')} cannot be used` : 'a workspace or the system has no snapshot'
  return new StoreDamaged(
    'log_retained',
    `start-up must replay the log from record ${startSeq} because ${why}, but the log in ${logPath} begins at record ${firstSeq}: `
      + 'retention deleted the records below it once snapshots covered them.\n'
      + `Recovery: keep trueup stopped, copy ${dataDirOf(logPath)} aside, and restore the data dir from a backup (docs/RELIABILITY.md, "Recovering from damage").`,
    startSeq,
  )
}

export function snapshotAhead(logPath: string, name: string, snapshotSeq: number, lastSeq: number): StoreDamaged {
  return new StoreDamaged(
    'snapshot_ahead',
    `the snapshot of ${name} covers the log up to record ${snapshotSeq}, but the log in ${logPath} ends at record ${lastSeq}: acknowledged records are missing.\n${logRecoveryText(logPath, lastSeq + 1)}`,
    lastSeq + 1,
  )
}

export function storeFileDamaged(file: string, reason: string): StoreDamaged {
  return new StoreDamaged(
    'store_file',
    `the LMDB file ${file} is damaged: ${reason}. LMDB cannot read it safely (it would crash on the missing pages).\n`
      + `Recovery: keep trueup stopped, copy ${path.dirname(path.dirname(file))} aside, and restore the data dir from a backup (docs/RELIABILITY.md, "Recovering from damage").`,
  )
}

export function storeUnopenable(logPath: string, reason: string): StoreDamaged {
  return new StoreDamaged(
    'store_unopenable',
    `cannot open the log at ${logPath}: ${reason}. Check that the data dir exists, is readable and writable by this user, and has free space.`,
  )
}

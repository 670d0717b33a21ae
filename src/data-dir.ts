/**
 * @module The data dir's one owner: an flock(2) on DATA_DIR/trueup.lock held for the process's life, and the
 * access checks that tell a permission problem from damage before LMDB opens anything.
 */

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { reasonOf, StartRefused } from './start-refused.js'

// Why flock(2), and why through a helper. Two processes on one data dir both serve and both append to one LMDB
// log (LMDB allows several writers, one after the other), handing out the same entry ids; a restart then keeps
// one process's records. The lock must be released by the kernel when its holder dies however it dies (kill -9),
// so a pid file alone will not do (a stale one blocks, or a reused pid looks alive). Node has no flock, and
// lmdb-js has no exclusive open. But an flock belongs to the open file description, not to the process that
// asked for it: we open the lock file, hand the descriptor to `flock --nonblock 3` (util-linux) as its fd 3,
// and when that helper exits the lock stays held by our descriptor until it is closed or this process ends.
// It holds across containers sharing a volume (one kernel, one inode), unlike a socket name. The holder's pid
// is written into the file only so that the refusal can name it; it never decides anything.

const lockFileName = 'trueup.lock'
const conflictExitCode = 75
/** The helpers that take the lock on fd 3, in order: util-linux flock(1), then perl's flock (macOS has no flock(1)). */
const lockHelpers: readonly { readonly command: string; readonly args: readonly string[] }[] = [
  { command: 'flock', args: ['--nonblock', '--exclusive', '--conflict-exit-code', String(conflictExitCode), '3'] },
  { command: 'perl', args: ['-MFcntl=:flock', '-e', `open(my $f, "+<&=", 3) or exit 1; exit(flock($f, LOCK_EX | LOCK_NB) ? 0 : ${conflictExitCode})`] },
]
/** How long a refused start waits for the holder to write its pid (it writes it right after taking the lock). */
const holderPidWaitMs = 1_000
const holderPidPollMs = 20

export interface DataDirLock {
  readonly path: string
  /** Closes the descriptor, which releases the lock. The file stays: removing it would let two holders lock two inodes. */
  release(): void
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/** The pid the holder wrote, waiting a moment for a holder that has just taken the lock. */
function holderPidOf(lockFile: string): string {
  for (let waitedMs = 0; waitedMs <= holderPidWaitMs; waitedMs += holderPidPollMs) {
    const text = fs.readFileSync(lockFile, 'utf8').trim()
    if (/^[1-9]\d*$/.test(text)) return text
    sleepSync(holderPidPollMs)
  }
  return 'unknown'
}

/** Tries each helper on fd; true when locked, false when another open file description holds the lock. */
function tryLock(fd: number, dataDir: string): boolean {
  const failures: string[] = []
  for (const helper of lockHelpers) {
    const result = spawnSync(helper.command, helper.args, { stdio: ['ignore', 'ignore', 'pipe', fd], timeout: 10_000 })
    if (result.status === 0) return true
    if (result.status === conflictExitCode) return false
    failures.push(`${helper.command}: ${result.error?.message ?? (String(result.stderr).trim() || `exit ${result.status}`)}`)
  }
  throw new StartRefused(`cannot lock DATA_DIR ${dataDir}: neither flock(1) (util-linux) nor perl could take the lock (${failures.join('; ')})`)
}

function statOrNull(file: string): fs.Stats | null {
  try {
    return fs.statSync(file)
  } catch {
    return null
  }
}

/** DATA_DIR exists (created if missing) and this user may read, write and enter it. */
function checkDataDirAccess(dataDir: string): void {
  let failed: unknown = null
  try {
    fs.mkdirSync(dataDir, { recursive: true })
  } catch (error) {
    failed = error
  }
  // mkdir fails (EEXIST) where DATA_DIR is a file: that is said as what it is, not as a failed create.
  const stat = statOrNull(dataDir)
  if (stat === null) throw new StartRefused(`DATA_DIR ${dataDir} cannot be created: ${reasonOf(failed)}`)
  if (!stat.isDirectory()) throw new StartRefused(`DATA_DIR ${dataDir} is not a directory`)
  try {
    fs.accessSync(dataDir, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK)
  } catch (error) {
    throw new StartRefused(`DATA_DIR ${dataDir} cannot be read and written: ${reasonOf(error)}`)
  }
}

/**
 * What is already in the data dir must be readable and writable too: an LMDB file or an admin token this
 * user may not open is a permission problem, to be said as one, never as damage to restore from a backup.
 */
export function checkDataDirContents(dataDir: string): void {
  const readWrite = fs.constants.R_OK | fs.constants.W_OK
  const wanted: readonly [string, number][] = [
    ['log', readWrite | fs.constants.X_OK], [path.join('log', 'data.mdb'), readWrite], [path.join('log', 'lock.mdb'), readWrite], ['admin-token', fs.constants.R_OK],
  ]
  for (const [name, mode] of wanted) {
    const file = path.join(dataDir, name)
    let stat: fs.Stats
    try {
      stat = fs.statSync(file)
    } catch (error) {
      // Missing is fine (a new data dir); a file where a directory should be is LMDB's to name.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') continue
      throw new StartRefused(`DATA_DIR ${dataDir}: ${file} cannot be read: ${reasonOf(error)}`)
    }
    if (name === 'log' && !stat.isDirectory()) continue
    try {
      fs.accessSync(file, mode)
    } catch (error) {
      throw new StartRefused(`DATA_DIR ${dataDir}: ${file} cannot be ${mode === fs.constants.R_OK ? 'read' : 'read and written'}: ${reasonOf(error)}`)
    }
  }
}

/**
 * Creates dataDir if missing, checks that it can be used, and takes its lock; a data dir another process (or
 * another service in this one) holds is refused with the holder's pid, and nothing in it is written.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  checkDataDirAccess(dataDir)
  const lockFile = path.join(dataDir, lockFileName)
  let fd: number
  try {
    // Opening an existing file changes nothing in it; only the holder writes (its pid).
    fd = fs.openSync(lockFile, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o644)
  } catch (error) {
    throw new StartRefused(`DATA_DIR ${dataDir} cannot be read and written: ${lockFile}: ${reasonOf(error)}`)
  }
  let locked: boolean
  try {
    locked = tryLock(fd, dataDir)
  } catch (error) {
    fs.closeSync(fd)
    throw error
  }
  if (!locked) {
    fs.closeSync(fd)
    throw new StartRefused(`refusing to start: DATA_DIR ${dataDir} is in use by process ${holderPidOf(lockFile)}`)
  }
  fs.ftruncateSync(fd, 0)
  fs.writeSync(fd, `${process.pid}\n`, 0)
  let released = false
  return {
    path: lockFile,
    release: () => {
      if (released) return
      released = true
      fs.closeSync(fd)
    },
  }
}

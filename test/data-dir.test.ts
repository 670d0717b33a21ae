/**
 * Tests for the data dir's lock and access checks (src/data-dir.ts): the lock taken and its holder's pid written;
 * a second lock on a held dir refused naming the holder (or "unknown" when none was written) and writing nothing;
 * release; a data dir that is a file or cannot be created; what checkDataDirContents lets pass and refuses.
 * Permission refusals (mode 000) are checked only when not root: root passes every access check.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { checkDataDirContents, lockDataDir } from '../src/data-dir.ts'
import { StartRefused } from '../src/start-refused.ts'

type Tap = Parameters<Parameters<typeof t.test>[0]>[0]

function tempDir(t: Tap): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-data-dir-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

const asRoot = process.getuid?.() === 0

t.test('a missing data dir is created, locked, and the lock file holds this pid', async (t) => {
  const dataDir = path.join(tempDir(t), 'a', 'b')
  const lock = lockDataDir(dataDir)
  t.teardown(() => lock.release())
  t.ok(fs.statSync(dataDir).isDirectory())
  t.equal(lock.path, path.join(dataDir, 'trueup.lock'))
  t.equal(fs.readFileSync(lock.path, 'utf8'), `${process.pid}\n`)
})

t.test('a held data dir is refused naming the holder, and nothing is written; after release it can be locked again', async (t) => {
  const dataDir = tempDir(t)
  const first = lockDataDir(dataDir)
  const before = fs.readFileSync(first.path, 'utf8')
  t.throws(() => lockDataDir(dataDir), new StartRefused(`refusing to start: DATA_DIR ${dataDir} is in use by process ${process.pid}`))
  t.equal(fs.readFileSync(first.path, 'utf8'), before, 'the lock file is unchanged')
  first.release()
  first.release()
  const second = lockDataDir(dataDir)
  t.teardown(() => second.release())
  t.equal(fs.readFileSync(second.path, 'utf8'), `${process.pid}\n`)
  t.ok(fs.existsSync(first.path), 'release keeps the file (one inode for every holder)')
})

t.test('a held data dir whose holder wrote no pid: refused as held by an unknown process, after a short wait', async (t) => {
  const dataDir = tempDir(t)
  const lock = lockDataDir(dataDir)
  t.teardown(() => lock.release())
  fs.writeFileSync(lock.path, 'not a pid\n')
  const startedMs = Date.now()
  t.throws(() => lockDataDir(dataDir), { message: `refusing to start: DATA_DIR ${dataDir} is in use by process unknown` })
  t.ok(Date.now() - startedMs >= 900, 'it waited about a second for the pid')
})

t.test('a data dir that is a file, or that cannot be created (below a file, a dangling link), is refused', async (t) => {
  const dir = tempDir(t)
  const file = path.join(dir, 'plain-file')
  fs.writeFileSync(file, 'x')
  t.throws(() => lockDataDir(file), { message: `DATA_DIR ${file} is not a directory` })
  t.throws(() => lockDataDir(path.join(file, 'below')), { message: new RegExp(`^DATA_DIR ${path.join(file, 'below')} cannot be created: `) })
  t.equal(fs.readFileSync(file, 'utf8'), 'x', 'the file is untouched')
  const dangling = path.join(dir, 'dangling')
  fs.symlinkSync(path.join(dir, 'nowhere'), dangling)
  t.throws(() => lockDataDir(dangling), { name: 'StartRefused', message: new RegExp(`^DATA_DIR ${dangling} cannot be created: `) }, 'a dangling link')
})

t.test('checkDataDirContents: a new data dir, a complete one, and a log that is a file pass', async (t) => {
  const dataDir = tempDir(t)
  checkDataDirContents(dataDir)
  fs.mkdirSync(path.join(dataDir, 'log'))
  for (const name of ['data.mdb', 'lock.mdb']) fs.writeFileSync(path.join(dataDir, 'log', name), '')
  fs.writeFileSync(path.join(dataDir, 'admin-token'), 'tu_x')
  checkDataDirContents(dataDir)
  const other = tempDir(t)
  fs.writeFileSync(path.join(other, 'log'), 'not a directory')
  checkDataDirContents(other)
  t.pass('none refused')
})

t.test('checkDataDirContents: an entry that cannot be looked at is refused as unreadable', async (t) => {
  const dataDir = tempDir(t)
  fs.symlinkSync('admin-token', path.join(dataDir, 'admin-token'))
  t.throws(() => checkDataDirContents(dataDir), { name: 'StartRefused', message: new RegExp(`^DATA_DIR ${dataDir}: ${path.join(dataDir, 'admin-token')} cannot be read: `) })
})

t.test('permissions: an unreadable admin token, an unwritable log file, an unusable data dir', { skip: asRoot ? 'root passes every access check' : false }, async (t) => {
  const dataDir = tempDir(t)
  fs.mkdirSync(path.join(dataDir, 'log'))
  fs.writeFileSync(path.join(dataDir, 'log', 'data.mdb'), '')
  fs.chmodSync(path.join(dataDir, 'log', 'data.mdb'), 0o444)
  t.throws(() => checkDataDirContents(dataDir), { message: /data\.mdb cannot be read and written/ })
  fs.chmodSync(path.join(dataDir, 'log', 'data.mdb'), 0o644)
  fs.writeFileSync(path.join(dataDir, 'admin-token'), 'x')
  fs.chmodSync(path.join(dataDir, 'admin-token'), 0o000)
  t.throws(() => checkDataDirContents(dataDir), { message: /admin-token cannot be read: / })
  const closed = path.join(tempDir(t), 'closed')
  fs.mkdirSync(closed, 0o500)
  t.throws(() => lockDataDir(closed), { message: new RegExp(`^DATA_DIR ${closed} cannot be read and written: `) })
})

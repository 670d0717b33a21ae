/**
 * src/shard/layout.ts on its own, over temporary data dirs: the paths of the layout; how many shards a data dir was
 * written with (0 new, 1 the single log, n from shards.json, a shards.json naming no number refused); claiming a
 * data dir for a number of shards (recorded on a new one, 'convert' for the single log, another number refused
 * before anything is written, a finished conversion tidied); the single log moved aside without overwriting; the
 * default SHARDS; every log of a layout.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import {
  claimLayout, conversionDirName, keepSingleLogAside, layoutFile, logsOf, registryDir, shardDir, shardsDefault, shardsWritten, singleLogBackupName,
} from '../../src/shard/layout.ts'
import { StartRefused } from '../../src/start-refused.ts'

const roots: string[] = []
t.teardown(() => { for (const dir of roots) fs.rmSync(dir, { recursive: true, force: true }) })

function dataDir(layout: { log?: boolean; shards?: unknown } = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-layout-'))
  roots.push(dir)
  if (layout.log === true) fs.mkdirSync(path.join(dir, 'log'))
  if (layout.shards !== undefined) fs.writeFileSync(path.join(dir, 'shards.json'), JSON.stringify({ shards: layout.shards }))
  return dir
}

t.test('the paths', async (t) => {
  t.equal(registryDir('/d'), path.join('/d', 'registry'))
  t.equal(shardDir('/d', 3), path.join('/d', 'shards', '3'))
  t.equal(layoutFile('/d'), path.join('/d', 'shards.json'))
})

t.test('shards written: 0 new, 1 the single log, n from shards.json, anything else refused', async (t) => {
  t.equal(shardsWritten(dataDir()), 0)
  t.equal(shardsWritten(dataDir({ log: true })), 1)
  t.equal(shardsWritten(dataDir({ shards: 4 })), 4)
  t.equal(shardsWritten(dataDir({ log: true, shards: 4 })), 4, 'shards.json rules once it exists')
  for (const shards of [1, 0, 2.5, '4', null]) t.throws(() => shardsWritten(dataDir({ shards })), StartRefused, `shards: ${JSON.stringify(shards)}`)
})

t.test('claiming: a new data dir records its number; the same number again is ready; another is refused, nothing written', async (t) => {
  const dir = dataDir()
  t.equal(claimLayout(dir, 1), 'ready')
  t.equal(fs.existsSync(layoutFile(dir)), false, 'one shard: no shards.json')
  t.equal(claimLayout(dir, 4), 'ready')
  t.same(JSON.parse(fs.readFileSync(layoutFile(dir), 'utf8')), { shards: 4 })
  t.equal(claimLayout(dir, 4), 'ready')
  const before = fs.readdirSync(dir)
  t.throws(() => claimLayout(dir, 2), { name: 'StartRefused', message: /was written with SHARDS=4; start it with SHARDS=4/ })
  t.throws(() => claimLayout(dir, 1), StartRefused)
  t.same(fs.readdirSync(dir), before)
  t.same(JSON.parse(fs.readFileSync(layoutFile(dir), 'utf8')), { shards: 4 })
})

t.test('claiming the single log: one shard ready, more to be converted', async (t) => {
  t.equal(claimLayout(dataDir({ log: true }), 1), 'ready')
  const dir = dataDir({ log: true })
  t.equal(claimLayout(dir, 3), 'convert')
  t.equal(fs.existsSync(layoutFile(dir)), false, 'the conversion writes shards.json, not the claim')
})

t.test('a conversion stopped after its switch: the single log moved aside, the conversion dir removed', async (t) => {
  const dir = dataDir({ log: true, shards: 2 })
  fs.writeFileSync(path.join(dir, 'log', 'data.mdb'), 'x')
  fs.mkdirSync(path.join(dir, conversionDirName))
  t.equal(claimLayout(dir, 2), 'ready')
  t.equal(fs.existsSync(path.join(dir, 'log')), false)
  t.equal(fs.readFileSync(path.join(dir, singleLogBackupName, 'data.mdb'), 'utf8'), 'x')
  t.equal(fs.existsSync(path.join(dir, conversionDirName)), false)
})

t.test('moving the single log aside never overwrites an earlier copy; nothing to do without shards.json or a log', async (t) => {
  const dir = dataDir({ log: true, shards: 2 })
  t.equal(keepSingleLogAside(dir), path.join(dir, singleLogBackupName))
  fs.mkdirSync(path.join(dir, 'log'))
  t.equal(keepSingleLogAside(dir), path.join(dir, `${singleLogBackupName}.2`))
  t.equal(keepSingleLogAside(dir), null, 'no log left')
  t.equal(keepSingleLogAside(dataDir({ log: true })), null, 'no shards.json: the single log is the data')
})

t.test('the default SHARDS: as written, else the cores up to the limit', async (t) => {
  t.equal(shardsDefault(dataDir({ shards: 6 }), 2), 6, 'as written, whatever the limit')
  t.equal(shardsDefault(dataDir({ log: true }), 8), 1)
  const cores = Math.max(1, Math.min(3, os.availableParallelism()))
  t.equal(shardsDefault(dataDir(), 3), cores)
  t.equal(shardsDefault(dataDir(), 1), 1)
  t.equal(shardsDefault(dataDir({ shards: 'many' }), 3), cores, 'a shards.json naming no number: the cores (the start refuses it)')
})

t.test('every log of a layout', async (t) => {
  const single = dataDir({ log: true })
  t.same(logsOf(single), [{ name: 'log', path: path.join(single, 'log') }])
  const sharded = dataDir({ shards: 2 })
  t.same(logsOf(sharded), [
    { name: 'registry', path: path.join(sharded, 'registry', 'log') },
    { name: 'shard 0', path: path.join(sharded, 'shards', '0', 'log') },
    { name: 'shard 1', path: path.join(sharded, 'shards', '1', 'log') },
  ])
})

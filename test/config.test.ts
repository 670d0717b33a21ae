/** src/config.ts: environment and embedded options go through one resolution, with the same defaults and checks. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { configDefaults, loadConfig, resolveConfig } from '../src/config.ts'

t.test('defaults, and an unset or undefined value takes the default', async (t) => {
  const config = loadConfig({})
  t.match(config, { host: '127.0.0.1', port: 8080, adminToken: null, logLevel: 'info', metricsToken: null, requestIdLengthMax: 128, logBufferBytesMax: 16 * 1024 * 1024 })
  t.equal(config.dataDir, path.resolve('./data'))
  t.same(loadConfig({ LOG_LEVEL: '', METRICS_TOKEN: '', ADMIN_TOKEN: '' }), config, 'empty variables are unset')
  t.same(resolveConfig({ adminToken: undefined, metricsToken: undefined, port: undefined }), { ...config, shards: configDefaults.shards }, 'undefined options are unset (SHARDS aside: the embedded default is one shard)')
  t.ok(Object.isFrozen(config))
  t.ok(Object.isFrozen(configDefaults))
})

t.test('LOG_LEVEL and METRICS_TOKEN', async (t) => {
  for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) t.equal(loadConfig({ LOG_LEVEL: level }).logLevel, level)
  t.throws(() => loadConfig({ LOG_LEVEL: 'INFO' }), /LOG_LEVEL must be one of/)
  t.equal(loadConfig({ METRICS_TOKEN: 'scrape' }).metricsToken, 'scrape')
})

t.test('the checks hold for options as for the environment', async (t) => {
  t.throws(() => resolveConfig({ port: 70_000 }), /PORT must be 0..65535/)
  t.throws(() => loadConfig({ PORT: '-1' }), /non-negative integer/)
  t.throws(() => resolveConfig({ groupCommitRecordsMax: 10, pendingRecordsMax: 5 }), /must not exceed/)
  t.throws(() => resolveConfig({ logBufferBytesMax: 1024 }), /at least 64 KiB/)
  t.throws(() => resolveConfig({ logLevel: 'loud' as never }), /logLevel must be one of/)
})

t.test('log retention: two snapshot intervals unless set; at least one record and one per batch', async (t) => {
  t.equal(loadConfig({}).logRetentionCommands, 2 * configDefaults.snapshotCommandsInterval, 'the default follows the snapshot interval')
  t.equal(loadConfig({ SNAPSHOT_COMMANDS_INTERVAL: '1000' }).logRetentionCommands, 2_000)
  t.equal(loadConfig({ LOG_RETENTION_COMMANDS: '5000' }).logRetentionCommands, 5_000)
  t.equal(loadConfig({ LOG_RETENTION_BATCH_RECORDS_MAX: '64' }).logRetentionBatchRecordsMax, 64)
  t.throws(() => resolveConfig({ logRetentionCommands: 0 }), /LOG_RETENTION_COMMANDS must be at least 1/)
  t.throws(() => resolveConfig({ logRetentionBatchRecordsMax: 0 }), /LOG_RETENTION_BATCH_RECORDS_MAX must be at least 1/)
})

t.test('log retention by bytes: LOG_RETENTION_BYTES alone replaces the count; with LOG_RETENTION_COMMANDS both hold', async (t) => {
  t.equal(loadConfig({}).logRetentionBytes, null, 'no bytes kept by default')
  const bytesOnly = loadConfig({ LOG_RETENTION_BYTES: String(10 * 2 ** 30) })
  t.same([bytesOnly.logRetentionBytes, bytesOnly.logRetentionCommands], [10 * 2 ** 30, null], 'bytes alone: no count')
  const both = loadConfig({ LOG_RETENTION_BYTES: '1000000', LOG_RETENTION_COMMANDS: '5000' })
  t.same([both.logRetentionBytes, both.logRetentionCommands], [1_000_000, 5_000], 'both kept')
  t.throws(() => resolveConfig({ logRetentionBytes: 0 }), /LOG_RETENTION_BYTES must be at least 1/)
})

t.test('SHARDS: unset, the number the data dir was written with, else the cores; set, as given; embedded, one', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-config-'))
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }))
  const cores = Math.min(os.availableParallelism(), 64)
  t.equal(loadConfig({ DATA_DIR: path.join(root, 'new') }).shards, cores, 'a new data dir: the cores')
  fs.mkdirSync(path.join(root, 'single', 'log'), { recursive: true })
  t.equal(loadConfig({ DATA_DIR: path.join(root, 'single') }).shards, 1, 'a single-log data dir stays one log (no conversion unless SHARDS asks)')
  fs.mkdirSync(path.join(root, 'four'))
  fs.writeFileSync(path.join(root, 'four', 'shards.json'), '{"shards":4}\n')
  t.equal(loadConfig({ DATA_DIR: path.join(root, 'four') }).shards, 4, 'a data dir written with SHARDS=4')
  t.equal(loadConfig({ DATA_DIR: path.join(root, 'four'), SHARDS: '3' }).shards, 3, 'SHARDS as given (the start then refuses the mismatch)')
  fs.mkdirSync(path.join(root, 'broken'))
  fs.writeFileSync(path.join(root, 'broken', 'shards.json'), '{}')
  t.equal(loadConfig({ DATA_DIR: path.join(root, 'broken') }).shards, cores, 'an unreadable shards.json: the cores (the start refuses it with its message)')
  t.equal(resolveConfig({}).shards, 1, 'the embedded Ledger: one shard')
})

t.test('NODE_SHARDS: the shards a cluster node claims at start', async (t) => {
  const cluster = { CLUSTER_DATABASE_URL: 'postgres://127.0.0.1/db', NODE_ID: 'a', NODE_URL: 'http://127.0.0.1:1' }
  t.equal(loadConfig({ ...cluster, SHARDS: '2' }).cluster?.claims, null, 'unset: every shard')
  t.same(loadConfig({ ...cluster, SHARDS: '2', NODE_SHARDS: '0, 2' }).cluster?.claims, [0, 2], 'the registry is shard SHARDS')
  t.throws(() => loadConfig({ ...cluster, SHARDS: '2', NODE_SHARDS: '3' }), /NODE_SHARDS must name shards from 0 to 2/)
  t.throws(() => loadConfig({ ...cluster, SHARDS: '1', NODE_SHARDS: '1' }), /NODE_SHARDS must name shards from 0 to 0/, 'one log is shard 0')
  t.throws(() => loadConfig({ ...cluster, SHARDS: '2', NODE_SHARDS: 'first' }), /NODE_SHARDS must be shard numbers separated by commas/)
})

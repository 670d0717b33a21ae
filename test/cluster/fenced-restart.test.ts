/**
 * @module A node restarted on a data dir whose local log is not a prefix of the database's (docs/CLUSTER.md, "What a
 * refused group leaves"): real node processes sharing one real PostgreSQL. The local log's records past the last seq
 * where it matches the database's (records the database never took, and records that differ from the database's at
 * the same seqs) are dropped at start; the node catches up and follows the owner as any standby does.
 */

import path from 'node:path'
import t from 'tap'
import { recordsOfRows, type GroupRow } from '../../src/cluster/log-group.ts'
import { decodeRecord, type LogRecord } from '../../src/log/codec.ts'
import { CommandLog } from '../../src/log/command-log.ts'
import { killHard } from '../support/process.ts'
import {
  countDescribed, databaseLog, entriesOf, localLogDifference, request, restartNode, startCluster, testDatabase, waitFor,
} from '../support/cluster-nodes.ts'

t.setTimeout(600_000)

const database = testDatabase(t)

const sale = (description: string) => ({ lines: [{ account: 'assets:bank', amount: 100 }, { account: 'income:sales', amount: -100 }], description })

/**
 * Appends to a stopped node's local log (real LMDB, no database) copies of the database's last record under new
 * descriptions: what a fenced owner's last group commit leaves, written locally and refused by the database.
 */
async function appendUnanswered(dataDir: string, template: Buffer, templateSeq: number, descriptions: readonly string[]): Promise<number> {
  const read = decodeRecord(templateSeq, template)
  if (!read.ok) throw new Error(`record ${templateSeq} does not decode: ${read.reason}`)
  const log = new CommandLog({ path: path.join(dataDir, 'log'), groupCommitRecordsMax: 64, pendingRecordsMax: 64 })
  try {
    let lastSeq = log.lastSeq
    for (const description of descriptions) {
      lastSeq = log.append({ ...read.record, command: { ...read.record.command, description } } as LogRecord)
    }
    await new Promise<void>((resolve, reject) => log.afterDurable(lastSeq, (error) => (error === null ? resolve() : reject(error))))
    return log.lastSeq
  } finally {
    await log.close()
  }
}

t.test('a node whose local log holds records the database never took drops them at start and becomes a standby', async (t) => {
  const { nodes, key } = await startCluster(t, database.db, database.url, ['node-a', 'node-b'], ['assets:bank', 'income:sales'])
  const [owner, standby] = nodes
  for (const description of ['answered-1', 'answered-2']) {
    t.equal((await request(owner.process.baseUrl, key, 'POST', '/v2/entries', sale(description))).status, 201, `${description} answered`)
  }
  // node-b follows (a notification's time), then stops; its local log then gets three records the database never took.
  await new Promise((resolve) => setTimeout(resolve, 1_500))
  await killHard(standby.process)
  const lastGroup = (await database.db.query<GroupRow>('SELECT seq, epoch, count, record FROM log WHERE shard = 0 ORDER BY seq DESC LIMIT 1')).rows
  const last = recordsOfRows(lastGroup, 0, Number.POSITIVE_INFINITY).at(-1)!
  const localLastSeq = await appendUnanswered(standby.dataDir, last.record, last.seq, ['unanswered-1', 'unanswered-2', 'unanswered-3'])
  // The owner writes on: the database's records at some of those seqs differ from the local ones.
  t.equal((await request(owner.process.baseUrl, key, 'POST', '/v2/entries', sale('answered-3'))).status, 201, 'answered-3 answered')
  const databaseLastSeq = (await databaseLog(database.db)).length
  t.ok(localLastSeq > databaseLastSeq - 1, `the local log (to ${localLastSeq}) runs past or beside the database's (to ${databaseLastSeq})`)
  t.not(await localLogDifference(database.db, standby.dataDir), null, 'the local log is not a prefix of the database\'s')

  const restarted = await restartNode(database.url, standby)
  nodes.push(restarted)
  const stderr = () => restarted.process.stderr.join('')
  t.match(stderr(), /dropped local records \d+\.\.\d+ \(3\), never answered/, `it said what it dropped: ${stderr()}`)
  t.notMatch(stderr(), /not serving/, 'and does not refuse the shard')
  // A standby: it forwards, and follows what the owner writes next.
  t.equal((await request(restarted.process.baseUrl, key, 'POST', '/v2/entries', sale('answered-4'))).status, 201, 'a write through it reaches the owner')
  const ownerEntries = await entriesOf(owner.process.baseUrl, key)
  const viaRestarted = await entriesOf(restarted.process.baseUrl, key)
  t.same([...viaRestarted].sort(), [...ownerEntries].sort(), 'its reads are the owner\'s')
  t.same([...ownerEntries.values()].filter((description) => description.startsWith('unanswered')), [], 'none of the unanswered records')
  const followed = await waitFor(async () => (await databaseLog(database.db)).some((record) => record.text.includes('answered-4')), 5_000)
  t.ok(followed)
  await new Promise((resolve) => setTimeout(resolve, 1_500))
  await killHard(restarted.process)
  t.equal(await localLogDifference(database.db, restarted.dataDir), null, 'stopped, its local log is the database\'s, record for record')
  const records = await databaseLog(database.db)
  t.same(['unanswered-1', 'unanswered-2', 'unanswered-3'].map((description) => countDescribed(records, description)), [0, 0, 0], 'the database never took them')
})

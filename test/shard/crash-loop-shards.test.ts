/**
 * The crash loop (test/support/crash/loop.ts) against SHARDS=4: kill -9 rounds under mixed load lose nothing, and
 * the offline check after the last kill covers the registry's log and every shard's.
 */
import t from 'tap'
import { runCrashLoop } from '../support/crash/loop.ts'

t.setTimeout(900_000)

t.test('SHARDS=4: a kill -9 round under mixed load loses nothing; every shard\'s log checked', async (t) => {
  const lines: string[] = []
  const summary = await runCrashLoop({
    rounds: 1, seed: 20261127, writersPerWorkspace: 2, killAfterMsMin: 300, killAfterMsMax: 1_500, cleanStopEvery: 0, startupKillEvery: 0, opsPerWriterMax: 2_000, shards: 4,
    log: (line) => { lines.push(line); t.comment(line) },
  })
  t.ok(summary.writesAcknowledged > 0, `${summary.writesAcknowledged} writes acknowledged`)
  t.equal(summary.lost, 0, 'nothing acknowledged was lost')
  t.same(summary.problemSamples, [], 'no inconsistency')
  t.same(summary.unexpected, [], 'no unexpected answer before a kill')
  for (const name of ['registry', 'shard 0', 'shard 1', 'shard 2', 'shard 3']) {
    t.ok(lines.some((line) => line.startsWith(`${name}: `) && line.endsWith(', 0 damaged')), `${name}'s log checked after the last kill`)
  }
})

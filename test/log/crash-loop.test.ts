/**
 * The crash loop, short form (scripts/crash-loop.ts runs the long one): CRASH_ROUNDS (default 3) kill -9 rounds under
 * mixed load (entries, back-dated entries, windows, statement lines, matches, unmatches, closes, keyed retries), each
 * followed by a restart and a full audit, plus one kill during start-up and one clean stop.
 */
import t from 'tap'
import { runCrashLoop } from '../support/crash/loop.ts'

const rounds = Number(process.env.CRASH_ROUNDS ?? 3)
const seed = Number(process.env.CRASH_SEED ?? 20261122)

t.test(`${rounds} rounds of kill -9 under mixed load lose nothing`, async (t) => {
  const summary = await runCrashLoop({
    rounds, seed, writersPerWorkspace: 3, killAfterMsMin: 300, killAfterMsMax: 1_500, cleanStopEvery: 3, startupKillEvery: 2, opsPerWriterMax: 5_000,
    log: (line) => t.comment(line),
  })
  t.comment(`seed ${seed}; data dir ${summary.dataDir}`)
  t.ok(summary.writesAcknowledged > 100, `${summary.writesAcknowledged} writes acknowledged (${JSON.stringify(summary.acknowledgedByKind)})`)
  for (const kind of ['entry', 'window', 'lines', 'match']) t.ok((summary.acknowledgedByKind[kind] ?? 0) > 0, `some ${kind} writes were acknowledged`)
  t.equal(summary.lost, 0, 'nothing acknowledged was lost')
  t.same(summary.problemSamples, [], 'no inconsistency')
  t.same(summary.unexpected, [], 'no unexpected answer before a kill')
  t.ok(summary.replaysChecked > 0, `${summary.replaysChecked} Idempotency-Key replays checked`)
  t.ok(summary.residualsChecked > 0, `${summary.residualsChecked} window residuals recomputed`)
  t.equal(summary.cleanStops, Math.floor(rounds / 3), 'the clean stops exited 0 and restarted')
})

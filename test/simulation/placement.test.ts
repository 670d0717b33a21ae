/** The seeded model of placement and leases (placement-sim.ts): nodes paused, restarted, racing for one shard while clients write; fencing checked throughout. */
import t from 'tap'
import { simulatePlacement, type PlacementReport } from './placement-sim.ts'
import { soundRules } from './sim-database.ts'

// Each seed takes about 2 s on a quiet machine; bounded by steps, not by time.
const seeds = [1, 2, 3, 4]
const steps = 4_000
const reports: PlacementReport[] = []

for (const seed of seeds) {
  t.test(`seed ${seed}, ${steps} steps: no two owners of an epoch, no stale commit, no write lost or doubled, one gapless log`, async (t) => {
    const report = await simulatePlacement({ seed, steps })
    reports.push(report)
    t.equal(report.steps, steps, 'every step ran')
    t.ok(report.acknowledged > 0 && report.logRecords >= report.acknowledged, `writes acknowledged (${report.acknowledged}), the log holds them (${report.logRecords})`)
    t.ok(report.takeovers > 0, `takeovers (${report.takeovers}, epoch ${report.finalEpoch} at the end)`)
  })
}

t.test('what the seeds exercised, together', async (t) => {
  t.equal(reports.length, seeds.length, 'every seed ran')
  const sum = (field: keyof PlacementReport) => reports.reduce((total, report) => total + report[field], 0)
  t.ok(sum('claims') === seeds.length, 'each seed began with one claim (epoch 1)')
  for (const field of ['takeovers', 'racesLost', 'fencedAppends', 'fencedRenewals', 'pauses', 'lapsedWhilePaused', 'restarts', 'replayedRetries'] as const) {
    t.ok(sum(field) > 0, `${field}: ${sum(field)}`)
  }
})

t.test('deterministic: the same seed, the same report', async (t) => {
  const first = await simulatePlacement({ seed: 9, steps: 1_500 })
  const second = await simulatePlacement({ seed: 9, steps: 1_500 })
  t.same(second, first)
  t.ok(first.takeovers > 0, 'with takeovers in it')
})

// The checks must catch the database's rules broken one at a time (each seen failing; the simulation's own rules stay
// sound). A restarted node's earlier process resuming with a write in flight is rare: the four seeds together must catch it.
async function caughtIn(rules: typeof soundRules, pattern: RegExp): Promise<number[]> {
  const caught: number[] = []
  for (const seed of seeds) {
    const failure = await simulatePlacement({ seed, steps, rules }).then(() => null, (error: Error) => error)
    if (failure !== null && pattern.test(failure.message)) caught.push(seed)
    else if (failure !== null) throw failure
  }
  return caught
}

t.test("an append fenced by the owner alone lets a restarted node's earlier process commit: caught", async (t) => {
  const caught = await caughtIn({ ...soundRules, appendChecksEpoch: false }, /committed at epoch \d+, while epoch \d+ is/)
  t.ok(caught.length > 0, `caught with seeds ${caught.join(', ')}`)
})

t.test('a takeover that keeps the epoch gives it a second owner: caught', async (t) => {
  const caught = await caughtIn({ ...soundRules, takeoverBumpsEpoch: false }, /two owners able to commit in the same epoch/)
  t.same(caught, seeds, 'with every seed')
})

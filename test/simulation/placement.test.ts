/** The seeded model of placement and leases (placement-sim.ts): nodes paused, restarted, racing for one shard while clients write; fencing checked throughout. */
import t from 'tap'
import { simulateOwnerStall, simulatePlacement, type PlacementReport } from './placement-sim.ts'
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
  for (const field of ['takeovers', 'racesLost', 'fencedAppends', 'fencedRenewals', 'pauses', 'lapsedWhilePaused', 'restarts', 'replayedRetries', 'stalls', 'renewalsWhileStalled', 'renewalsStoppedByStall', 'keptThroughLongStall', 'lostInStall'] as const) {
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

// The owner's lease is renewed by a thread of its own (src/cluster/lease-renewer.ts): a stall of the node's thread
// shorter than mainThreadStallMsMax (5 s) does not lose the shard, though it outlasts the 3 s lease; renewals stop at
// the bound, so a longer stall loses it once the lease runs out; a process stopped whole (SIGSTOP) renews nothing.
const stallSeeds = [1, 2, 3]

for (const seed of stallSeeds) {
  t.test(`seed ${seed}: an owner whose thread stalls 4 s keeps its shard; one stalled 12 s loses it`, async (t) => {
    const short = await simulateOwnerStall({ seed, stallMs: 4_000, whole: false })
    t.ok(short.renewalsWhileStalled > 0, `its renewer renewed while its thread stalled (${short.renewalsWhileStalled})`)
    t.notOk(short.lapsedDuringStall, 'its lease never ran out')
    t.same(short.placementAfterStall, { owner: short.stalledNode, epoch: short.epoch }, 'the same owner and epoch when the stall ends')
    t.ok(short.servesAfter, 'it still serves the shard afterwards')
    t.ok(short.acknowledgedAfter > 0, `writes acknowledged after the stall (${short.acknowledgedAfter})`)

    const long = await simulateOwnerStall({ seed, stallMs: 12_000, whole: false })
    t.ok(long.renewalsWhileStalled > 0 && long.renewalsStoppedByStall === 1, `its renewer renewed (${long.renewalsWhileStalled}), then stopped at the bound`)
    t.ok(long.placementAfterStall.epoch > long.epoch && long.placementAfterStall.owner !== long.stalledNode, `taken over (epoch ${long.placementAfterStall.epoch} by ${long.placementAfterStall.owner})`)
    t.notOk(long.servesAfter, 'the stalled node stepped down')
    t.ok(long.acknowledgedAfter > 0, `writes acknowledged after the stall (${long.acknowledgedAfter})`)
  })

  t.test(`seed ${seed}: an owner stopped whole (SIGSTOP) for 4 s renews nothing: its lease runs out`, async (t) => {
    const stopped = await simulateOwnerStall({ seed, stallMs: 4_000, whole: true })
    t.equal(stopped.renewalsWhileStalled, 0, 'no renewal sent')
    t.ok(stopped.lapsedDuringStall, 'its lease ran out while it was stopped')
  })
}

t.test('renewals on the node\'s own thread (a bound of 0): the same 4 s stall lets the lease run out', async (t) => {
  const outcome = await simulateOwnerStall({ seed: 1, stallMs: 4_000, whole: false, stallMsMax: 0 })
  t.equal(outcome.renewalsWhileStalled, 0, 'no renewal sent')
  t.ok(outcome.lapsedDuringStall, 'its lease ran out while its thread stalled')
})

/** The seeded simulation, short budget: a few seeds of random clients, crashes and restarts, checked by the auditor and the triple check. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { simulate } from './simulator.ts'

// Seeds fixed so a failure in CI names a run anyone can repeat (npm run simulate -- --seed N --steps M).
const runs = [{ seed: 1, steps: 2_500 }, { seed: 20261123, steps: 2_500 }]

for (const { seed, steps } of runs) {
  t.test(`seed ${seed}, ${steps} steps`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-sim-'))
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
    const report = await simulate({ seed, steps, dir })
    t.equal(report.steps, steps, 'every step ran')
    t.ok(report.crashes.transaction + report.crashes.flush > 0, `crashes struck (${JSON.stringify(report.crashes)})`)
    t.ok(report.tripleChecks >= steps / 500, `triple checks ran (${report.tripleChecks})`)
    t.ok(report.replayed > 0, `idempotent retries were replayed (${report.replayed})`)
    t.ok(Object.keys(report.rejections).length >= 8, `many rejection codes were exercised: ${JSON.stringify(report.rejections)}`)
    t.ok(report.rejectionsChecked > 0, `rejections were checked to change nothing (${report.rejectionsChecked})`)
  })
}

t.test('deterministic: the same seed runs the same way (so a failing seed and step reproduce)', async (t) => {
  const reports = []
  for (let run = 0; run < 2; run++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-sim-'))
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
    reports.push(await simulate({ seed: 77, steps: 400, dir, crashChance: 0.05 }))
  }
  t.same(reports[1], reports[0])
  t.ok(reports[0].crashes.transaction + reports[0].crashes.flush > 0, 'with crashes in it')
})

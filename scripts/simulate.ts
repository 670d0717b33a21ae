/**
 * The seeded simulation, long budget: `npm run simulate -- --seed N --steps M [--check-every K] [--crash-chance P]
 * [--rejection-check-chance P] [--steps-per-seed S] [--shards N] [--verbose]`.
 * --shards N (default 1) spreads the workspaces over N shards' logs beside a registry (test/simulation/adapter-shards.ts).
 * Without --seed, runs seeds 1, 2, 3, … until --steps steps in total have run. A failure prints its seed and
 * step and exits 1; the same command reproduces it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { simulate, SimulationFailure } from '../test/simulation/simulator.ts'

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    steps: { type: 'string', default: '100000' },
    'check-every': { type: 'string', default: '5000' },
    'crash-chance': { type: 'string', default: '0.01' },
    // A full serialization before and after each checked rejection: the dearest check, so sampled thinner here.
    'rejection-check-chance': { type: 'string', default: '0.02' },
    'steps-per-seed': { type: 'string', default: '20000' },
    shards: { type: 'string', default: '1' },
    verbose: { type: 'boolean', default: false },
  },
})

const steps = Number(values.steps)
const checkEverySteps = Number(values['check-every'])
const crashChance = Number(values['crash-chance'])
const shards = Number(values.shards)
const rejectionCheckChance = Number(values['rejection-check-chance'])
const stepsPerSeed = values.seed === undefined ? Number(values['steps-per-seed']) : steps
let seed = values.seed === undefined ? 1 : Number(values.seed)
let total = 0
const startedMs = performance.now()
while (total < steps) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-sim-'))
  const budget = Math.min(stepsPerSeed, steps - total)
  try {
    const report = await simulate({ seed, steps: budget, dir, shards, checkEverySteps, crashChance, rejectionCheckChance, progress: values.verbose ? (line) => console.log(`seed ${seed} ${line}`) : undefined })
    total += report.steps
    console.log(JSON.stringify({ ...report, totalSteps: total, elapsedS: Math.round((performance.now() - startedMs) / 1000) }))
  } catch (error) {
    console.error(error instanceof SimulationFailure ? error.message : error)
    process.exitCode = 1
    break
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  seed++
}

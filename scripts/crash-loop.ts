/**
 * @module `npm run test:crash`: the full crash loop (docs/RELIABILITY.md). CRASH_ROUNDS kill -9 rounds (default 20) under mixed
 * concurrent load against a real trueup process, each followed by a restart and an audit; prints one summary line and
 * writes it with the details to CRASH_RESULTS (default bench/results/crash-loop.json). Exit 1 when anything was lost.
 *
 *   CRASH_ROUNDS=20 CRASH_SEED=1 CRASH_WRITERS=4 CRASH_KILL_MS_MAX=6000 CRASH_SHARDS=1 npm run test:crash
 *
 * CRASH_SHARDS runs the service with that many shards; after the last kill every log (the registry's and each shard's) is checked offline.
 */
import fs from 'node:fs'
import path from 'node:path'
import { repositoryRoot } from '../test/support/process.ts'
import { runCrashLoop } from '../test/support/crash/loop.ts'

function integer(name: string, fallback: number, min: number, max: number): number {
  const text = process.env[name]
  const value = text === undefined || text === '' ? fallback : Number(text)
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer in ${min}..${max}, got ${text}`)
  return value
}

const rounds = integer('CRASH_ROUNDS', 20, 1, 500)
const seed = integer('CRASH_SEED', Date.now() % 1_000_000, 0, 2 ** 31 - 1)
const resultsFile = process.env.CRASH_RESULTS ?? path.join(repositoryRoot, 'bench', 'results', 'crash-loop.json')
process.stdout.write(`crash loop: ${rounds} rounds, seed ${seed} (CRASH_SEED=${seed} repeats the plan; timing still varies)\n`)

const summary = await runCrashLoop({
  rounds,
  seed,
  writersPerWorkspace: integer('CRASH_WRITERS', 4, 1, 32),
  killAfterMsMin: integer('CRASH_KILL_MS_MIN', 150, 0, 60_000),
  // Up to 6 s: past the 5 s snapshot check, so some kills land while a snapshot is written or after one.
  killAfterMsMax: integer('CRASH_KILL_MS_MAX', 6_000, 1, 60_000),
  cleanStopEvery: integer('CRASH_CLEAN_STOP_EVERY', 7, 0, 500),
  startupKillEvery: integer('CRASH_STARTUP_KILL_EVERY', 5, 0, 500),
  opsPerWriterMax: 20_000,
  shards: integer('CRASH_SHARDS', 1, 1, 64),
  log: (line) => process.stdout.write(`  ${line}\n`),
})

const line = `crash loop: ${summary.rounds} kill -9 rounds (+${summary.startupKills} kills during start-up, ${summary.cleanStops} clean stops), `
  + `writes acknowledged ${summary.writesAcknowledged}, lost ${summary.lost}, replays checked ${summary.replaysChecked}, `
  + `residuals checked ${summary.residualsChecked}, problems ${summary.problems}, unexpected answers ${summary.unexpected.length}, `
  + `${Math.round(summary.durationMs / 1000)} s, seed ${summary.seed}`
process.stdout.write(`${line}\n`)
for (const problem of summary.problemSamples) process.stdout.write(`  problem: ${problem}\n`)
for (const unexpected of summary.unexpected) process.stdout.write(`  unexpected: ${unexpected}\n`)
fs.mkdirSync(path.dirname(resultsFile), { recursive: true })
fs.writeFileSync(resultsFile, `${JSON.stringify({ summary: line, finishedAt: new Date().toISOString(), node: process.version, ...summary }, null, 2)}\n`)
process.stdout.write(`results written to ${path.relative(process.cwd(), resultsFile)}\n`)
const failed = summary.lost > 0 || summary.problems > 0 || summary.unexpected.length > 0
if (failed) process.stdout.write(`FAILED: data dir kept at ${summary.dataDir}\n`)
process.exitCode = failed ? 1 : 0

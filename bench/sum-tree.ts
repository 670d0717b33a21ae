/** @module Benchmark of the balance index at 10k, 100k and 1M points: query, back-dated insert, append and memory. */
// Run: node --import=tsx bench/sum-tree.ts
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { SumTree } from '../src/ledger/sum-tree.ts'

interface Measurement {
  readonly name: string
  readonly n: number
  readonly value: number
  readonly unit: string
}

const pointCounts = [10_000, 100_000, 1_000_000]
const queriesCount = 200_000
const backdatedInsertsCount = 20_000
const pagesCount = 20_000
const pagePointsMax = 100
/** Timed loops run this often; the table keeps the fastest round. */
const roundsCount = 3
const memoryFlag = '--memory-points'
const childTimeoutMs = 120_000
/** Memory is read after this many gc-and-pause rounds. */
const settleRoundsCount = 4
const settlePauseMs = 20
const spacingMs = 1_000

/** Seeded (mulberry32) so every run measures the same keys. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state)
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Live bytes after a few gc-and-pause rounds. Freed ArrayBuffers leave the count only after the event
 * loop turns, and sometimes a round later, so one synchronous gc() still counts garbage.
 */
async function heapBytes(collect: () => void): Promise<number> {
  for (let round = 0; round < settleRoundsCount; round++) {
    collect()
    await sleep(settlePauseMs)
  }
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.arrayBuffers
}

/** Mean µs per operation of the fastest of a few rounds: the fastest is the least disturbed by other load. */
function bestMeanUs(operationsCount: number, round: (roundIndex: number) => void): number {
  let bestMs = Number.POSITIVE_INFINITY
  for (let roundIndex = 0; roundIndex < roundsCount; roundIndex++) {
    const started = performance.now()
    round(roundIndex)
    bestMs = Math.min(bestMs, performance.now() - started)
  }
  return (bestMs * 1_000) / operationsCount
}

/**
 * Bytes per point of an appended tree, each size in a fresh child process: in one heap the previous
 * trees' ArrayBuffers leave the count at unpredictable times, which swung the 100k figure by 90%.
 */
function measureMemory(n: number): Measurement {
  const child = spawnSync(process.execPath, ['--expose-gc', '--import=tsx', fileURLToPath(import.meta.url), memoryFlag, String(n)], { encoding: 'utf8', timeout: childTimeoutMs })
  if (child.status !== 0) throw new Error(`memory child for ${n} points failed: ${child.stderr}`)
  return { name: 'treeBytesPerPoint', n, value: Number(child.stdout.trim()), unit: 'bytes' }
}

/** The child's side: prints bytes per point. A throwaway tree first, so compiled code is not billed. */
async function printMemory(n: number): Promise<void> {
  const collect = (globalThis as { gc?: () => void }).gc
  if (collect === undefined) throw new Error('run with --expose-gc')
  const build = (pointsCount: number): SumTree => {
    const tree = new SumTree()
    for (let i = 0; i < pointsCount; i++) tree.insert(i * spacingMs, i + 1, (i % 2_001) - 1_000)
    return tree
  }
  build(10_000)
  const heapBeforeBytes = await heapBytes(collect)
  const tree = build(n)
  const treeBytes = (await heapBytes(collect)) - heapBeforeBytes
  console.log(String(treeBytes / tree.size))
}

function measureScale(n: number): Measurement[] {
  const random = seededRandom(n)
  const amount = (): number => Math.floor(random() * 2_000_001) - 1_000_000
  const tree = new SumTree()
  const started = performance.now()
  for (let i = 0; i < n; i++) tree.insert(i * spacingMs, i + 1, amount())
  const appendUs = ((performance.now() - started) * 1_000) / n

  const queryTimesMs = Float64Array.from({ length: queriesCount }, () => Math.floor(random() * n * spacingMs))
  let sink = 0
  const queryUs = bestMeanUs(queriesCount, () => {
    for (let i = 0; i < queriesCount; i++) sink += tree.sumAtOrBefore(queryTimesMs[i]) & 1
  })
  // Times between the appended points (which sit on whole seconds), so every back-dated key is new
  // and lands mid-tree; each round adds fresh seqs.
  const insertTimesMs = Float64Array.from({ length: backdatedInsertsCount }, () => Math.floor(random() * n) * spacingMs + 1 + Math.floor(random() * 998))
  const insertAmounts = Float64Array.from({ length: backdatedInsertsCount }, amount)
  const backdatedUs = bestMeanUs(backdatedInsertsCount, (roundIndex) => {
    const seqFirst = n + 1 + roundIndex * backdatedInsertsCount
    for (let i = 0; i < backdatedInsertsCount; i++) tree.insert(insertTimesMs[i], seqFirst + i, insertAmounts[i])
  })
  const pageUs = bestMeanUs(pagesCount, () => {
    for (let page = 0; page < pagesCount; page++) {
      let taken = 0
      for (const point of tree.iterateFrom(queryTimesMs[page], 0)) {
        sink += point.amount & 1
        if (++taken === pagePointsMax) break
      }
    }
  })
  if (sink === -1) console.log('unreachable: keeps the loops from being optimised away')
  return [
    { name: 'sumAtOrBeforeMeanUs', n, value: queryUs, unit: 'us' },
    { name: 'backdatedInsertMeanUs', n, value: backdatedUs, unit: 'us' },
    { name: 'appendInsertMeanUs', n, value: appendUs, unit: 'us' },
    { name: 'iteratePage100MeanUs', n, value: pageUs, unit: 'us' },
    { name: 'height', n, value: tree.height, unit: 'levels' },
  ]
}

function main(): void {
  const memory = pointCounts.map(measureMemory)
  measureScale(10_000) // warm-up: let the JIT settle before anything is recorded
  const scale = [...pointCounts.map(measureScale).flat(), ...memory]
  const names = [...new Set(scale.map((measurement) => measurement.name))]
  const rows = names.map((name) => {
    const row: Record<string, string> = { name }
    for (const measurement of scale.filter((entry) => entry.name === name)) row[`n=${measurement.n}`] = measurement.value.toFixed(3)
    row.unit = scale.find((entry) => entry.name === name)?.unit ?? ''
    return row
  })
  console.table(rows)
  // bench/run.ts points this elsewhere and folds the rows into its own report.
  const outputPath = process.env.SUM_TREE_JSON ?? path.join(import.meta.dirname, 'results', 'sum-tree.json')
  fs.mkdirSync(path.dirname(outputPath), { recursive: true })
  fs.writeFileSync(outputPath, `${JSON.stringify({ scale }, null, 2)}\n`)
  console.log(`wrote ${path.relative(process.cwd(), outputPath)}`)
}

if (process.argv[2] === memoryFlag) await printMemory(Number(process.argv[3]))
else main()

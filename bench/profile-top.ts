/** @module Top self-time functions (and files) of a V8 .cpuprofile, optionally only the samples of one bench row. */
// Run: node --import=tsx bench/profile-top.ts <file.cpuprofile | dir> [row-key ...] [--top 25]
// With row keys, only the samples taken while that row was measured count: a BENCH_PROFILE=1 run
// writes each row's window_us (monotonic µs, the clock of --cpu-prof timestamps) to run.json beside the profile.

import fs from 'node:fs'
import path from 'node:path'

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
}

interface Profile {
  readonly nodes: readonly ProfileNode[]
  readonly startTime: number
  readonly endTime: number
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
}

interface Tally {
  selfUs: number
  readonly label: string
}

const topDefault = 25

function profileFileOf(target: string): string {
  if (!fs.statSync(target).isDirectory()) return target
  const files = fs.readdirSync(target).filter((name) => name.endsWith('.cpuprofile'))
  if (files.length === 0) throw new Error(`no .cpuprofile in ${target}`)
  // The largest is the server's (the ceiling and short-lived children write small ones, if any).
  return path.join(target, files.sort((a, b) => fs.statSync(path.join(target, b)).size - fs.statSync(path.join(target, a)).size)[0])
}

function shortUrl(url: string): string {
  const marker = url.lastIndexOf('/node_modules/')
  if (marker >= 0) return url.slice(marker + '/node_modules/'.length)
  // The bench runs src/ compiled into <temp>/dist/: name the source file.
  const dist = url.lastIndexOf('/dist/')
  if (dist >= 0) return `src/${url.slice(dist + '/dist/'.length).replace(/\.js$/, '.ts')}`
  const src = url.lastIndexOf('/src/')
  if (src >= 0) return url.slice(src + 1)
  return url.replace(/^file:\/\//, '')
}

function labelOf(node: ProfileNode): { fn: string; file: string } {
  const { functionName, url, lineNumber } = node.callFrame
  if (url === '') return { fn: functionName === '' ? '(anonymous native)' : functionName, file: functionName.startsWith('(') ? functionName : '(native or builtin)' }
  const file = shortUrl(url)
  return { fn: `${functionName === '' ? '(anonymous)' : functionName}  ${file}:${lineNumber + 1}`, file }
}

/** Self time per function and per file, over the samples whose timestamp falls in one of the windows (all when none). */
function tally(profile: Profile, windows: readonly (readonly [number, number])[]): { byFunction: Tally[]; byFile: Tally[]; totalUs: number } {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
  const functions = new Map<string, Tally>()
  const files = new Map<string, Tally>()
  let atUs = profile.startTime
  let totalUs = 0
  for (let i = 0; i < profile.samples.length; i++) {
    atUs += profile.timeDeltas[i]
    // A sample's weight is the gap to the next one (the last sample gets the previous gap).
    const weightUs = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i]
    if (windows.length > 0 && !windows.some(([fromUs, toUs]) => atUs >= fromUs && atUs < toUs)) continue
    const node = nodes.get(profile.samples[i])
    if (node === undefined) continue
    const { fn, file } = labelOf(node)
    const byFunction = functions.get(fn) ?? { selfUs: 0, label: fn }
    byFunction.selfUs += weightUs
    functions.set(fn, byFunction)
    const byFile = files.get(file) ?? { selfUs: 0, label: file }
    byFile.selfUs += weightUs
    files.set(file, byFile)
    totalUs += weightUs
  }
  const sorted = (map: Map<string, Tally>) => [...map.values()].sort((a, b) => b.selfUs - a.selfUs)
  return { byFunction: sorted(functions), byFile: sorted(files), totalUs }
}

/** The measured window of each row key, from the run.json that bench/run.ts writes beside the profile. */
function windowsOf(profileDir: string, keys: readonly string[]): [number, number][] {
  if (keys.length === 0) return []
  const report = JSON.parse(fs.readFileSync(path.join(profileDir, 'run.json'), 'utf8')) as { results: { key: string; window_us: [number, number] }[] }
  return keys.map((key) => {
    const row = report.results.find((entry) => entry.key === key)
    if (row === undefined) throw new Error(`no row ${key} in ${profileDir}/run.json (rows: ${report.results.map((entry) => entry.key).join(', ')})`)
    return row.window_us
  })
}

function print(title: string, rows: readonly Tally[], totalUs: number, top: number): void {
  console.log(`\n${title}`)
  for (const row of rows.slice(0, top)) {
    console.log(`${(row.selfUs / 1_000).toFixed(0).padStart(8)} ms ${((100 * row.selfUs) / totalUs).toFixed(1).padStart(5)} %  ${row.label}`)
  }
}

function main(): void {
  const args = process.argv.slice(2)
  const topIndex = args.indexOf('--top')
  const top = topIndex >= 0 ? Number(args[topIndex + 1]) : topDefault
  const positional = args.filter((_, index) => index !== topIndex && index !== topIndex + 1)
  if (positional.length === 0) throw new Error('usage: profile-top.ts <file.cpuprofile | dir> [row-key ...] [--top 25]')
  const file = profileFileOf(positional[0])
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile
  const windows = windowsOf(path.dirname(file), positional.slice(1))
  const { byFunction, byFile, totalUs } = tally(profile, windows)
  console.log(`${path.relative(process.cwd(), file)}: ${(totalUs / 1_000).toFixed(0)} ms of samples${windows.length > 0 ? ` in the windows of ${positional.slice(1).join(', ')}` : ''}`)
  print('self time by function', byFunction, totalUs, top)
  print('self time by file', byFile, totalUs, Math.min(top, 15))
}

main()

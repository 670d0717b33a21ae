/**
 * @module `node --import=tsx bench/table.ts [results.json]`: renders a bench JSON (default bench/results/latest.json)
 * as Markdown and writes it between the `<!-- bench-table -->` and `<!-- /bench-table -->` markers of README.md and
 * docs/PERFORMANCE.md, so the tables in the docs are always one run's numbers, copied by a program, not by hand.
 */
import fs from 'node:fs'
import path from 'node:path'

interface HttpRow {
  readonly name: string
  readonly connections: number
  readonly pipelining: number
  readonly req_per_s: number
  readonly p50_ms: number
  readonly p99_ms: number
  readonly ratio: number
  /** The ceiling at this row's connections and pipelining (runs before 2026-11-23 evening: one ceiling at -c 64 -p 10 for all). */
  readonly ceiling_req_per_s?: number
  readonly target: string
  readonly met: boolean
  readonly cpu_us_per_answer?: number | null
  readonly ceiling_cpu_us_per_answer?: number | null
  readonly reconnects?: number
  readonly non_2xx?: number
  readonly errors?: number
}

interface ScaleRow { readonly name: string; readonly n: number; readonly value: number; readonly unit: string; readonly target?: string; readonly met?: boolean }

interface Report {
  readonly date: string
  readonly node: string
  readonly cpu_count: number
  readonly cpu_model?: string
  readonly git_commit: string
  /** Runs before the same-shape ceilings: the one ceiling, at -c 64 -p 10. */
  readonly ceiling_req_per_s?: number
  readonly total_s?: number
  readonly load_average_start?: readonly number[]
  readonly results: readonly HttpRow[]
  readonly scale: readonly ScaleRow[]
}

const repoDir = path.dirname(import.meta.dirname)
const startMarker = '<!-- bench-table -->'
const endMarker = '<!-- /bench-table -->'

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

function figure(value: number): string {
  if (Math.abs(value) >= 100) return integer.format(value)
  if (Math.abs(value) >= 10) return value.toFixed(1)
  return value.toFixed(2)
}

function verdict(met: boolean | undefined): string {
  if (met === undefined) return ''
  return met ? 'met' : '**missed**'
}

function cpuCell(row: HttpRow): string {
  if (row.cpu_us_per_answer === undefined || row.cpu_us_per_answer === null) return ''
  return `${row.cpu_us_per_answer}${row.ceiling_cpu_us_per_answer === undefined || row.ceiling_cpu_us_per_answer === null ? '' : ` (${row.ceiling_cpu_us_per_answer})`}`
}

export function render(report: Report): string {
  const lines: string[] = []
  lines.push(`Run of ${report.date.slice(0, 16).replace('T', ' ')} UTC, commit \`${report.git_commit.slice(0, 7)}\`, Node ${report.node}, `
    + `${report.cpu_count} × ${report.cpu_model ?? 'CPU'} shared with the load generator`
    + `${report.total_s === undefined ? '' : `, ${report.total_s} s in all`}. `
    + (report.ceiling_req_per_s === undefined
      ? 'Ceiling: a bare uWebSockets.js server answering a fixed JSON body of the row\'s answer size to the row\'s own requests, '
        + 'at the row\'s connections and pipelining, right before and right after the row (their mean).'
      : `Ceiling (bare uWebSockets.js, fixed JSON body, \`-c 64 -p 10\`): ${integer.format(report.ceiling_req_per_s)} req/s.`))
  lines.push('')
  lines.push('| HTTP scenario | -c | -p | ceiling req/s | req/s | p50 ms | p99 ms | ratio | target | | server CPU µs per answer (ceiling) |')
  lines.push('| --- | --: | --: | --: | --: | --: | --: | --: | --- | --- | --: |')
  for (const row of report.results) {
    const broken = (row.reconnects ?? 0) > 0 || (row.errors ?? 0) > 0 || (row.non_2xx ?? 0) > 0
    const note = broken ? ` (${row.reconnects ?? 0} reconnects, ${row.non_2xx ?? 0} non-2xx)` : ''
    const ceiling = row.ceiling_req_per_s ?? report.ceiling_req_per_s
    lines.push(`| ${row.name}${note} | ${row.connections} | ${row.pipelining} | ${ceiling === undefined ? '' : integer.format(ceiling)} | ${integer.format(row.req_per_s)} | ${row.p50_ms} | ${row.p99_ms} | ${row.ratio.toFixed(2)} | ${row.target} | ${verdict(row.met)} | ${cpuCell(row)} |`)
  }
  if (report.scale.length === 0) return lines.join('\n')
  lines.push('')
  const sizes = [...new Set(report.scale.map((row) => row.n))].sort((a, b) => a - b)
  const names = [...new Set(report.scale.map((row) => `${row.name}\u0000${row.unit}`))]
  lines.push(`| scale row | unit | ${sizes.map((n) => `n = ${integer.format(n)}`).join(' | ')} | target | |`)
  lines.push(`| --- | --- | ${sizes.map(() => '--:').join(' | ')} | --- | --- |`)
  for (const key of names) {
    const [name, unit] = key.split('\u0000')
    const cells = sizes.map((n) => report.scale.find((row) => row.name === name && row.unit === unit && row.n === n))
    const withTarget = cells.filter((cell) => cell?.target !== undefined)
    const target = withTarget[0]?.target ?? ''
    const met = withTarget.length === 0 ? undefined : withTarget.every((cell) => cell!.met === true)
    lines.push(`| ${name} | ${unit} | ${cells.map((cell) => (cell === undefined ? '' : figure(cell.value))).join(' | ')} | ${target} | ${verdict(met)} |`)
  }
  return lines.join('\n')
}

function replaceBetweenMarkers(file: string, table: string): void {
  const text = fs.readFileSync(file, 'utf8')
  const start = text.indexOf(startMarker)
  if (start < 0) throw new Error(`${file} has no ${startMarker} marker`)
  const end = text.indexOf(endMarker, start)
  const after = end < 0 ? '' : text.slice(end + endMarker.length)
  fs.writeFileSync(file, `${text.slice(0, start)}${startMarker}\n${table}\n${endMarker}${after.length === 0 ? '\n' : after}`)
}

if (import.meta.filename === process.argv[1] || process.argv[1]?.endsWith('bench/table.ts')) {
  const input = process.argv[2] ?? path.join(repoDir, 'bench', 'results', 'latest.json')
  const table = render(JSON.parse(fs.readFileSync(input, 'utf8')) as Report)
  for (const file of [path.join(repoDir, 'README.md'), path.join(repoDir, 'docs', 'PERFORMANCE.md')]) replaceBetweenMarkers(file, table)
  process.stdout.write(`${table}\n\nwritten into README.md and docs/PERFORMANCE.md\n`)
}

/** @module Where a durable write waits, with the log alone (no HTTP, no ledger): to commit start, the commit, the flush, the reply. */
// Run: node --import=tsx bench/commit-probe.ts <clients> <seconds> <dir>
// `clients` writers each append a record of a posting's size and append the next once theirs is durable
// (as `-c <clients> -p 1` clients do), through CommandLog's group commit on `dir` (a real disk, or /dev/shm
// to take the disk out). The commit seams (CommandLogOptions.faults, no-ops here) mark when a record's
// transaction starts and when it is committed. Prints p50/p90/p99 of each part in ms.

import fs from 'node:fs'
import path from 'node:path'
import { CommandLog } from '../src/log/command-log.ts'
import type { LogRecord } from '../src/log/codec.ts'

interface Parts {
  readonly toCommitStart: number[]
  readonly commit: number[]
  readonly toReply: number[]
  readonly total: number[]
}

const record = {
  v: 1, workspace: 'default',
  command: { type: 'entry.post', at_ms: Date.now(), key_id: 'key_probe', visibility: null, lines: [{ account: 'acct:001', amount: 5 }, { account: 'acct:002', amount: -5 }], effective_at_ms: null, description: 'bench 1', metadata: null },
} as unknown as LogRecord

function openLog(dir: string, startedAt: Map<number, number>, committedAt: Map<number, number>): CommandLog {
  const mark = (into: Map<number, number>) => (firstSeq: number, lastSeq: number) => {
    const nowMs = performance.now()
    for (let seq = firstSeq; seq <= lastSeq; seq++) into.set(seq, nowMs)
  }
  return new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 8_192, pendingRecordsMax: 100_000, faults: { transaction: mark(startedAt), flush: mark(committedAt) } })
}

async function probe(clients: number, seconds: number, dir: string): Promise<{ parts: Parts; writes: number }> {
  const startedAt = new Map<number, number>()
  const committedAt = new Map<number, number>()
  const log = openLog(dir, startedAt, committedAt)
  const parts: Parts = { toCommitStart: [], commit: [], toReply: [], total: [] }
  const endMs = performance.now() + seconds * 1_000
  await new Promise<void>((resolve) => {
    let running = clients
    const write = (): void => {
      if (performance.now() > endMs) {
        if (--running === 0) resolve()
        return
      }
      const appendedMs = performance.now()
      const seq = log.append(record)
      log.afterDurable(seq, () => {
        const repliedMs = performance.now()
        parts.toCommitStart.push(startedAt.get(seq)! - appendedMs)
        parts.commit.push(committedAt.get(seq)! - startedAt.get(seq)!)
        parts.toReply.push(repliedMs - committedAt.get(seq)!)
        parts.total.push(repliedMs - appendedMs)
        startedAt.delete(seq)
        committedAt.delete(seq)
        setImmediate(write)
      })
    }
    for (let i = 0; i < clients; i++) write()
  })
  await log.close()
  return { parts, writes: parts.total.length }
}

function quantile(values: readonly number[], q: number): string {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(2)
}

const [clientsText, secondsText, dir] = process.argv.slice(2)
if (dir === undefined) throw new Error('usage: commit-probe.ts <clients> <seconds> <dir>')
fs.rmSync(dir, { recursive: true, force: true })
fs.mkdirSync(dir, { recursive: true })
const { parts, writes } = await probe(Number(clientsText), Number(secondsText), dir)
fs.rmSync(dir, { recursive: true, force: true })
for (const [name, values] of Object.entries(parts)) console.log(`${name.padEnd(14)} p50 ${quantile(values, 0.5)}  p90 ${quantile(values, 0.9)}  p99 ${quantile(values, 0.99)} ms`)
console.log(`${writes} durable writes, ${(writes / Number(secondsText)).toFixed(0)}/s`)

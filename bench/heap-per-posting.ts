/** @module What a posting keeps in the JavaScript heap: the bytes the young-generation collector copies for each one under a write load. */
// Run: node --expose-gc --import=tsx bench/heap-per-posting.ts [postings (100000)]
// One workspace of 1,000 accounts, 10,000 postings to warm up, then `postings` more of two lines and a
// short description, through the actor and the log as live traffic (bench/seed.ts). The heap used after
// full collections, before and after, divided by the postings; and, from V8's heap spaces, how much of
// it is outside the young generation's reach (large objects: the entries' Float64Array store, the trees'
// arenas), which a scavenge never copies. Writes bench/results/heap-per-posting.json.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import v8 from 'node:v8'
import { awaitDurable, createWorkspace, submit, submitMany } from './seed.ts'

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error('run with node --expose-gc')
const postings = Number(process.argv[2] ?? 100_000)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-heap-'))

function measured(): { heapUsed: number; largeObjects: number; external: number } {
  gc!()
  gc!()
  const large = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'large_object_space')
  const memory = process.memoryUsage()
  // external includes the ArrayBuffers' memory (the entry store, the trees' arenas, the log's buffers).
  return { heapUsed: memory.heapUsed, largeObjects: large?.space_used_size ?? 0, external: memory.external }
}

try {
  const workspace = createWorkspace(dir, Date.UTC(2026, 0, 1))
  const names = Array.from({ length: 1000 }, (_, index) => `assets:acct${index}`)
  for (const name of names) submit(workspace, { type: 'account.create', name, tags: [] })
  await awaitDurable(workspace.log)
  let state = 1
  const random = () => (state = (state * 48271) % 2147483647) / 2147483647
  const posting = (index: number) => {
    const debit = Math.floor(random() * 1000)
    const credit = (debit + 1 + Math.floor(random() * 999)) % 1000
    const amount = 1 + Math.floor(random() * 10_000)
    return { type: 'entry.post', lines: [{ account: names[debit], amount }, { account: names[credit], amount: -amount }], effective_at_ms: null, description: `bench ${index}`, metadata: null } as const
  }
  await submitMany(workspace, 10_000, posting)
  const before = measured()
  await submitMany(workspace, postings, (index) => posting(10_000 + index))
  const after = measured()
  await workspace.log.close()
  const perPosting = (bytes: number) => Math.round(bytes / postings)
  const result = {
    date: new Date().toISOString(), node: process.version, postings,
    heap_bytes_per_posting: perPosting(after.heapUsed - before.heapUsed),
    of_which_large_object_bytes_per_posting: perPosting(after.largeObjects - before.largeObjects),
    young_reachable_bytes_per_posting: perPosting(after.heapUsed - before.heapUsed - (after.largeObjects - before.largeObjects)),
    off_heap_bytes_per_posting: perPosting(after.external - before.external),
  }
  console.table([{ postings, 'heap B/posting': result.heap_bytes_per_posting, 'in large objects': result.of_which_large_object_bytes_per_posting, 'small objects (scavenged)': result.young_reachable_bytes_per_posting, 'off-heap B/posting': result.off_heap_bytes_per_posting }])
  fs.mkdirSync(new URL('./results/', import.meta.url), { recursive: true })
  fs.writeFileSync(new URL('./results/heap-per-posting.json', import.meta.url), JSON.stringify(result, null, 2) + '\n')
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
process.exit(0)

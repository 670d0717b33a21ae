/** Tests for the per-workspace buckets with an injected clock: limit changes apply as of the change, not as of the next request. */
import t from 'tap'
import { RateBuckets } from '../../src/edge/rate-buckets.ts'
import { settingsDefault, type WorkspaceRecord } from '../../src/ledger/system.ts'

const startMs = Date.parse('2026-11-10T12:00:00.000Z')

function workspaceAt(writesPerMinute: number, readsPerMinute: number, atMs: number, id = 'w'): WorkspaceRecord {
  return { id, timeZone: 'UTC', currency: 'USD', limits: { writes_per_minute: writesPerMinute, reads_per_minute: readsPerMinute }, limitsChangedAtMs: atMs, settings: settingsDefault, tag: 't', createdAtMs: atMs, sealKey: null, sealKeyAtCreation: false }
}

/** What workspace.update does to the record (src/ledger/system.ts). */
function patch(workspace: WorkspaceRecord, writesPerMinute: number, readsPerMinute: number, atMs: number): void {
  workspace.limits = { writes_per_minute: writesPerMinute, reads_per_minute: readsPerMinute }
  workspace.limitsChangedAtMs = atMs
}

t.test('a raised limit refills at the new rate from the PATCH on, although the next request comes later', async (t) => {
  const buckets = new RateBuckets()
  const workspace = workspaceAt(60, 60, startMs)
  const { writes, reads } = buckets.of(workspace, startMs)
  while (writes.tryTake(startMs));
  while (reads.tryTake(startMs));
  patch(workspace, 6000, 6000, startMs)
  const raised = buckets.of(workspace, startMs + 300)
  t.equal(raised.writes.limitPerMinute, 6000)
  t.ok(raised.writes.tryTake(startMs + 300), 'a write 300 ms after the raise passes (6,000/min: 30 tokens)')
  t.equal(raised.writes.remaining(startMs + 300), 29)
  t.equal(raised.reads.remaining(startMs + 300), 30, 'reads as well')
})

t.test('before the PATCH the old rate counts, after it the new one', async (t) => {
  const buckets = new RateBuckets()
  const workspace = workspaceAt(60, 3000, startMs)
  const { writes } = buckets.of(workspace, startMs)
  while (writes.tryTake(startMs));
  patch(workspace, 6000, 3000, startMs + 2000)
  t.equal(buckets.of(workspace, startMs + 2300).writes.remaining(startMs + 2300), 2 + 30, '2 s at 1/s, then 0.3 s at 100/s')
})

t.test('a lowered limit clamps at once; a change stamped after now (a clock stepped back) counts from now', async (t) => {
  const buckets = new RateBuckets()
  const workspace = workspaceAt(600, 3000, startMs)
  buckets.of(workspace, startMs)
  patch(workspace, 60, 3000, startMs + 1000)
  t.equal(buckets.of(workspace, startMs + 1000).writes.remaining(startMs + 1000), 30, 'the new capacity')
  const stepped = workspaceAt(60, 3000, startMs, 'stepped')
  const { writes } = buckets.of(stepped, startMs)
  while (writes.tryTake(startMs));
  patch(stepped, 6000, 3000, startMs + 60_000)
  t.equal(buckets.of(stepped, startMs).writes.remaining(startMs), 0, 'no tokens for a minute that has not passed')
  t.equal(buckets.of(stepped, startMs + 100).writes.remaining(startMs + 100), 10, 'then the new rate from now')
})

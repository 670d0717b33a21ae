/**
 * src/actor/snapshot-retries.ts on its own: a workspace without a failed write is due as its interval says; after
 * a failure it is due at the very next check whatever the interval; after n failures it lets 2^(n-1) - 1 checks pass
 * first, at most snapshotRetryChecksMax; a success forgets the failures; workspaces are counted apart.
 */
import t from 'tap'
import { SnapshotRetries, snapshotRetryChecksMax } from '../../src/actor/snapshot-retries.ts'

/** The checks (interval not reached) until the workspace is due, counting the one that says it is; bounded. */
function checksUntilDue(retries: SnapshotRetries, workspaceId: string): number {
  for (let check = 1; check <= 1_000; check++) if (retries.due(workspaceId, false)) return check
  return Number.POSITIVE_INFINITY
}

t.test('without a failure: due exactly when the interval is reached', async (t) => {
  const retries = new SnapshotRetries()
  t.equal(retries.due('w', false), false)
  t.equal(retries.due('w', true), true)
  t.equal(retries.failures('w'), 0)
})

t.test('after one failure: due at the next check, interval or not, until it is written', async (t) => {
  const retries = new SnapshotRetries()
  retries.failed('w')
  t.equal(retries.failures('w'), 1)
  t.equal(retries.due('w', false), true)
  t.equal(retries.due('w', false), true, 'still due at the check after (not yet written)')
  t.equal(retries.due('other', false), false, 'another workspace is not affected')
})

t.test('repeated failures let 0, 1, 3, 7, ... checks pass between attempts, at most snapshotRetryChecksMax', async (t) => {
  t.equal(snapshotRetryChecksMax, 63)
  const retries = new SnapshotRetries()
  const waits: number[] = []
  for (let failures = 1; failures <= 9; failures++) {
    retries.failed('w')
    waits.push(checksUntilDue(retries, 'w') - 1)
  }
  t.same(waits, [0, 1, 3, 7, 15, 31, 63, 63, 63])
  t.equal(retries.failures('w'), 9)
  retries.failed('w')
  t.equal(retries.due('w', true), false, 'while waiting, a reached interval does not make it due either')
})

t.test('a success forgets the failures: the interval rules again', async (t) => {
  const retries = new SnapshotRetries()
  retries.failed('w')
  retries.failed('w')
  retries.failed('v')
  retries.succeeded('w')
  t.equal(retries.failures('w'), 0)
  t.equal(retries.due('w', false), false)
  t.equal(retries.due('w', true), true)
  t.equal(retries.failures('v'), 1, 'the other workspace still has its failure')
  retries.failed('w')
  t.equal(checksUntilDue(retries, 'w'), 1, 'the count starts again from one failure')
})

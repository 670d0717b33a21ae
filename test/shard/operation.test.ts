/**
 * Tests for the boundary's one value, nothingStored: the status of an Idempotency-Key lookup that found nothing
 * must never be taken for an answer, neither a stored one (any status a reply or an error has) nor the plain
 * "something is stored" (200) that a lookup without a fingerprint answers.
 */
import t from 'tap'
import { errorCatalogue } from '../../src/errors.ts'
import { LocalShard } from '../../src/shard/local-shard.ts'
import { nothingStored } from '../../src/shard/operation.ts'
import { runtimeNowMs, tempRuntime, workspaceCreate } from '../support/temp-runtime.ts'

t.test('nothingStored is an informational status: no answer, accepted or refused, ever has it', async (t) => {
  t.ok(Number.isInteger(nothingStored))
  t.ok(nothingStored >= 100 && nothingStored < 200, `${nothingStored} is 1xx, below every final status an answer can be stored with`)
  const errorStatuses: number[] = Object.values(errorCatalogue).map((entry) => entry.status)
  t.notOk(errorStatuses.includes(nothingStored), 'no error code answers with it')
})

t.test('a shard answers a lookup that finds nothing with nothingStored, distinct from the answer when something is stored', async (t) => {
  const runtime = tempRuntime(t)
  const shard = new LocalShard(runtime, () => {})
  await shard.send({ op: 'system.command', command: workspaceCreate('w') })
  const lookup = { op: 'idempotency', workspace: 'w', key: 'k', keyId: 'key_test', visibility: null, atMs: runtimeNowMs, fingerprint: null } as const
  const before = runtime.log.lastSeq
  t.same(await shard.send(lookup), { status: nothingStored, headers: [], body: '' })
  t.equal(runtime.log.lastSeq, before, 'a lookup appends nothing')
  await shard.send({ op: 'command', workspace: 'w', keyed: true, command: { type: 'account.create', at_ms: runtimeNowMs, key_id: 'key_test', visibility: null, name: 'assets:bank', tags: [], idempotency: { key: 'k', fingerprint: 'f' } } })
  const stored = await shard.send(lookup)
  t.not(stored.status, nothingStored, 'once stored, the lookup says so')
  t.equal(stored.status, 200)
})

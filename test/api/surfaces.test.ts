/**
 * The two route kinds the lifecycle serves (src/api/surfaces.ts) over a stand-in shard: /v2 authenticates a live key
 * of a known workspace, hands its handler the context (an envelope with the Idempotency-Key only when the request has
 * one, the key's visibility) and sends what it built as the matching operation (a command keyed or not, a read, a
 * system read, deliveries, an export's own stream, a refusal), answering at once through Shard.execute when the
 * shard has it (a throw then a rejected Promise); admin checks the token (none set: nobody) and sends system
 * commands, reads and refusals.
 */
import t from 'tap'
import { adminRoutes } from '../../src/api/admin-routes.ts'
import { hashSecret } from '../../src/api/auth.ts'
import type { Flow } from '../../src/api/lifecycle.ts'
import type { AdminRoute, V2Route } from '../../src/api/route.ts'
import { v2Routes } from '../../src/api/route-table.ts'
import { adminSurface, v2Surface } from '../../src/api/surfaces.ts'
import { reject } from '../../src/errors.ts'
import type { KeyRecord, SystemState } from '../../src/ledger/system.ts'
import type { Operation, Reply, Shard } from '../../src/shard/operation.ts'
import { keyRecord, workspaceRecord } from '../support/route-context.ts'

const secret = 'tu_live_secret'
const reply: Reply = { status: 200, headers: [], body: '{}' }
const visibleKey: KeyRecord = { ...keyRecord, accounts: ['assets:*'], secretHash: hashSecret(secret) }

function systemOf(keys: KeyRecord[]): SystemState {
  return { workspaces: new Map([['ws_1', workspaceRecord()]]), keys: new Map(keys.map((key) => [key.id, key])), keysByHash: new Map(keys.map((key) => [key.secretHash, key])), tags: new Set() }
}

/** A shard that records each operation; with `immediate`, it has execute (answering at once, or throwing). */
function recordingShard(options: { immediate?: 'answer' | 'throw'; keys?: KeyRecord[] } = {}): { shard: Shard; sent: Operation[]; via: string[] } {
  const sent: Operation[] = []
  const via: string[] = []
  const shard: Record<string, unknown> = {
    system: systemOf(options.keys ?? [visibleKey]),
    send: async (operation: Operation) => { sent.push(operation); via.push('send'); return reply },
  }
  if (options.immediate !== undefined) {
    shard.execute = (operation: Operation) => {
      sent.push(operation)
      via.push('execute')
      if (options.immediate === 'throw') throw new Error('the log failed')
      return reply
    }
  }
  return { shard: shard as unknown as Shard, sent, via }
}

/** A flow as the lifecycle has it by the `command` stage. */
function flowOf(fields: { route?: unknown; idempotency?: { key: string; fingerprint: string }; key?: KeyRecord; body?: unknown } = {}): Flow {
  return {
    route: fields.route ?? null, params: { id: 'p1' }, query: { limit: 2 }, body: fields.body, atMs: 1_000,
    caller: { key: fields.key ?? visibleKey, workspace: workspaceRecord() }, idempotency: fields.idempotency,
  } as unknown as Flow
}

t.test('v2 authenticate: a live key of a known workspace, else nobody', async (t) => {
  const revoked = { ...visibleKey, id: 'key_2', secretHash: hashSecret('revoked'), revokedAtMs: 5 }
  const orphan = { ...visibleKey, id: 'key_3', workspace: 'ws_gone', secretHash: hashSecret('orphan') }
  const surface = v2Surface(recordingShard({ keys: [visibleKey, revoked, orphan] }).shard)
  t.equal(surface.routes, v2Routes)
  t.same(surface.authenticate!(`Bearer ${secret}`), { key: visibleKey, workspace: workspaceRecord() })
  for (const header of [undefined, '', 'Bearer wrong', `Basic ${secret}`, 'Bearer revoked', 'Bearer orphan']) {
    t.equal(surface.authenticate!(header), null, String(header))
  }
})

t.test('v2 build: the handler\'s context, its envelope with the Idempotency-Key only when there is one', async (t) => {
  const contexts: unknown[] = []
  const route = { handle: (context: unknown) => { contexts.push(context); return { read: { name: 'entry.get', params: { entry: 'e' } } } } } as unknown as V2Route
  const surface = v2Surface(recordingShard().shard)
  t.same(surface.handler.build(flowOf({ route, body: { x: 1 } })), { read: { name: 'entry.get', params: { entry: 'e' } } })
  t.same(contexts[0], {
    params: { id: 'p1' }, query: { limit: 2 }, body: { x: 1 }, key: visibleKey, workspace: workspaceRecord(), atMs: 1_000,
    envelope: { at_ms: 1_000, key_id: 'key_1', visibility: ['assets:*'] },
  })
  t.notOk('idempotency' in (contexts[0] as { envelope: object }).envelope, 'no key: no idempotency field at all')
  surface.handler.build(flowOf({ route, idempotency: { key: 'k1', fingerprint: 'fp' } }))
  t.same((contexts[1] as { envelope: unknown }).envelope, { at_ms: 1_000, key_id: 'key_1', visibility: ['assets:*'], idempotency: { key: 'k1', fingerprint: 'fp' } })
})

t.test('v2 execute: each thing a handler builds as its operation on the key\'s workspace', async (t) => {
  const { shard, sent } = recordingShard()
  const execute = v2Surface(shard).handler.execute
  const command = { at_ms: 1_000, key_id: 'key_1', visibility: null, type: 'entry.reverse', entry: 'e1', effective_at_ms: null, description: null }
  await execute(flowOf(), command)
  await execute(flowOf(), { ...command, idempotency: { key: 'k1', fingerprint: 'fp' } })
  await execute(flowOf(), { read: { name: 'entry.get', params: { entry: 'e1' } } })
  await execute(flowOf(), { readsSystem: { name: 'workspace.get', params: { workspace: 'ws_1' } } })
  await execute(flowOf(), { deliveries: { webhook: 'wh_1', limit: 5, cursor: null } })
  const refusal = reject('request_invalid', 'Bad.')
  await execute(flowOf(), refusal)
  t.same(sent, [
    { op: 'command', workspace: 'ws_1', command, keyed: false },
    { op: 'command', workspace: 'ws_1', command: { ...command, idempotency: { key: 'k1', fingerprint: 'fp' } }, keyed: true },
    { op: 'query', workspace: 'ws_1', visibility: ['assets:*'], query: { name: 'entry.get', params: { entry: 'e1' } } },
    { op: 'system.query', query: { name: 'workspace.get', params: { workspace: 'ws_1' } } },
    { op: 'deliveries', workspace: 'ws_1', webhook: 'wh_1', limit: 5, cursor: null },
    { op: 'refuse', workspace: 'ws_1', rejection: refusal },
  ])
  const streamedShards: Shard[] = []
  t.equal(await execute(flowOf(), { streamed: async (given: Shard) => { streamedShards.push(given); return reply } }), reply)
  t.same([streamedShards.length, streamedShards[0] === shard, sent.length], [1, true, 6], 'an export pulls from the shard itself, nothing sent for it')
})

t.test('v2 execute and lookUp: at once through Shard.execute when the shard has it; a throw a rejected Promise', async (t) => {
  const immediate = recordingShard({ immediate: 'answer' })
  const surface = v2Surface(immediate.shard)
  t.equal(surface.handler.execute(flowOf(), { read: { name: 'entry.get', params: { entry: 'e1' } } }), reply, 'the reply itself, not a Promise')
  t.equal(surface.handler.lookUp!(flowOf(), 'k1', 'fp', 2_000), reply)
  t.same(immediate.sent[1], { op: 'idempotency', workspace: 'ws_1', key: 'k1', keyId: 'key_1', visibility: ['assets:*'], atMs: 2_000, fingerprint: 'fp' })
  t.same(immediate.via, ['execute', 'execute'])
  const failing = v2Surface(recordingShard({ immediate: 'throw' }).shard)
  const answer = failing.handler.execute(flowOf(), { read: { name: 'entry.get', params: { entry: 'e1' } } })
  t.ok(answer instanceof Promise, 'not thrown in the caller\'s turn')
  await t.rejects(answer as Promise<unknown>, /the log failed/)
  const plain = recordingShard()
  t.ok(v2Surface(plain.shard).handler.lookUp!(flowOf(), 'k1', null, 3) instanceof Promise, 'without execute: send')
  t.same(plain.via, ['send'])
})

t.test('admin: the token (none set: nobody), its handler\'s context, system operations', async (t) => {
  const { shard, sent } = recordingShard()
  const surface = adminSurface(shard, 'admin-secret')
  t.equal(surface.routes, adminRoutes)
  t.same(surface.authenticate!('Bearer admin-secret'), { key: null, workspace: null })
  for (const header of [undefined, 'Bearer admin-secre', 'Bearer admin-secret2', 'admin-secret']) t.equal(surface.authenticate!(header), null, String(header))
  t.equal(adminSurface(shard, null).authenticate!('Bearer admin-secret'), null, 'no token set: nobody is admin')
  t.match(surface.unauthenticated, { ok: false, code: 'unauthenticated', message: /ADMIN_TOKEN/ })

  const contexts: unknown[] = []
  const route = { handle: (context: unknown) => { contexts.push(context); return { readsSystem: { name: 'workspace.list', params: { limit: 1, cursor: null } } } } } as unknown as AdminRoute
  surface.handler.build(flowOf({ route, body: { b: 1 } }))
  t.same(contexts, [{ params: { id: 'p1' }, query: { limit: 2 }, body: { b: 1 }, atMs: 1_000 }], 'no key, no workspace, no envelope')

  const command = { type: 'key.revoke', at_ms: 1, id: 'key_1' }
  const refusal = reject('not_found', 'No such workspace.')
  await surface.handler.execute(flowOf(), refusal)
  await surface.handler.execute(flowOf(), { readsSystem: { name: 'workspace.list', params: { limit: 1, cursor: null } } })
  await surface.handler.execute(flowOf(), { command, extra: { secret: 's' } })
  await surface.handler.execute(flowOf(), command)
  t.same(sent, [
    { op: 'system.refuse', rejection: refusal },
    { op: 'system.query', query: { name: 'workspace.list', params: { limit: 1, cursor: null } } },
    { op: 'system.command', command, extra: { secret: 's' } },
    { op: 'system.command', command },
  ])
  t.notOk('extra' in sent[3], 'a plain command: no extra')
})

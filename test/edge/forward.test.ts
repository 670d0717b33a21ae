/**
 * Cluster forwarding's routing (src/edge/forward.ts, its pure part): with SHARDS > 1 an admin request goes where the
 * registry is served, a /v2 request where its key's workspace's shard is, an unknown or revoked key (or none) to the
 * registry; a workspace's WebSocket where its shard is; whether a request was forwarded already is passed on; a request
 * this node serves is left alone.
 */
import t from 'tap'
import { createKeyCommand, newKeySecret } from '../../src/api/admin-routes.ts'
import { answeredElsewhere, forwardedHeader, forwardingByShard, type ClusterRoute, type Forwarding, type IncomingRequest, type ShardRoutes } from '../../src/edge/forward.ts'
import type { Exchange } from '../../src/edge/http.ts'
import { createSystemState, executeSystem, limitsDefault, scopes } from '../../src/ledger/system.ts'
import { shardOf } from '../../src/shard/placement.ts'

const shards = 4
const system = createSystemState()
/** Five workspaces, on more than one of the four shards (checked below), each with a key. */
const workspaces = ['ws-alpha', 'ws-beta', 'ws-gamma', 'ws-delta', 'ws-epsilon']
const secrets = new Map<string, string>()
for (const id of workspaces) {
  executeSystem(system, { type: 'workspace.create', at_ms: 0, id, time_zone: 'UTC', limits: limitsDefault, tag: `tag-${id}` })
  const secret = newKeySecret()
  executeSystem(system, createKeyCommand(0, id, scopes, null, 'k', secret))
  secrets.set(id, secret)
}
const revokedSecret = newKeySecret()
const revokedKey = createKeyCommand(0, 'ws-alpha', scopes, null, 'old', revokedSecret)
executeSystem(system, revokedKey)
executeSystem(system, { type: 'key.revoke', at_ms: 1, id: revokedKey.id })

const routes: ShardRoutes = {
  system,
  shards: { length: shards },
  routeOf: (index, forwarded) => ({ kind: 'forward', url: `shard-${index}${forwarded ? '-forwarded' : ''}` }),
  registryRoute: (forwarded) => ({ kind: 'forward', url: `registry${forwarded ? '-forwarded' : ''}` }),
}
const forwarding = forwardingByShard('node-a', routes)
const request = (path: string, authorization?: string): IncomingRequest => ({
  path, query: '', headers: new Map(authorization === undefined ? [] : [['authorization', authorization]]),
})
const url = (route: ClusterRoute) => (route.kind === 'forward' ? route.url : route.kind)

t.test('a /v2 request goes to its key\'s workspace\'s shard, forwarded or not', async (t) => {
  const indexes = new Set(workspaces.map((id) => shardOf(id, shards)))
  t.ok(indexes.size > 1, 'the workspaces lie on more than one shard')
  for (const id of workspaces) {
    const authorization = `Bearer ${secrets.get(id)}`
    t.equal(url(forwarding.route(false, request('/v2/entries', authorization))), `shard-${shardOf(id, shards)}`, id)
    t.equal(url(forwarding.route(true, request('/v2/entries', authorization))), `shard-${shardOf(id, shards)}-forwarded`, `${id} forwarded`)
  }
  t.equal(forwarding.nodeId, 'node-a')
})

t.test('admin requests, and keys this node does not know, go to the registry', async (t) => {
  const alpha = `Bearer ${secrets.get('ws-alpha')}`
  t.equal(url(forwarding.route(false, request('/admin/workspaces', alpha))), 'registry', 'admin, even with a workspace key')
  t.equal(url(forwarding.route(true, request('/admin/keys'))), 'registry-forwarded')
  for (const authorization of [undefined, '', 'Bearer', `Bearer ${newKeySecret()}`, `Bearer ${revokedSecret}`, `Basic ${secrets.get('ws-alpha')}`, `Bearer ${'x'.repeat(600)}`]) {
    t.equal(url(forwarding.route(false, request('/v2/accounts', authorization))), 'registry', String(authorization).slice(0, 40))
  }
  t.equal(url(forwarding.route(false, request('/administrator', alpha))), `shard-${shardOf('ws-alpha', shards)}`, 'only /admin/ itself is the registry\'s')
})

t.test('a workspace\'s requests (its WebSocket session) go to its shard, never as forwarded', async (t) => {
  for (const id of workspaces) t.equal(url(forwarding.routeOfWorkspace(id)), `shard-${shardOf(id, shards)}`, id)
  t.equal(url(forwarding.routeOfWorkspace('no-such-workspace')), `shard-${shardOf('no-such-workspace', shards)}`, 'by the name alone')
})

t.test('answeredElsewhere: a local request is left untouched, and the forwarded header is what says forwarded', async (t) => {
  const seen: boolean[] = []
  const local: Forwarding = { nodeId: 'n', route: (forwarded) => { seen.push(forwarded); return { kind: 'local' } }, routeOfWorkspace: () => ({ kind: 'local' }) }
  const untouchable = new Proxy({}, { get: () => { throw new Error('the exchange was touched') }, set: () => { throw new Error('the exchange was touched') } }) as Exchange
  t.equal(answeredElsewhere(local, untouchable, request('/v2/entries'), 1024), false)
  t.equal(answeredElsewhere(local, untouchable, { path: '/v2/entries', query: '', headers: new Map([[forwardedHeader, 'node-b']]) }, 1024), false)
  t.same(seen, [false, true])
  t.equal(forwardedHeader, forwardedHeader.toLowerCase(), 'looked up in lower case, as the headers map holds them')
})

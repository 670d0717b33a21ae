/**
 * @module Cluster mode with several shards per node (docs/CLUSTER.md, "Routing: any node answers any request"), against
 * real processes and a real PostgreSQL: two nodes with SHARDS=2, node A owning shard 0 and the registry (shard 2), node
 * B shard 1 (NODE_SHARDS places them). Admin writes sent to B reach the registry's owner; a workspace made there reaches
 * its shard's owner; a key made on one node authenticates on the other; a write for each shard sent to each node
 * answers 201 and is read back on both. A WebSocket session is served by the node that serves its workspace's shard and
 * refused elsewhere, naming that node.
 */

import t, { type Test } from 'tap'
import { WebSocket } from 'ws'
import { scopes } from '../../src/ledger/system.ts'
import { shardOf } from '../../src/shard/placement.ts'
import { adminToken, killNodes, request, resetDatabase, startNode, testDatabase, type Answer, type ClusterNode } from '../support/cluster-nodes.ts'
import { openSocket, streamUrl } from '../support/ws.ts'

t.setTimeout(600_000)

const database = testDatabase(t)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The first id `<prefix>-<n>` whose workspace lies on `shard` of two. */
function workspaceOnShard(prefix: string, shard: number): string {
  for (let n = 0; n < 1_000; n++) if (shardOf(`${prefix}-${n}`, 2) === shard) return `${prefix}-${n}`
  throw new Error(`no id on shard ${shard}`)
}

/**
 * A request retried while it answers 503 (Retry-After), 50 times at most, 100 ms apart: a key or workspace made on
 * the other node is known here once this node followed the registry's log (milliseconds).
 */
async function untilServed(send: () => Promise<Answer>): Promise<Answer> {
  let answer = await send()
  for (let attempt = 0; attempt < 50 && answer.status === 503; attempt++) {
    await sleep(100)
    answer = await send()
  }
  return answer
}

async function placement(): Promise<Record<number, string>> {
  const result = await database.db.query<{ shard: number; owner: string }>('SELECT shard, owner FROM placement ORDER BY shard')
  return Object.fromEntries(result.rows.map((row) => [row.shard, row.owner]))
}

t.test('SHARDS=2 on two nodes: each node answers for every shard and for the registry', async (t) => {
  await resetDatabase(database.db)
  const nodes: ClusterNode[] = []
  t.teardown(() => killNodes(nodes))
  nodes.push(await startNode(database.url, 'node-a', { SHARDS: '2', NODE_SHARDS: '0,2' }))
  nodes.push(await startNode(database.url, 'node-b', { SHARDS: '2', NODE_SHARDS: '1' }))
  const [a, b] = nodes
  t.same(await placement(), { 0: 'node-a', 1: 'node-b', 2: 'node-a' }, 'A owns shard 0 and the registry, B shard 1')

  const workspaces = [workspaceOnShard('ws', 0), workspaceOnShard('ws', 1)]
  const keys = new Map<string, string>()
  for (const workspace of workspaces) {
    // Through B, which does not serve the registry: forwarded to A.
    const made = await request(b.process.baseUrl, adminToken, 'POST', '/admin/workspaces', { id: workspace, timezone: 'UTC' })
    t.equal(made.status, 201, `workspace ${workspace} (shard ${shardOf(workspace, 2)}) made through B: ${JSON.stringify(made.body)}`)
    const key = await request(b.process.baseUrl, adminToken, 'POST', '/admin/keys', { workspace, scopes })
    t.equal(key.status, 201, `a key of ${workspace} made through B: ${JSON.stringify(key.body)}`)
    keys.set(workspace, key.body?.secret)
  }
  for (const node of nodes) {
    const listed = await request(node.process.baseUrl, adminToken, 'GET', '/admin/workspaces')
    t.same(listed.body?.data?.map((workspace: { id: string }) => workspace.id).filter((id: string) => workspaces.includes(id)), workspaces, `${node.id} lists both workspaces`)
  }

  const written: { workspace: string; id: string; description: string }[] = []
  for (const workspace of workspaces) {
    const key = keys.get(workspace)!
    for (const name of ['assets:bank', 'income:sales']) {
      const account = await untilServed(() => request(a.process.baseUrl, key, 'POST', '/v2/accounts', { name }))
      t.equal(account.status, 201, `account ${name} of ${workspace} made through A: ${JSON.stringify(account.body)}`)
    }
    for (const node of nodes) {
      const description = `${workspace} through ${node.id}`
      const sale = { lines: [{ account: 'assets:bank', amount: 100 }, { account: 'income:sales', amount: -100 }], description }
      const posted = await untilServed(() => request(node.process.baseUrl, key, 'POST', '/v2/entries', sale, { 'idempotency-key': `key-${description}` }))
      t.equal(posted.status, 201, `a write for shard ${shardOf(workspace, 2)} sent to ${node.id} answers 201: ${JSON.stringify(posted.body)}`)
      written.push({ workspace, id: posted.body?.id, description })
    }
  }
  for (const write of written) {
    for (const node of nodes) {
      const read = await request(node.process.baseUrl, keys.get(write.workspace)!, 'GET', `/v2/entries/${write.id}`)
      t.equal(read.status, 200, `${write.description} read back on ${node.id}`)
      t.equal(read.body?.description, write.description)
    }
  }
  // A retry with its key through the other node answers the same entry, written once.
  const [first] = written
  const retried = await request(b.process.baseUrl, keys.get(first.workspace)!, 'POST', '/v2/entries',
    { lines: [{ account: 'assets:bank', amount: 100 }, { account: 'income:sales', amount: -100 }], description: first.description }, { 'idempotency-key': `key-${first.description}` })
  t.equal(retried.status, 201)
  t.equal(retried.body?.id, first.id, 'the same entry')
  t.equal(retried.replayed, true, 'marked as a replay')
  // An unknown key is refused on both nodes (B asks the registry's owner, which does not know it either).
  for (const node of nodes) t.equal((await request(node.process.baseUrl, 'tu_unknown', 'GET', '/v2/accounts')).status, 401, `an unknown key on ${node.id}: 401`)

  await streamsServedByOwnerOnly(t, nodes, workspaces, keys)
})

/** WebSocket sessions: served by the node that serves the workspace's shard, refused elsewhere naming that node's URL. */
async function streamsServedByOwnerOnly(t: Test, [a, b]: readonly ClusterNode[], workspaces: readonly string[], keys: ReadonlyMap<string, string>): Promise<void> {
  const onB = workspaces.find((workspace) => shardOf(workspace, 2) === 1)!
  const key = keys.get(onB)!
  const ownerStream = `${b.process.baseUrl}/v2/stream`
  const refused = await upgradeRefusal(a.process.baseUrl, key)
  t.equal(refused.status, 503, 'a session on A for a workspace of B\'s shard: the upgrade is refused')
  t.equal(refused.body?.error?.code, 'unavailable')
  t.same(refused.body?.error?.details, [{ path: '/owner_url', message: ownerStream }], 'naming the owner\'s stream URL')

  const byMessage = await openSocket(a.process.baseUrl)
  byMessage.send({ type: 'auth', key })
  const error = await byMessage.next((message) => message.type === 'error')
  t.same(error.error?.details, [{ path: '/owner_url', message: ownerStream }], 'authenticated by message: an error message naming the owner')
  t.equal((await byMessage.closed).code, 4503, 'then closed with 4503')

  for (const [node, workspace] of [[b, onB], [a, workspaces.find((id) => id !== onB)!]] as const) {
    const served = await openSocket(node.process.baseUrl, keys.get(workspace)!)
    await served.next((message) => message.type === 'authenticated')
    const description = `${workspace} over a socket on ${node.id}`
    served.send({ type: 'request', id: 'r1', method: 'POST', path: '/v2/entries', body: { lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -1 }], description } })
    const response = await served.next((message) => message.type === 'response' && message.id === 'r1', 30_000)
    t.equal(response.status, 201, `a request over a socket on the owner (${node.id}) answers 201: ${JSON.stringify(response.body)}`)
    served.socket.close()
  }
}

/** An upgrade authenticated by its header: the status and JSON body of its refusal (101 when it was accepted). */
function upgradeRefusal(baseUrl: string, key: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(streamUrl(baseUrl), { headers: { authorization: `Bearer ${key}` } })
    socket.once('open', () => {
      socket.close()
      resolve({ status: 101, body: null })
    })
    socket.once('unexpected-response', (_request, response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => { text += chunk })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text === '' ? null : JSON.parse(text) }))
    })
    socket.once('error', () => resolve({ status: 0, body: null }))
  })
}

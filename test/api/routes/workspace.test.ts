/** GET /v2/workspace (src/api/routes/workspace.ts): any valid key, no scope; a system read of the calling key's own workspace. */
import t from 'tap'
import { workspaceRoutes } from '../../../src/api/routes/workspace.ts'
import { settingsDefault } from '../../../src/ledger/system.ts'
import { handled, keyRecord, routeOf, workspaceRecord } from '../../support/route-context.ts'

const route = routeOf(workspaceRoutes, 'GET', '/v2/workspace')

t.test('no scope needed: any valid key of the workspace may read it', async (t) => {
  t.equal(route.scope, null)
  t.equal(route.body, undefined)
  t.equal(route.query, undefined, 'reads no query parameter')
})

t.test('the system read of the workspace the key belongs to, whatever the key\'s scopes', async (t) => {
  t.same(handled(route), { readsSystem: { name: 'workspace.get', params: { workspace: 'ws_1' } } })
  const other = { ...workspaceRecord(settingsDefault, 'Asia/Tokyo', 'JPY'), id: 'ws_other' }
  t.same(handled(route, { workspace: other, key: { ...keyRecord, workspace: 'ws_other', scopes: [] } }), { readsSystem: { name: 'workspace.get', params: { workspace: 'ws_other' } } })
})

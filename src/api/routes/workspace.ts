/** @module GET /v2/workspace: the caller's workspace (time zone, currency, limits), for any valid key. */

import { v2Route, type V2Route } from '../route.js'
import { workspace } from '../schemas/responses.js'

export const workspaceRoutes: V2Route[] = [
  v2Route({
    // No scope: every key may know its workspace's time zone (dates are read in it) and its limits.
    method: 'GET', pattern: '/v2/workspace', scope: null, summary: 'The workspace of the calling key (any valid key, no scope needed)',
    response: { status: 200, description: 'The workspace', schema: workspace },
    handle: ({ workspace: record }) => ({ readsSystem: { name: 'workspace.get', params: { workspace: record.id } } }),
  }),
]

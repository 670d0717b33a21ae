/** @module The admin lists: workspaces and API keys in creation order, paginated like every list (ledger/pages.ts). */

import { reject } from '../errors.js'
import { accept, type Outcome } from './outcome.js'
import { collectPage, cursorSeq, invalidCursor, listScope, seqKeys } from './pages.js'
import { keyView, workspaceView, type SystemState } from './system.js'

/**
 * A list's cursor is the position of the next item in creation order (1-based): workspaces and keys are
 * never deleted (a revoked key stays, with revoked_at), and the maps keep their insertion order, which
 * replay and restore reproduce, so a position names the same item for as long as the service runs.
 */
export function listWorkspaces(system: SystemState, limit: number, cursor: string | null): Outcome {
  const scope = listScope('workspaces')
  const from = cursorSeq(scope, cursor)
  if (from === null) return invalidCursor()
  const workspaces = [...system.workspaces.values()]
  return accept(200, collectPage(scope, seqKeys(from, workspaces.length), limit, (key) => workspaceView(workspaces[key.seq - 1])))
}

/** A workspace's keys (every key when `workspace` is null), revoked ones included; never a secret or its hash. */
export function listKeys(system: SystemState, workspace: string | null, limit: number, cursor: string | null): Outcome {
  if (workspace !== null && !system.workspaces.has(workspace)) return reject('not_found', `No workspace ${workspace}.`)
  const scope = listScope('keys', workspace)
  const from = cursorSeq(scope, cursor)
  if (from === null) return invalidCursor()
  const keys = [...system.keys.values()]
  return accept(200, collectPage(scope, seqKeys(from, keys.length), limit, (position) => {
    const key = keys[position.seq - 1]
    return workspace === null || key.workspace === workspace ? keyView(key) : undefined
  }))
}

/** One workspace as GET /v2/workspace and GET /admin/workspaces/:id show it. */
export function getWorkspace(system: SystemState, id: string): Outcome {
  const workspace = system.workspaces.get(id)
  return workspace === undefined ? reject('not_found', `No workspace ${id}.`) : accept(200, workspaceView(workspace))
}

/** A read of the system as data (the admin lists, a workspace), answered by executeSystemQuery. */
export type SystemQuery =
  | { readonly name: 'workspace.get'; readonly params: { readonly workspace: string } }
  | { readonly name: 'workspace.list'; readonly params: { readonly limit: number; readonly cursor: string | null } }
  | { readonly name: 'key.list'; readonly params: { readonly workspace: string | null; readonly limit: number; readonly cursor: string | null } }

export function executeSystemQuery(system: SystemState, query: SystemQuery): Outcome {
  switch (query.name) {
    case 'workspace.get': return getWorkspace(system, query.params.workspace)
    case 'workspace.list': return listWorkspaces(system, query.params.limit, query.params.cursor)
    case 'key.list': return listKeys(system, query.params.workspace, query.params.limit, query.params.cursor)
  }
}

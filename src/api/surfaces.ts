/** @module The two route kinds the lifecycle serves: /v2 (API keys, operations of their workspace) and admin (the admin token, the system). Both talk to a Shard only. */

import { reject, type Rejection } from '../errors.js'
import type { CommandEnvelope, WorkspaceCommand } from '../ledger/commands.js'
import type { SystemCommand } from '../ledger/system.js'
import type { Operation, Reply, Shard } from '../shard/operation.js'
import { adminRoutes } from './admin-routes.js'
import { authenticate, isAdmin } from './auth.js'
import type { Caller, Flow, LifecycleOptions } from './lifecycle.js'
import type { AdminBuilt, AdminRoute, Built, V2Route } from './route.js'
import { v2Routes } from './route-table.js'
import type { StreamedAnswer } from './streamed-answer.js'

type Surface = Pick<LifecycleOptions, 'routes' | 'handler' | 'authenticate' | 'unauthenticated'>

function envelopeOf(flow: Flow): CommandEnvelope {
  const key = flow.caller!.key!
  const idempotency = flow.idempotency
  if (idempotency === undefined) return { at_ms: flow.atMs, key_id: key.id, visibility: key.accounts }
  return { at_ms: flow.atMs, key_id: key.id, visibility: key.accounts, idempotency }
}

/** The shard's reply now when it has one (Shard.execute), else a Promise of it; a throw comes back as a rejected Promise, as from send. */
function sent(shard: Shard, operation: Operation): Reply | Promise<Reply> {
  if (shard.execute === undefined) return shard.send(operation)
  try {
    return shard.execute(operation)
  } catch (error) {
    return Promise.reject(error)
  }
}

/** What a /v2 handler built, as the operation its workspace's shard executes (an export: its first page, then a stream). */
function send(shard: Shard, flow: Flow, what: Built): Reply | Promise<Reply | StreamedAnswer> {
  const workspace = flow.caller!.workspace!.id
  const visibility = flow.caller!.key!.accounts
  if ('type' in what) {
    const command = what as WorkspaceCommand
    return sent(shard, { op: 'command', workspace, command, keyed: command.idempotency !== undefined })
  }
  if ('read' in what) return sent(shard, { op: 'query', workspace, visibility, query: what.read })
  if ('readsSystem' in what) return sent(shard, { op: 'system.query', query: what.readsSystem })
  if ('deliveries' in what) return sent(shard, { op: 'deliveries', workspace, ...what.deliveries })
  if ('streamed' in what) return what.streamed(shard)
  return sent(shard, { op: 'refuse', workspace, rejection: what })
}

/** /v2: a key by the hash of its secret, handlers that build operations of its workspace. */
export function v2Surface(shard: Shard): Surface {
  return {
    routes: v2Routes,
    authenticate: (authorization) => {
      const key = authenticate(shard.system, authorization)
      if (key === null) return null
      const workspace = shard.system.workspaces.get(key.workspace)
      return workspace === undefined ? null : { key, workspace }
    },
    handler: {
      build: (flow) => {
        const { key, workspace } = flow.caller as Required<{ [K in keyof Caller]: NonNullable<Caller[K]> }>
        const context = { params: flow.params, query: flow.query, body: flow.body, key, workspace, atMs: flow.atMs, envelope: envelopeOf(flow) }
        return (flow.route as V2Route).handle(context)
      },
      execute: (flow, built) => send(shard, flow, built as Built),
      lookUp: (flow, idempotencyKey, fingerprint, atMs) => {
        const key = flow.caller!.key!
        return sent(shard, { op: 'idempotency', workspace: key.workspace, key: idempotencyKey, keyId: key.id, visibility: key.accounts, atMs, fingerprint })
      },
    },
  }
}

/** Admin: the admin token in constant time; handlers build system commands and reads. */
export function adminSurface(shard: Shard, adminToken: string | null): Surface {
  const admin: Caller = { key: null, workspace: null }
  return {
    routes: adminRoutes,
    authenticate: (authorization) => (adminToken !== null && isAdmin(adminToken, authorization) ? admin : null),
    unauthenticated: reject('unauthenticated', 'The admin token is required: Authorization: Bearer <ADMIN_TOKEN>.'),
    handler: {
      build: (flow) => (flow.route as AdminRoute).handle({ params: flow.params, query: flow.query, body: flow.body, atMs: flow.atMs }),
      execute: (_flow, built) => {
        const what = built as AdminBuilt
        if ('ok' in what) return shard.send({ op: 'system.refuse', rejection: what as Rejection })
        if ('readsSystem' in what) return shard.send({ op: 'system.query', query: what.readsSystem })
        if ('command' in what) return shard.send({ op: 'system.command', command: what.command, extra: what.extra })
        return shard.send({ op: 'system.command', command: what as SystemCommand })
      },
    },
  }
}

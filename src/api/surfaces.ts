/** @module The two route kinds the lifecycle serves: /v2 (API keys, workspace actors) and admin (the admin token, the system). */

import type { Submitted } from '../actor/completion.js'
import type { Runtime } from '../actor/runtime.js'
import type { WorkspaceActor } from '../actor/workspace-actor.js'
import { reject, type Rejection } from '../errors.js'
import type { CommandEnvelope, WorkspaceCommand } from '../ledger/commands.js'
import type { SystemCommand } from '../ledger/system.js'
import { adminRoutes } from './admin-routes.js'
import { authenticate, isAdmin } from './auth.js'
import { queryEncodingProblem } from './query.js'
import type { Caller, Deferred, Flow, LifecycleOptions } from './lifecycle.js'
import type { AdminBuilt, AdminRoute, Built, Query, SystemQuery, V2Route } from './route.js'
import { v2Routes } from './route-table.js'

type Surface = Pick<LifecycleOptions, 'routes' | 'handler' | 'authenticate' | 'unauthenticated'>

function actorOf(runtime: Runtime, flow: Flow): WorkspaceActor {
  flow.actor ??= runtime.actor(flow.caller!.workspace!.id)
  return flow.actor
}

function envelopeOf(flow: Flow): CommandEnvelope {
  const key = flow.caller!.key!
  const idempotency = flow.idempotency
  if (idempotency === undefined) return { at_ms: flow.atMs, key_id: key.id, visibility: key.accounts }
  return { at_ms: flow.atMs, key_id: key.id, visibility: key.accounts, idempotency }
}

/**
 * The Idempotency-Key looked up in the actor's turn that applies the request, so that the check and the
 * store (executeWorkspace stores the answer with the command) are one step: a request with the same key
 * applied since the `idempotency` stage (its body read in a worker meanwhile, or arriving at once) is
 * answered here as a replay (its tokens given back) or a conflict. Else the key the answer is stored
 * under, as of now (a record the caller may not see may have appeared: ledger/idempotency.ts).
 */
export function keyedNow(actor: WorkspaceActor, flow: Flow): { readonly answer: Submitted } | { readonly storeKey: string } | null {
  const idempotency = flow.idempotency
  if (idempotency === undefined || flow.idempotencyKey === undefined) return null
  const key = flow.caller!.key!
  const found = actor.idempotency(flow.idempotencyKey, key.id, key.accounts, flow.atMs)
  if (found.record === undefined) return { storeKey: found.storeKey }
  if (found.record.fingerprint !== idempotency.fingerprint) return { answer: actor.answer(reject('idempotency_conflict')) }
  flow.replayed = found.record
  flow.bucket?.giveBack(flow.atMs, flow.tokensTaken)
  flow.tokensTaken = 0
  return { answer: actor.answer({ ok: true, status: found.record.status, body: null }) }
}

/** The command with its answer's store key as resolved in the actor's turn. */
function storedUnder(command: WorkspaceCommand, storeKey: string): WorkspaceCommand {
  const idempotency = command.idempotency
  if (idempotency === undefined || idempotency.key === storeKey) return command
  return { ...command, idempotency: { key: storeKey, fingerprint: idempotency.fingerprint } }
}

/** A request applied in this turn: the key looked up again, then a query, a refusal or a command. */
function executeNow(runtime: Runtime, actor: WorkspaceActor, flow: Flow, what: Built): Submitted | Deferred {
  const keyed = keyedNow(actor, flow)
  if (keyed !== null && 'answer' in keyed) return keyed.answer
  if (typeof what === 'function') return actor.query(what as Query)
  if ('slices' in what) return (done) => actor.querySliced(what.slices, done)
  if ('readsSystem' in what) return runtime.answerSystem(what.readsSystem(runtime.system))
  if ('ok' in what) return actor.answer(what)
  const command = what as WorkspaceCommand
  return actor.submit(keyed === null ? command : storedUnder(command, keyed.storeKey))
}

function settleNow(executed: Submitted | Deferred, done: (completion: Submitted) => void): void {
  if (typeof executed === 'function') executed(done)
  else done(executed)
}

/** A statement import runs in slices; its Idempotency-Key is looked up in its first slice, before anything changes. */
function importInSlices(actor: WorkspaceActor, flow: Flow, command: WorkspaceCommand): Deferred {
  const prepare = (): WorkspaceCommand | Submitted => {
    const keyed = keyedNow(actor, flow)
    if (keyed === null) return command
    return 'answer' in keyed ? keyed.answer : storedUnder(command, keyed.storeKey)
  }
  return (done) => actor.submitInSlices(prepare, done)
}

/** The query of every request without one (most writes): handlers only read their query. */
const noQuery = new URLSearchParams()

/** /v2: a key by the hash of its secret, its workspace's actor, handlers that build workspace commands and queries. */
export function v2Surface(runtime: Runtime): Surface {
  return {
    routes: v2Routes,
    authenticate: (authorization) => {
      const key = authenticate(runtime.system, authorization)
      if (key === null) return null
      const workspace = runtime.system.workspaces.get(key.workspace)
      return workspace === undefined ? null : { key, workspace }
    },
    handler: {
      actorOf: (flow) => actorOf(runtime, flow),
      build: (flow) => {
        const { key, workspace } = flow.caller as Required<{ [K in keyof Caller]: NonNullable<Caller[K]> }>
        const encoding = queryEncodingProblem(flow.request.query)
        if (encoding !== null) return encoding
        const query = flow.request.query === '' ? noQuery : new URLSearchParams(flow.request.query)
        const context = { params: flow.params, query, body: flow.body, key, workspace, actor: actorOf(runtime, flow), atMs: flow.atMs, envelope: envelopeOf(flow) }
        return (flow.route as V2Route).handle(context)
      },
      execute: (flow, built): Submitted | Deferred => {
        const actor = actorOf(runtime, flow)
        const what = built as Built
        if (typeof what !== 'function' && 'type' in what && what.type === 'statements.import') return importInSlices(actor, flow, what)
        // A statement import is running in slices: its workspace's requests wait for it (workspace-actor.ts).
        if (actor.busy) return (done) => actor.whenIdle(() => settleNow(executeNow(runtime, actor, flow, what), done))
        return executeNow(runtime, actor, flow, what)
      },
    },
  }
}

/** Admin: the admin token in constant time; handlers build system commands. */
export function adminSurface(runtime: Runtime, adminToken: string | null): Surface {
  const admin: Caller = { key: null, workspace: null }
  return {
    routes: adminRoutes,
    authenticate: (authorization) => (adminToken !== null && isAdmin(adminToken, authorization) ? admin : null),
    unauthenticated: reject('unauthenticated', 'The admin token is required: Authorization: Bearer <ADMIN_TOKEN>.'),
    handler: {
      build: (flow) => {
        const query = flow.request.query === '' ? noQuery : new URLSearchParams(flow.request.query)
        return (flow.route as AdminRoute).handle({ params: flow.params, query, body: flow.body, atMs: flow.atMs })
      },
      execute: (_flow, built): Submitted => {
        const what = built as AdminBuilt
        if ('ok' in what) return runtime.answerSystem(what as Rejection)
        if ('readsSystem' in what) return runtime.answerSystem((what as SystemQuery).readsSystem(runtime.system))
        if ('command' in what) return runtime.submitSystem(what.command).withFields(what.extra)
        return runtime.submitSystem(what as SystemCommand)
      },
    },
  }
}

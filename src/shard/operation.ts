/**
 * @module The boundary between the ways in (HTTP, WebSocket, the embedded Ledger) and the workspaces: every
 * command and every read crosses it as an Operation, plain data, and comes back as a Reply (status, headers,
 * body text), only once the log holds what it rests on. A `Shard` is whatever executes operations: today the
 * in-process shard (local-shard.ts); nothing on the ways-in side holds an actor, a state or a log.
 */

import type { Rejection } from '../errors.js'
import type { WorkspaceCommand } from '../ledger/commands.js'
import type { PackPosition } from '../ledger/pack-pages.js'
import type { WorkspaceQuery, WorkspaceSlicedQuery } from '../ledger/queries.js'
import type { SystemCommand, SystemState } from '../ledger/system.js'
import type { SystemQuery } from '../ledger/system-pages.js'
import type { Visibility } from '../ledger/visibility.js'

export type Headers = readonly (readonly [string, string])[]

/** An answer as it leaves: the ways in write it as they are (HTTP, a response message, a parsed value). */
export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly body: string
  /** The request's Idempotency-Key named a stored answer: this is it (its rate tokens go back). */
  readonly keyReplayed?: true
}

/**
 * Status of an `idempotency` reply that found nothing stored under the key (the request goes on). A stored
 * answer comes back with `Replayed: true`, a different request under the same key as 409 idempotency_conflict.
 */
export const nothingStored = 100

export type Operation =
  /** A command of a workspace; with `keyed`, its Idempotency-Key (command.idempotency.key, as sent) is looked up again in the same step that applies it. */
  | { readonly op: 'command'; readonly workspace: string; readonly command: WorkspaceCommand; readonly keyed: boolean }
  | { readonly op: 'query'; readonly workspace: string; readonly visibility: Visibility; readonly query: WorkspaceQuery | WorkspaceSlicedQuery }
  /** A refusal of the request's shape, answered at the workspace's barrier like a read. */
  | { readonly op: 'refuse'; readonly workspace: string; readonly rejection: Rejection }
  /** An Idempotency-Key before its request runs: replayed (status and body as stored), a conflict, or nothingStored. Without a fingerprint: whether anything is stored. */
  | { readonly op: 'idempotency'; readonly workspace: string; readonly key: string; readonly keyId: string; readonly visibility: Visibility; readonly atMs: number; readonly fingerprint: string | null }
  /** A page of a webhook subscription's deliveries (read beside the log). */
  | { readonly op: 'deliveries'; readonly workspace: string; readonly webhook: string; readonly limit: number; readonly cursor: string | null }
  /** A page of a window's audit pack: its items as JSON, and where the next page starts. */
  | { readonly op: 'pack'; readonly workspace: string; readonly visibility: Visibility; readonly window: string; readonly position: PackPosition | null; readonly itemsMax: number; readonly atMs: number }
  /** Live updates: the current values of windows and accounts, and the topics watched from this step on. */
  | { readonly op: 'subscribe'; readonly workspace: string; readonly visibility: Visibility; readonly windows: readonly string[]; readonly accounts: readonly string[]; readonly atMs: number }
  /** Topics no longer watched by one subscriber (their ids or account names resolved as subscribe did). */
  | { readonly op: 'unsubscribe'; readonly workspace: string; readonly visibility: Visibility; readonly windows: readonly string[]; readonly accounts: readonly string[] }
  /** Topics (`r:…`, `a:…`) one subscriber left: each subscribe's watch is let go once. */
  | { readonly op: 'unwatch'; readonly workspace: string; readonly topics: readonly string[] }
  /** A system command; `extra` fields join its accepted answer (a new key's secret, never logged). */
  | { readonly op: 'system.command'; readonly command: SystemCommand; readonly extra?: Readonly<Record<string, unknown>> }
  | { readonly op: 'system.query'; readonly query: SystemQuery }
  | { readonly op: 'system.refuse'; readonly rejection: Rejection }

/** A live update as it leaves a shard: after the command it shows is durable, in log order. */
export type UpdateListener = (topic: string, text: string) => void

/** What the ways in hold: send an operation, hear live updates and system changes, read the registry. */
export interface Shard {
  send(operation: Operation): Promise<Reply>
  /**
   * send, answered at once when the answer may leave at once (a read with no write in flight, an Idempotency-Key
   * looked up): the Reply itself, not a Promise, so the ways in can answer within the request's own turn, as they did
   * before the boundary (an HTTP answer given in its handler needs no abort watch). Else a Promise, as send's. A shard
   * that cannot tell (one on another thread) need not have it: the ways in then call send.
   */
  execute?(operation: Operation): Reply | Promise<Reply>
  /**
   * The registry of workspaces and keys, as of the last system command applied: the ways in authenticate
   * against it (a key by the hash of its secret) without a hop. Read only.
   */
  readonly system: SystemState
  /** Live updates of every workspace (the edge publishes them to the sockets subscribed to the topic). */
  onUpdate(listener: UpdateListener): void
  /** Each accepted system command (a revoked key closes its sockets). */
  onSystemCommand(listener: (command: SystemCommand) => void): void
  /** For the metrics (read when scraped) and the stop's last line: as they are now, on every shard. */
  stats(): Promise<ShardStats>
}

export interface ShardStats {
  /** Log records appended but not yet durable. */
  readonly pendingRecords: number
  /** Per workspace: commands applied but not yet durable. */
  readonly queueDepths: ReadonlyMap<string, number>
  /** Webhook deliveries not yet done. */
  readonly outboxItems: number
  /** The log's durable end (several shards: their sum). */
  readonly durableSeq: number
  /** Several shards: messages between threads and the postMessage calls that carried them (batched), each way. */
  readonly crossThread?: CrossThreadStats
}

export interface CrossThreadStats {
  readonly toShards: { readonly posts: number; readonly messages: number }
  readonly fromShards: { readonly posts: number; readonly messages: number }
}

/** @module What the main thread and a shard's worker thread say to each other (structured clones of plain data), posted in batches (port-batch.ts: an array of them per postMessage). */

import type { ReplayReport } from '../actor/runtime.js'
import type { ReplicaRoute } from '../cluster/shard-replica.js'
import type { SystemCommand, SystemState } from '../ledger/system.js'
import type { AttemptResult } from '../webhooks/deliverer.js'
import type { Operation, Reply } from './operation.js'
import type { Probe } from './probe.js'
import type { RateSlotAssigned, RateSlotsState } from './rate-slots.js'

/**
 * What a thread starts with when it serves HTTP (EDGE_THREADS=1): the registry's state for its copy
 * (registry-copy.ts), the rate slots assigned so far (rate-slots.ts), and the send-buffer counts (the process's,
 * and the keys' slots so far: edge/shared-send-buffers.ts). Null without: the thread keeps none of them.
 */
export interface EdgeState {
  readonly system: SystemState
  readonly rate: RateSlotsState
  readonly buffers: { readonly process: SharedArrayBuffer; readonly keys: RateSlotsState }
}

export type ToShard =
  | { readonly kind: 'operation'; readonly id: number; readonly operation: Operation }
  /** Housekeeping on (snapshots, retention, webhooks), once the service answers. */
  | { readonly kind: 'start' }
  | { readonly kind: 'close' }
  /** Post the stats as they are now (metrics, the stop's last line), answered by `stats`. */
  | { readonly kind: 'stats' }
  /** A test seam (probe.ts): run against the shard's runtime, answered by `probed`. */
  | { readonly kind: 'probe'; readonly id: number; readonly probe: Probe }
  /**
   * A system command the registry accepted (durable), for the thread's registry copy (registry-copy.ts), answered by `applied`;
   * with a new workspace's rate slot, a new key's send-buffer slot.
   */
  | { readonly kind: 'registry'; readonly id: number; readonly command: SystemCommand; readonly rate: RateSlotAssigned | null; readonly keySlot: RateSlotAssigned | null }
  /** The reply to an operation the thread's edge forwarded (`forward`). */
  | { readonly kind: 'forwarded'; readonly id: number; readonly reply: Reply }
  /** A test seam: send an operation as the thread's edge would (thread-shard.ts), answered by `edged` with its hops. */
  | { readonly kind: 'edge'; readonly id: number; readonly operation: Operation }
  /** A test seam: post the thread's registry copy as it is now, answered by `copy`. */
  | { readonly kind: 'copy'; readonly id: number }
  /** EDGE_THREADS=1: build the thread's edge (edge/thread-edge.ts), answered with its app's descriptor. */
  | { readonly kind: 'edgeStart'; readonly id: number; readonly adminToken: string; readonly clockCell: Float64Array | null }
  /** Drain the thread's edge (the main thread has stopped accepting), answered with its DrainReport. */
  | { readonly kind: 'edgeClose'; readonly id: number; readonly graceMs: number }
  /** EDGE_THREADS=1: a live update of another shard's workspace, for the sessions of this thread's edge. */
  | { readonly kind: 'update'; readonly topic: string; readonly text: string }
  /** A test seam: the thread's edge's hops so far (thread-shard.ts), answered with them. */
  | { readonly kind: 'edgeHops'; readonly id: number }
  /** Cluster mode: whether the shard holds the workspace, waited for up to waitMs (a standby follows its creation); answered true or false. */
  | { readonly kind: 'holds'; readonly id: number; readonly workspace: string; readonly waitMs: number }
  /** EDGE_THREADS=1: the metrics of the thread's edge (prom-client's JSON form), answered with them, for a scrape on any thread. */
  | { readonly kind: 'edgeMetrics'; readonly id: number }
  /** The answer to `scrape`: every thread's and the main thread's metrics as one text, or why not. */
  | { readonly kind: 'scraped'; readonly id: number; readonly text: string | null }
  /** EDGE_THREADS=1: another thread's ring: a send-buffer count over its bound (a key's, or the process's: null) and this thread's socket the largest. */
  | { readonly kind: 'shed'; readonly keyId: string | null; readonly hops: number }
  /** A test seam: the thread's edge's WebSocket sessions and counts (edge/stream.ts, EdgeCounts), answered with them. */
  | { readonly kind: 'edgeCounts'; readonly id: number }

export interface PostedStats {
  readonly pendingRecords: number
  readonly queueDepths: readonly (readonly [string, number])[]
  readonly outboxItems: number
  readonly durableSeq: number
}

export type FromShard =
  | { readonly kind: 'ready'; readonly workspaces: readonly string[]; readonly replay: ReplayReport }
  | { readonly kind: 'error'; readonly name: string; readonly message: string }
  | { readonly kind: 'reply'; readonly id: number; readonly reply: Reply }
  | { readonly kind: 'update'; readonly topic: string; readonly text: string }
  | { readonly kind: 'stats'; readonly stats: PostedStats }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'warn'; readonly line: string }
  /** A group commit of the shard's log (metrics: records per commit, its time). */
  | { readonly kind: 'commit'; readonly records: number; readonly durationMs: number }
  /** A webhook delivery attempt of the shard's deliverer, or a delivery given up on (metrics). */
  | { readonly kind: 'webhook'; readonly result: AttemptResult | 'gave-up' }
  | { readonly kind: 'probed'; readonly id: number; readonly value?: unknown; readonly error?: string }
  | { readonly kind: 'applied'; readonly id: number }
  /** An operation of the thread's edge for another shard or the registry: the main thread sends it on, answered by `forwarded`. */
  | { readonly kind: 'forward'; readonly id: number; readonly operation: Operation }
  | { readonly kind: 'edged'; readonly id: number; readonly reply: Reply; readonly hops: { readonly local: number; readonly forwarded: number } }
  | { readonly kind: 'copy'; readonly id: number; readonly system: SystemState }
  /** GET /metrics on the thread's edge: the main thread adds up every thread's metrics, answered by `scraped`. */
  | { readonly kind: 'scrape'; readonly id: number }
  /** A ring for another thread (edge/shared-send-buffers.ts): the main thread sends it on as `shed`. */
  | { readonly kind: 'shed'; readonly thread: number; readonly keyId: string | null; readonly hops: number }
  /** The answer to edgeStart, edgeClose, edgeHops, edgeMetrics or edgeCounts. */
  | { readonly kind: 'answered'; readonly id: number; readonly value: unknown }
  | { readonly kind: 'closed'; readonly snapshotsWrittenCount: number; readonly durableSeq: number }
  /** Cluster mode: where a request for the shard goes now (served here, forwarded to its owner, 503), posted when it changes. */
  | { readonly kind: 'route'; readonly route: ReplicaRoute }

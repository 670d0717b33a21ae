/**
 * @module The Shard an edge on a shard's worker thread holds (SHARDS > 1): an operation on a workspace of this
 * thread's shard goes to its LocalShard directly, without a hop; any other (another shard's workspace, a system
 * command or read) is forwarded to the main thread, whose ShardSet sends it to its owner or to the registry. Keys
 * are authenticated against the thread's registry copy (registry-copy.ts), without a hop either.
 */

import type { SystemCommand, SystemState } from '../ledger/system.js'
import type { LocalShard } from './local-shard.js'
import type { Operation, Reply, Shard, ShardStats, UpdateListener } from './operation.js'
import { shardOf } from './placement.js'
import type { RegistryCopy } from './registry-copy.js'

/** Operations this thread's edge sent: executed on its own shard, or forwarded to the main thread. */
export interface EdgeHops {
  readonly local: number
  readonly forwarded: number
}

export class ThreadShard implements Shard {
  readonly #index: number
  readonly #shards: number
  readonly #local: LocalShard
  readonly #registry: RegistryCopy
  readonly #forward: (operation: Operation) => Promise<Reply>
  /** Listeners of the other shards' updates, relayed by the main thread (EDGE_THREADS=1). */
  readonly #relayed: UpdateListener[] = []
  #localCount = 0
  #forwardedCount = 0

  constructor(index: number, shards: number, local: LocalShard, registry: RegistryCopy, forward: (operation: Operation) => Promise<Reply>) {
    this.#index = index
    this.#shards = shards
    this.#local = local
    this.#registry = registry
    this.#forward = forward
  }

  get system(): SystemState {
    return this.#registry.system
  }

  get hops(): EdgeHops {
    return { local: this.#localCount, forwarded: this.#forwardedCount }
  }

  send(operation: Operation): Promise<Reply> {
    switch (operation.op) {
      case 'system.command':
      case 'system.query':
      case 'system.refuse': return this.#forwarded(operation)
      default: {
        if (shardOf(operation.workspace, this.#shards) !== this.#index) return this.#forwarded(operation)
        this.#localCount++
        return this.#local.send(operation)
      }
    }
  }

  #forwarded(operation: Operation): Promise<Reply> {
    this.#forwardedCount++
    return this.#forward(operation)
  }

  /** This shard's workspaces' updates, and the other shards' as the main thread relays them (relayedUpdate). */
  onUpdate(listener: UpdateListener): void {
    this.#local.onUpdate(listener)
    this.#relayed.push(listener)
  }

  /** Another shard's update, relayed by the main thread. */
  relayedUpdate(topic: string, text: string): void {
    for (const listener of this.#relayed) listener(topic, text)
  }

  onSystemCommand(listener: (command: SystemCommand) => void): void {
    this.#registry.onApplied(listener)
  }

  stats(): Promise<ShardStats> {
    return this.#local.stats()
  }
}

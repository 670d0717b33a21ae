/**
 * @module Simulation: the process the simulation runs, one log or several shards. SHARDS=1 is one SimNode on
 * the data dir. More shards are laid out as the service lays them out (src/shard/layout.ts): a registry of
 * workspaces and keys in its own log, and one log per shard; each workspace lives on the shard its id hashes to
 * (src/shard/placement.ts, the same function the ShardSet routes by), a new workspace is written to the registry
 * first and then to its shard, and at every start a workspace the registry has and its shard lacks is given to
 * it again, as ShardSet.open does. The shards run in this thread, not on worker threads: a worker's turn is not
 * the seed's to choose, and the simulation's crash switches and state reads are closures that cannot cross a
 * MessagePort; what differs between a shard on a worker and one here is the MessagePort, which the
 * HTTP and WebSocket suites drive under SHARDS=4.
 *
 * A crash is the whole process's: every log stops at once. The simulation arms each shard's log with its own
 * stage, so one shard's last group commit can be lost (at the transaction) while another's is kept unacknowledged
 * (at the fsync), as a kill -9 leaves them.
 */

import path from 'node:path'
import type { MatchBatch, WorkspaceCommand } from '../../src/ledger/commands.ts'
import type { Outcome } from '../../src/ledger/outcome.ts'
import type { ProposalQuery } from '../../src/ledger/proposals.ts'
import type { WorkspaceState } from '../../src/ledger/state.ts'
import type { SystemCommand } from '../../src/ledger/system.ts'
import type { Visibility } from '../../src/ledger/visibility.ts'
import { registryDir, shardDir } from '../../src/shard/layout.ts'
import { shardOf } from '../../src/shard/placement.ts'
import { createCommand } from '../../src/shard/shard-set.ts'
import { SimNode, type CrashKind, type Reply, type States } from './adapter.ts'

export class SimProcess {
  /** The workspaces this start gave to their shards (the registry had them, the shard did not). */
  readonly repaired: string[] = []
  /** Where the system state lives: the registry, or the single log. */
  readonly #registry: SimNode
  /** The logs that hold workspaces, by shard number (the single log: one, the registry itself). */
  readonly #shards: readonly SimNode[]

  private constructor(registry: SimNode, shards: readonly SimNode[]) {
    this.#registry = registry
    this.#shards = shards
  }

  /** Opens every log and rebuilds memory from snapshots and logs; then gives each shard the workspaces the registry has and it lacks. */
  static open(dir: string, shards: number, snapshotCommandsInterval: number, nowMs: () => number): SimProcess {
    if (shards === 1) {
      const node = SimNode.open(dir, snapshotCommandsInterval, nowMs)
      return new SimProcess(node, [node])
    }
    const registry = SimNode.open(path.join(registryDir(dir), 'log'), snapshotCommandsInterval, nowMs)
    const nodes = Array.from({ length: shards }, (_, index) => SimNode.open(path.join(shardDir(dir, index), 'log'), snapshotCommandsInterval, nowMs))
    const process = new SimProcess(registry, nodes)
    for (const record of registry.live().system.workspaces.values()) {
      const shard = nodes[process.shardOf(record.id)]
      if (shard.live().workspaces.has(record.id)) continue
      const outcome = shard.submitSystem(createCommand(record))
      if (!outcome.ok) throw new Error(`shard ${process.shardOf(record.id)} refused workspace ${record.id} at start: ${outcome.code}`)
      process.repaired.push(record.id)
    }
    return process
  }

  /** How many logs hold workspaces (each armed with its own crash stage). */
  get shards(): number {
    return this.#shards.length
  }

  /** Where a workspace's operations are sent: the service's placement. */
  shardOf(workspace: string): number {
    return shardOf(workspace, this.#shards.length)
  }

  #of(workspace: string): SimNode {
    return this.#shards[this.shardOf(workspace)]
  }

  /** A system command: the registry decides; an accepted new workspace then goes to its shard too. */
  submitSystem(command: SystemCommand): Outcome {
    const outcome = this.#registry.submitSystem(command)
    if (!outcome.ok || command.type !== 'workspace.create' || this.#shards[0] === this.#registry) return outcome
    const created = this.#of(command.id).submitSystem(command)
    if (!created.ok) throw new Error(`shard ${this.shardOf(command.id)} refused workspace ${command.id}: ${created.code}`)
    return outcome
  }

  /**
   * A new workspace whose process dies between the two commits: the registry's is durable, its shard's struck at
   * the transaction (lost). The process is gone when this resolves; the next open must repair the shard.
   */
  async createCrashing(command: Extract<SystemCommand, { type: 'workspace.create' }>): Promise<void> {
    const outcome = this.#registry.submitSystem(command)
    if (!outcome.ok) throw new Error(`the registry refused workspace ${command.id}: ${outcome.code}`)
    await this.#registry.durable()
    const shard = this.#of(command.id)
    shard.armCrash('transaction')
    const created = shard.submitSystem(command)
    if (!created.ok) throw new Error(`shard ${this.shardOf(command.id)} refused workspace ${command.id}: ${created.code}`)
    const struck = await this.crash()
    if (struck[this.shardOf(command.id)] !== 'transaction') throw new Error(`the crash did not strike shard ${this.shardOf(command.id)}'s creation of ${command.id}`)
  }

  submit(workspace: string, command: WorkspaceCommand): Reply {
    return this.#of(workspace).submit(workspace, command)
  }

  dryRunMatches(workspace: string, command: MatchBatch): Reply {
    return this.#of(workspace).dryRunMatches(workspace, command)
  }

  proposals(workspace: string, windowId: string, query: ProposalQuery, visibility: Visibility): Reply {
    return this.#of(workspace).proposals(workspace, windowId, query, visibility)
  }

  autoMatchWhatIf(workspace: string, windowId: string, visibility: Visibility): Reply {
    return this.#of(workspace).autoMatchWhatIf(workspace, windowId, visibility)
  }

  query(workspace: string, run: (state: WorkspaceState) => Outcome): Outcome {
    return this.#of(workspace).query(workspace, run)
  }

  #all(): SimNode[] {
    return this.#shards[0] === this.#registry ? [this.#registry] : [this.#registry, ...this.#shards]
  }

  /** Resolves once every log's appended records are durable; throws when one failed. */
  async durable(): Promise<void> {
    await Promise.all(this.#all().map((node) => node.durable()))
  }

  async snapshot(force: boolean): Promise<number> {
    let written = 0
    for (const node of this.#all()) written += await node.snapshot(force)
    return written
  }

  watchWindows(): void {
    for (const node of this.#shards) node.watchWindows()
  }

  staleWindows(): string[] {
    return this.#shards.flatMap((node) => node.staleWindows())
  }

  /** Each shard's log gets its stage (by shard number; null: disarmed). */
  armCrash(kinds: readonly (CrashKind | null)[]): void {
    this.#shards.forEach((node, index) => node.armCrash(kinds[index] ?? null))
  }

  /** Whether any shard appended a record since the crash was armed. */
  get appendedSinceArmed(): boolean {
    return this.#shards.some((node) => node.appendedSinceArmed)
  }

  /** The whole process goes: by shard, the stage its crash struck at, or null where nothing was there to strike. */
  async crash(): Promise<(CrashKind | null)[]> {
    const struck = await Promise.all(this.#shards.map((node) => node.crash()))
    if (this.#shards[0] !== this.#registry) await this.#registry.close()
    return struck
  }

  async close(): Promise<void> {
    for (const node of this.#all()) await node.close().catch(() => undefined)
  }

  /** The system from the registry, each workspace from its shard. */
  live(): States {
    return this.#joined((node) => node.live())
  }

  replayedFromLog(): States {
    return this.#joined((node) => node.replayedFromLog())
  }

  restoredFromSnapshots(nowMs: () => number): States {
    return this.#joined((node) => node.restoredFromSnapshots(nowMs))
  }

  #joined(states: (node: SimNode) => States): States {
    if (this.#shards[0] === this.#registry) return states(this.#registry)
    const system = states(this.#registry).system
    const workspaces = new Map<string, WorkspaceState>()
    for (const node of this.#shards) for (const [id, state] of states(node).workspaces) workspaces.set(id, state)
    return { system, workspaces }
  }

  /**
   * Every workspace of the registry held by the shard its id hashes to, and by no other shard; '' when so.
   * (The workspace states the registry's own runtime keeps are empty: its shards hold the real ones.)
   */
  placementProblem(): string {
    if (this.#shards[0] === this.#registry) return ''
    for (const id of this.#registry.live().system.workspaces.keys()) {
      const holders = this.#shards.flatMap((node, index) => (node.live().workspaces.has(id) ? [index] : []))
      const owner = shardOf(id, this.#shards.length)
      if (holders.length !== 1 || holders[0] !== owner) return `workspace ${id} is held by shards [${holders.join(', ')}]; its id places it on shard ${owner}`
    }
    return ''
  }

  /** How many workspaces each shard holds. */
  workspacesPerShard(): number[] {
    return this.#shards.map((node) => node.live().workspaces.size)
  }
}

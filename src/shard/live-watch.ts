/**
 * @module Live updates on the shard's side (docs/API.md, WebSocket API and live updates): which topics of a
 * workspace someone watches, and the update an accepted command makes for each, computed when it is applied
 * (the state it shows is exactly the command's) and handed out as `{topic, text}` once it is durable. Updates
 * of one workspace leave in log order: completions are released in seq order. Who reads them (sockets) is the
 * edge's business (stream/hub.ts).
 */

import type { CommandObserver, Submitted } from '../actor/workspace-actor.js'
import type { Runtime } from '../actor/runtime.js'
import { balanceAt } from '../ledger/balances.js'
import { changesOf } from '../ledger/command-table.js'
import type { WorkspaceCommand } from '../ledger/commands.js'
import type { Accepted } from '../ledger/outcome.js'
import type { Account, WorkspaceState } from '../ledger/state.js'
import { windowView } from '../ledger/windows.js'
import type { ReconciliationWindow } from '../ledger/windows-state.js'
import type { UpdateListener } from './operation.js'

export function windowTopic(window: ReconciliationWindow): string {
  return `r:${window.id}`
}

export function accountTopic(account: Account): string {
  return `a:${account.id}`
}

/** `{"type":"reconciliation","data":<window object>}` as the window stands in this state. */
export function windowMessage(state: WorkspaceState, window: ReconciliationWindow): string {
  return `{"type":"reconciliation","data":${JSON.stringify(windowView(state, window))}}`
}

/** `{"type":"balance","data":…}`: the balance route's answer for the account at atMs (currency and all). */
export function balanceMessage(state: WorkspaceState, account: Account, atMs: number): string {
  const outcome = balanceAt(state, account.id, atMs, null)
  if (!outcome.ok) throw new Error(`account ${account.id} has no balance: ${outcome.code}`)
  return `{"type":"balance","data":${JSON.stringify(outcome.body)}}`
}

/** One workspace's watched topics, each with how many subscriptions hold it; the actor's observer while it has any. */
class WorkspaceWatch implements CommandObserver {
  readonly topics = new Map<string, number>()
  readonly #emit: UpdateListener

  constructor(emit: UpdateListener) {
    this.#emit = emit
  }

  accepted(state: WorkspaceState, command: WorkspaceCommand, outcome: Accepted, completion: Submitted): void {
    const changes = changesOf(state, command, outcome)
    const updates: [string, string][] = []
    for (const window of changes.windows) {
      if (this.topics.has(windowTopic(window))) updates.push([windowTopic(window), windowMessage(state, window)])
    }
    for (const accountSeq of changes.accountSeqs) {
      const account = state.accounts[accountSeq - 1]
      if (this.topics.has(accountTopic(account))) updates.push([accountTopic(account), balanceMessage(state, account, command.at_ms)])
    }
    if (updates.length === 0) return
    completion.whenDurable((error) => {
      if (error !== null) return
      for (const [topic, text] of updates) this.#emit(topic, text)
    })
  }
}

export class LiveWatches {
  readonly #runtime: Runtime
  readonly #emit: UpdateListener
  readonly #watches = new Map<string, WorkspaceWatch>()

  constructor(runtime: Runtime, emit: UpdateListener) {
    this.#runtime = runtime
    this.#emit = emit
  }

  /** Call within the actor's turn that read the topic's current value, so no command falls between the read and the watch. */
  watch(workspaceId: string, topic: string): void {
    let watch = this.#watches.get(workspaceId)
    if (watch === undefined) {
      watch = new WorkspaceWatch(this.#emit)
      this.#watches.set(workspaceId, watch)
      this.#runtime.actor(workspaceId).observer = watch
    }
    watch.topics.set(topic, (watch.topics.get(topic) ?? 0) + 1)
  }

  unwatch(workspaceId: string, topic: string): void {
    const watch = this.#watches.get(workspaceId)
    const count = watch?.topics.get(topic)
    if (watch === undefined || count === undefined) return
    if (count > 1) return void watch.topics.set(topic, count - 1)
    watch.topics.delete(topic)
    if (watch.topics.size > 0) return
    // Nobody left: commands of this workspace stop paying for change detection.
    this.#watches.delete(workspaceId)
    this.#runtime.actor(workspaceId).observer = null
  }
}

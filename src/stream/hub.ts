/**
 * @module Live updates (docs/API.md, WebSocket API and live updates): who watches which window or account, and the updates an accepted
 * command makes for them, computed when it is applied (the state it shows is exactly the command's) and
 * pushed once it is durable. Updates of one workspace leave in log order: completions are released in seq order.
 */

import type { Runtime } from '../actor/runtime.js'
import type { CommandObserver, Submitted } from '../actor/workspace-actor.js'
import { balanceAt } from '../ledger/balances.js'
import { changesOf } from '../ledger/changes.js'
import type { WorkspaceCommand } from '../ledger/commands.js'
import type { Accepted } from '../ledger/outcome.js'
import type { Account, WorkspaceState } from '../ledger/state.js'
import { windowView } from '../ledger/windows.js'
import type { ReconciliationWindow } from '../ledger/windows-state.js'

/** Where updates go: a session. It takes an update itself when its reader is behind (coalescing it), else leaves it to the topic's publish. */
export interface UpdateSink {
  takes(topic: string, text: string): boolean
}

/** Sends a message to every socket on a topic at once (uWebSockets.js app.publish: the loop over sockets in C++). */
export type Publish = (topic: string, text: string) => void

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

/** One workspace's watchers; the actor's observer while it has any. */
class WorkspaceWatch implements CommandObserver {
  readonly sinks = new Map<string, Set<UpdateSink>>()
  readonly #publish: Publish

  constructor(publish: Publish) {
    this.#publish = publish
  }

  accepted(state: WorkspaceState, command: WorkspaceCommand, outcome: Accepted, completion: Submitted): void {
    const changes = changesOf(state, command, outcome)
    const updates: { topic: string; text: string; sinks: UpdateSink[] }[] = []
    for (const window of changes.windows) {
      const sinks = this.sinks.get(windowTopic(window))
      if (sinks !== undefined) updates.push({ topic: windowTopic(window), text: windowMessage(state, window), sinks: [...sinks] })
    }
    for (const accountSeq of changes.accountSeqs) {
      const account = state.accounts[accountSeq - 1]
      const sinks = this.sinks.get(accountTopic(account))
      if (sinks !== undefined) updates.push({ topic: accountTopic(account), text: balanceMessage(state, account, command.at_ms), sinks: [...sinks] })
    }
    if (updates.length === 0) return
    // The sinks as of the commit: one that subscribes later starts from a state at or after this one, and
    // joins the topic only then (its subscription is answered after this update is released: seq order).
    completion.whenDurable((error) => {
      if (error !== null) return
      for (const update of updates) {
        let published = false
        for (const sink of update.sinks) {
          if (sink.takes(update.topic, update.text) || published) continue
          this.#publish(update.topic, update.text)
          published = true
        }
      }
    })
  }
}

export class LiveHub {
  readonly #runtime: Runtime
  readonly #publish: Publish
  readonly #watches = new Map<string, WorkspaceWatch>()

  constructor(runtime: Runtime, publish: Publish) {
    this.#runtime = runtime
    this.#publish = publish
  }

  /** Call from within the actor's turn (a query), so no command falls between the state read and the watch. */
  watch(workspaceId: string, topic: string, sink: UpdateSink): void {
    let watch = this.#watches.get(workspaceId)
    if (watch === undefined) {
      watch = new WorkspaceWatch(this.#publish)
      this.#watches.set(workspaceId, watch)
      this.#runtime.actor(workspaceId).observer = watch
    }
    let sinks = watch.sinks.get(topic)
    if (sinks === undefined) watch.sinks.set(topic, (sinks = new Set()))
    sinks.add(sink)
  }

  unwatch(workspaceId: string, topic: string, sink: UpdateSink): void {
    const watch = this.#watches.get(workspaceId)
    const sinks = watch?.sinks.get(topic)
    if (watch === undefined || sinks === undefined) return
    sinks.delete(sink)
    if (sinks.size > 0) return
    watch.sinks.delete(topic)
    if (watch.sinks.size > 0) return
    // Nobody left: commands of this workspace stop paying for change detection.
    this.#watches.delete(workspaceId)
    this.#runtime.actor(workspaceId).observer = null
  }
}

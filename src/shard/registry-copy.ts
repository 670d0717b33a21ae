/**
 * @module A shard thread's read-only copy of the registry's system state (workspaces, keys), so an edge on that
 * thread authenticates a key exactly as the main thread does. It starts from the registry's state as the thread
 * starts (a structured clone: keys and keysByHash keep sharing their records) and then applies, with the same
 * pure executeSystem and in the registry's order, each system command the registry accepted once it is durable.
 * Nothing of it is logged: the thread's own LocalNode logs the system commands of its workspaces only, and the
 * registry's log is the one record of these.
 */

import { executeSystem, type SystemCommand, type SystemState } from '../ledger/system.js'

export class RegistryCopy {
  readonly #state: SystemState
  readonly #warn: (line: string) => void
  /** Told of each command applied (an edge closes the sockets of a revoked key). */
  readonly #observers: ((command: SystemCommand) => void)[] = []

  constructor(state: SystemState, warn: (line: string) => void) {
    this.#state = state
    this.#warn = warn
  }

  /** The copy, to read only (authentication, a workspace's record). */
  get system(): SystemState {
    return this.#state
  }

  onApplied(observer: (command: SystemCommand) => void): void {
    this.#observers.push(observer)
  }

  /** A command the registry accepted; accepted here too, since it applies to the same state in the same order. */
  apply(command: SystemCommand): void {
    const outcome = executeSystem(this.#state, command)
    // A refusal here means the copy no longer matches the registry: said, never silent.
    if (!outcome.ok) return this.#warn(`trueup: the registry copy of this shard refused ${command.type} (${outcome.message}); it differs from the registry`)
    for (const observer of this.#observers) observer(command)
  }
}

/** @module Crash loop: what the clients were told (acknowledged), what they could not know (in flight at the kill), what was refused. */

/** One HTTP exchange as a client saw it. */
export interface Exchange {
  readonly status: number
  readonly text: string
  readonly body: any
  readonly replayed: boolean
}

/** A keyed request that was answered 2xx: a retry with the same key and body must replay exactly this. */
export interface KeyedRequest {
  readonly workspace: string
  readonly method: string
  readonly path: string
  readonly body: unknown
  readonly idempotencyKey: string
  readonly status: number
  readonly text: string
  readonly round: number
}

export interface WindowFacts {
  readonly id: string
  readonly workspace: string
  readonly label: string
  readonly account: string
  readonly from: string
  readonly to: string
  /** Statement lines acknowledged: id → amount and date. */
  readonly lines: Map<string, { amount: number; date: string }>
  /** Acknowledged terminal transition, with the frozen figures its 200 carried. */
  terminal: { state: 'closed' | 'abandoned'; derived: number; residual: number } | null
}

export interface MatchFacts {
  readonly id: string
  readonly workspace: string
  readonly window: string
  readonly matchedAmount: number
  /** An unmatch (DELETE) of it was acknowledged. */
  reversed: boolean
}

/** Cumulative over every round: only grows. The audit after each restart checks the server against it. */
export class Ledger {
  /** Entries acknowledged (201): id → the 201's body text. */
  readonly entries = new Map<string, { workspace: string; description: string; text: string }>()
  /** Every entry description ever sent, acknowledged or not (an entry the server has must be one of them). */
  readonly attemptedDescriptions = new Set<string>()
  /** Entries answered 4xx: must never appear. */
  readonly refusedDescriptions = new Set<string>()
  /** Entry ids seen in a 200 read: a read is answered only after what it shows is durable, so they must survive. */
  readonly readEntries = new Map<string, string>()
  readonly windows = new Map<string, WindowFacts>()
  readonly attemptedLabels = new Set<string>()
  readonly refusedLabels = new Set<string>()
  readonly matches = new Map<string, MatchFacts>()
  readonly keyed: KeyedRequest[] = []
  /** `<workspace> <Idempotency-Key>` of every entry of `keyed`. */
  readonly keyedKeys = new Set<string>()
  /** Writes acknowledged (2xx, replays not counted), per kind. */
  readonly acknowledgedByKind = new Map<string, number>()
  /** Anything a client saw before the kill that the workload does not expect (a 5xx, a wrong 4xx). */
  readonly unexpected: string[] = []
  replaysChecked = 0

  acknowledge(kind: string): void {
    this.acknowledgedByKind.set(kind, (this.acknowledgedByKind.get(kind) ?? 0) + 1)
  }

  get writesAcknowledged(): number {
    let total = 0
    for (const count of this.acknowledgedByKind.values()) total += count
    return total
  }

  noteUnexpected(message: string): void {
    if (this.unexpected.length < 200) this.unexpected.push(message)
  }
}

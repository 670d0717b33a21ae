/** @module The data model of reconciliation windows, statement lines, matches and their audit history. */

export type WindowStateName = 'open' | 'balanced' | 'closed' | 'abandoned'

export interface Counterparty {
  readonly name: string | null
  readonly account: string | null
}

export interface StatementLine {
  /** l1, l2, … per window, in the order they were added. */
  readonly id: string
  readonly number: number
  readonly amount: number
  readonly date: string
  readonly valueDate: string | null
  readonly reference: string | null
  readonly description: string | null
  readonly counterparty: Counterparty | null
  /** Booked outside the window's period (a statement file's back-valued or late booking): kept and counted (docs/API.md, Bank statement formats). */
  readonly outsidePeriod: boolean
  /** Seq of the active match holding this line, 0 when unmatched. */
  matchSeq: number
  /** Who works on it and what they noted (docs/API.md, Exceptions); null when not set. Kept out of the seal: they change while a window is open. */
  assignee: string | null
  note: string | null
}

export interface Match {
  readonly id: string
  readonly seq: number
  readonly windowSeq: number
  readonly strategy: 'amount_and_date' | 'manual' | 'write_off'
  /** Statement line numbers (l<n>). */
  readonly lineNumbers: readonly number[]
  readonly entrySeqs: readonly number[]
  readonly matchedAmount: number
  readonly reason: string | null
  readonly createdAtMs: number
  readonly createdBy: string
  /** The window's residual and state right after this match was created (docs/API.md, Reconciliation windows): what the match list shows. */
  readonly residualAfterCreate: number
  readonly stateAfterCreate: WindowStateName
  reversedAtMs: number | null
  reversedBy: string | null
  /** A write-off with an adjustment (match-adjustment.ts): the seq of the entry it posted; absent on every other match. */
  readonly adjustmentEntrySeq?: number
}

export interface HistoryEvent {
  readonly type: string
  readonly atMs: number
  readonly keyId: string
  readonly state: WindowStateName
  readonly residual: number
  readonly detail: Readonly<Record<string, unknown>>
}

export interface ReconciliationWindow {
  readonly id: string
  readonly seq: number
  readonly label: string
  readonly accountSeqs: readonly number[]
  readonly from: string
  readonly to: string
  readonly timeZone: string
  /** from at 00:00 in timeZone. */
  readonly startMs: number
  /** The day after to, at 00:00 in timeZone (exclusive). */
  readonly endMs: number
  readonly claimedMovement: number
  /** The statement's balances (docs/API.md, Reconciliation windows, "Balances"); null when not given (and in windows opened before they existed). */
  readonly openingBalance: number | null
  readonly closingBalance: number | null
  readonly tolerance: number
  readonly statementRef: string | null
  /** For a window a statement file opened: its content's hash, so the same statement imported again is known (docs/API.md, Bank statement formats); else null. */
  readonly statementFingerprint: string | null
  readonly openedAtMs: number
  readonly openedBy: string
  state: WindowStateName
  readonly lines: StatementLine[]
  readonly matchSeqs: number[]
  /** Σ matched_amount of active matches. */
  matchedTotal: number
  activeMatchCount: number
  activeWriteOffCount: number
  unmatchedLineCount: number
  /** entry seq → seq of the active match that holds it. */
  readonly matchedEntries: Map<number, number>
  /** Set at close or abandon: the figures as they stood, never recomputed after. */
  frozenDerived: number | null
  frozenResidual: number | null
  /** The books' balances at the period's edges, set at close or abandon like frozenDerived (window-balances.ts). */
  frozenBook: { readonly opening: number | null; readonly closing: number | null } | null
  /** The books' balance at the period's start when the window was opened: what a statement imported again answers (statement-import.ts). */
  readonly bookOpeningAtOpen: number | null
  /** The seq of its previous window when it was opened (0: none; null: not known, restored from an older snapshot): what a statement imported again answers. */
  readonly previousSeqAtOpen: number | null
  closedAtMs: number | null
  closedBy: string | null
  /** The closing key's name when it closed (its window.transition record); null: no name, or closed before names were recorded. */
  closedByName: string | null
  closeReason: string | null
  abandonedAtMs: number | null
  abandonReason: string | null
  readonly history: HistoryEvent[]
  /** Set at close: the lowercase hex SHA-256 of the canonical frozen content (seal.ts); null before and for abandoned windows. */
  seal: string | null
  /** The workspace key's Ed25519 signature of the seal, base64: at close, or on upgrade (seal.key); null while the workspace has no key. */
  sealSignature: string | null
  /** Entries posted into the period after the close (they change no frozen figure): counted as they land. */
  postCloseEntryCount: number
  /** Closed with lock_period (docs/API.md, Period locks): no posting into its period on its accounts. */
  periodLocked: boolean
}

export interface WindowsState {
  /** windows[seq - 1]; seqs are dense from 1. */
  readonly windows: ReconciliationWindow[]
  /** matches[seq - 1], across all windows of the workspace. */
  readonly matches: Match[]
  /**
   * account seq → seqs of its non-terminal windows in order of period start (they never overlap), so a
   * posting finds its window by binary search (live-windows.ts).
   */
  readonly liveWindowsByAccount: Map<number, number[]>
  /**
   * account seq → its closed windows (closed-windows.ts), so a posting into a closed period is noticed
   * (post_close_entries, reconciliation.drifted). Closed windows may overlap (a period reopened), so
   * this is not the live index.
   */
  readonly closedWindowsByAccount: Map<number, ClosedWindows>
  /** account seq → seqs of every window covering it, any state, in creation order (window-continuity.ts): continuity and the reconciliation status. */
  readonly windowsByAccount: Map<number, number[]>
  /** account seq → the periods of its closed windows as disjoint spans (period-locks.ts): the post-close warning, and the lock when the workspace locks closed periods. */
  readonly closedSpansByAccount: Map<number, LockSpans>
  /** account seq → the periods of its windows closed with lock_period, as disjoint spans. */
  readonly lockedSpansByAccount: Map<number, LockSpans>
}

/** Disjoint periods [starts[i], ends[i]) in order of start, windowSeqs[i] the window that covered each first (period-locks.ts). */
export interface LockSpans {
  readonly starts: number[]
  readonly ends: number[]
  readonly windowSeqs: number[]
}

/** One account's closed windows by period start, and the latest end among them (a posting at or after it meets none). */
export interface ClosedWindows {
  readonly seqs: number[]
  endMsMax: number
}

export function createWindowsState(): WindowsState {
  return { windows: [], matches: [], liveWindowsByAccount: new Map(), closedWindowsByAccount: new Map(), windowsByAccount: new Map(), closedSpansByAccount: new Map(), lockedSpansByAccount: new Map() }
}

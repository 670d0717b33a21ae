/**
 * @module Restore: a workspace's (and the system's) state from its primary facts, the form a snapshot
 * stores, with every index rebuilt by the code the live path uses (balances.ts for the balance trees and
 * the entry order, windows-state.ts for the live-window index, idempotency.ts for the expiry queue), so
 * that restored state cannot drift from live state.
 */

import assert from 'node:assert/strict'
import { buildBalanceIndexes } from './balances.js'
import { storeIdempotency } from './idempotency.js'
import { addClosedWindow } from './closed-windows.js'
import { sealOf } from './seal.js'
import { createWorkspaceState, EntryStore, type Account, type Entry, type IdempotencyRecord, type SealHasher, type SealKeyPair, type SealSigner, type WorkspaceState } from './state.js'
import { currencyDefault, settingsDefault, type KeyRecord, type SystemState, type WorkspaceRecord } from './system.js'
import { isTerminal } from './window-effects.js'
import type { MatchingRule } from './matching-rules-state.js'
import type { Approval } from './approvals-state.js'
import type { WebhookSubscription } from './webhooks-state.js'
import { addLiveWindow } from './live-windows.js'
import { addAccountWindows } from './window-continuity.js'
import { linkReversal } from './entry-reversal.js'
import { fillMatchFigures } from './matches.js'
import type { Match, ReconciliationWindow, StatementLine } from './windows-state.js'

/** An account without its balance index, which is derived. */
export interface AccountFacts {
  readonly id: string
  readonly seq: number
  readonly name: string
  readonly tags: readonly string[]
  readonly createdAtMs: number
  /** Absent in snapshots written before currencies existed: currencyDefault then. */
  readonly currency?: string
  /** Absent in snapshots written before external ids existed: none then. */
  readonly externalId?: string | null
}

/** A window with its matched entries as pairs (entry seq, match seq) instead of a Map; fields added later are optional. */
export type WindowFacts = Omit<ReconciliationWindow, 'matchedEntries' | 'statementFingerprint' | 'lines' | 'periodLocked'> & {
  /** Absent in snapshots written before period locks: unlocked. */
  readonly periodLocked?: boolean
  readonly matchedEntries: [number, number][]
  /** Absent in snapshots written before statement imports: not imported. */
  readonly statementFingerprint?: string | null
  readonly lines: readonly LineFacts[]
}

/** A statement line; snapshots written before statement files lack the fields they brought, those before line annotations their assignee and note. */
export type LineFacts = Omit<StatementLine, 'valueDate' | 'counterparty' | 'outsidePeriod' | 'assignee' | 'note'> & Partial<Pick<StatementLine, 'valueDate' | 'counterparty' | 'outsidePeriod' | 'assignee' | 'note'>>

/** The same fields in the same order as windows.ts makes them: one object shape for every line. */
function restoredLine(line: LineFacts): StatementLine {
  const { id, number, amount, date, reference, description, matchSeq } = line
  return {
    id, number, amount, date, valueDate: line.valueDate ?? null, reference, description, counterparty: line.counterparty ?? null, outsidePeriod: line.outsidePeriod ?? false, matchSeq,
    assignee: line.assignee ?? null, note: line.note ?? null,
  }
}

/** What a workspace is, without what is derived from it: the balance trees, the entry order, the live-window index. */
export interface WorkspaceFacts {
  readonly workspaceId: string
  readonly tag: string
  /** In seq order, dense from 1. */
  readonly accounts: readonly AccountFacts[]
  /** In seq order, dense from 1; taken over by the restored state, not copied. */
  readonly entries: Entry[]
  /** The records not yet expired, oldest first. */
  readonly idempotency: readonly IdempotencyRecord[]
  readonly windows: readonly WindowFacts[]
  readonly matches: readonly Match[]
  /** Absent in snapshots written before webhooks existed: no subscriptions then. */
  readonly webhooks?: { readonly lastSeq: number; readonly subscriptions: readonly WebhookSubscription[] }
  /** Absent in snapshots written before matching rules existed: no rules then. */
  readonly matchingRules?: { readonly lastSeq: number; readonly rules: readonly MatchingRule[] }
  /** In creation order; absent in snapshots written before approvals existed, and when there are none. */
  readonly approvals?: readonly Approval[]
  /** Absent in snapshots written before seal keys existed: none then. */
  readonly sealKey?: SealKeyPair | null
  /** Pairs (entry seq, seq of the entry that reversed it); absent in snapshots written before reversals, and when there are none. */
  readonly reversals?: readonly (readonly [number, number])[]
}

/** The facts of a state as it stands; they share its objects, so they are encoded before the state moves on. */
export function factsOf(state: WorkspaceState): WorkspaceFacts {
  const idempotency: IdempotencyRecord[] = []
  for (let i = state.idempotencyOrderHead; i < state.idempotencyOrder.length; i++) {
    const record = state.idempotency.get(state.idempotencyOrder[i])
    if (record !== undefined && record.key === state.idempotencyOrder[i]) idempotency.push(record)
  }
  return {
    workspaceId: state.workspaceId,
    tag: state.tag,
    accounts: state.accounts.map(({ id, seq, name, tags, createdAtMs, currency, externalId }) => ({ id, seq, name, tags, createdAtMs, currency, externalId })),
    entries: state.entries,
    idempotency,
    windows: state.windows.windows.map((window) => ({ ...window, matchedEntries: [...window.matchedEntries] })),
    matches: state.windows.matches,
    webhooks: { lastSeq: state.webhooks.lastSeq, subscriptions: [...state.webhooks.subscriptions.values()] },
    sealKey: state.sealKey,
    ...(state.reversedBy.size === 0 ? {} : { reversals: [...state.reversedBy] }),
    ...(state.matchingRules.lastSeq === 0 ? {} : { matchingRules: { lastSeq: state.matchingRules.lastSeq, rules: [...state.matchingRules.rules.values()] } }),
    ...(state.approvals.approvals.length === 0 ? {} : { approvals: state.approvals.approvals }),
  }
}

/**
 * The store the restored state appends to: the one every entry is in (a snapshot's reader puts them in
 * one), taken over as the entries are. Sharing a store with another state is harmless: it is append-only
 * and each entry reads its own place.
 */
function entryStoreOf(entries: readonly Entry[], tag: string): EntryStore {
  if (entries.length === 0) return new EntryStore(tag)
  const store = entries[0].store
  assert.ok(store.tag === tag && entries.every((entry) => entry.store === store), 'the entries are in one store, of this workspace')
  return store
}

/** The state these facts stand for, indexes included: what applying the commands that made them left behind. */
export function restoreWorkspace(facts: WorkspaceFacts, sealHasher: SealHasher | null = null, sealSigner: SealSigner | null = null): WorkspaceState {
  const empty = createWorkspaceState(facts.workspaceId, facts.tag, sealHasher, sealSigner, facts.sealKey ?? null)
  const indexes = buildBalanceIndexes(facts.entries, facts.accounts.length, empty.treeArena)
  const state: WorkspaceState = { ...empty, entries: facts.entries, entryStore: entryStoreOf(facts.entries, facts.tag), entryOrder: indexes.entryOrder }
  for (const { id, seq, name, tags, createdAtMs, currency, externalId } of facts.accounts) {
    assert.equal(seq, state.accounts.length + 1, 'account seqs are dense from 1')
    // The same fields in the same order as createAccount makes them: one object shape for every account.
    const account: Account = { id, seq, name, tags: [...tags], createdAtMs, currency: currency ?? currencyDefault, externalId: externalId ?? null, index: indexes.balances[seq] }
    state.accounts.push(account)
    state.accountsByName.set(account.name, account)
    if (account.externalId !== null) state.accountsByExternalId.set(account.externalId, account)
  }
  for (const record of facts.idempotency) storeIdempotency(state, record)
  for (const stored of facts.windows) {
    // Snapshots written before the sealed close lack seal and postCloseEntryCount: filled below; before signed seals, the signature.
    // Those written before the window balances lack them: no statement balances; book balances live (docs/API.md, "Balances").
    const legacy = stored as Partial<Pick<ReconciliationWindow, 'seal' | 'postCloseEntryCount' | 'sealSignature' | 'closedByName' | 'openingBalance' | 'closingBalance' | 'frozenBook' | 'bookOpeningAtOpen' | 'previousSeqAtOpen'>>
    const window: ReconciliationWindow = {
      ...stored, statementFingerprint: stored.statementFingerprint ?? null, lines: stored.lines.map(restoredLine), matchedEntries: new Map(stored.matchedEntries),
      seal: legacy.seal ?? null, sealSignature: legacy.sealSignature ?? null, closedByName: legacy.closedByName ?? null, postCloseEntryCount: legacy.postCloseEntryCount ?? -1,
      openingBalance: legacy.openingBalance ?? null, closingBalance: legacy.closingBalance ?? null, frozenBook: legacy.frozenBook ?? null, bookOpeningAtOpen: legacy.bookOpeningAtOpen ?? null,
      previousSeqAtOpen: legacy.previousSeqAtOpen ?? null, periodLocked: stored.periodLocked ?? false,
    }
    assert.equal(window.seq, state.windows.windows.length + 1, 'window seqs are dense from 1')
    state.windows.windows.push(window)
    if (!isTerminal(window.state)) addLiveWindow(state.windows, window)
    if (window.state === 'closed') addClosedWindow(state.windows, window)
    addAccountWindows(state.windows, window)
  }
  for (const match of facts.matches) state.windows.matches.push(match)
  // Snapshots written before matches kept their figures after creation get them from the window history.
  fillMatchFigures(state.windows)
  fillSeals(state)
  for (const [original, reversal] of facts.reversals ?? []) linkReversal(state, original, reversal)
  if (facts.webhooks !== undefined) {
    state.webhooks.lastSeq = facts.webhooks.lastSeq
    for (const subscription of facts.webhooks.subscriptions) state.webhooks.subscriptions.set(subscription.id, subscription)
  }
  if (facts.matchingRules !== undefined) {
    state.matchingRules.lastSeq = facts.matchingRules.lastSeq
    for (const rule of facts.matchingRules.rules) state.matchingRules.rules.set(rule.id, rule)
  }
  for (const approval of facts.approvals ?? []) state.approvals.approvals.push(approval)
  return state
}

/**
 * Windows closed before the sealed close existed: sealed now from their frozen facts (the same function
 * a close runs), and their post-close entries counted by posting time, the only trace such a snapshot keeps.
 */
function fillSeals(state: WorkspaceState): void {
  for (const window of state.windows.windows) {
    if (window.state === 'closed' && window.seal === null) window.seal = sealOf(state, window)
    if (window.postCloseEntryCount >= 0) continue
    window.postCloseEntryCount = 0
    if (window.state !== 'closed') continue
    const accountSeqs = new Set(window.accountSeqs)
    for (const entry of state.entries) {
      if (entry.postedAtMs <= window.closedAtMs! || entry.effectiveAtMs < window.startMs || entry.effectiveAtMs >= window.endMs) continue
      if (entry.lines.some((line) => accountSeqs.has(line.accountSeq))) window.postCloseEntryCount++
    }
  }
}

/** What the system is: its workspaces and API keys; the tag set and the key-by-hash index are derived. */
export interface SystemFacts {
  readonly workspaces: readonly WorkspaceRecord[]
  readonly keys: readonly KeyRecord[]
}

/** Fills an empty system state from its facts, the indexes as executeSystem keeps them. */
export function restoreSystem(system: SystemState, facts: SystemFacts): void {
  assert.equal(system.workspaces.size, 0)
  for (const workspace of facts.workspaces) {
    // Snapshots written before limitsChangedAtMs existed lack it; only a live change reads it, and that sets it.
    // Snapshots written before currencies existed lack the workspace's: it was the default then.
    const stored = workspace as Partial<WorkspaceRecord>
    // Snapshots written before seal keys existed lack the key: the upgrade gives one (runtime.ts). Those written
    // before settings existed lack them: the defaults, which every workspace had then.
    system.workspaces.set(workspace.id, {
      ...workspace, limitsChangedAtMs: stored.limitsChangedAtMs ?? workspace.createdAtMs, currency: stored.currency ?? currencyDefault, settings: { ...settingsDefault, ...stored.settings },
      sealKey: stored.sealKey ?? null, sealKeyAtCreation: stored.sealKeyAtCreation ?? false,
    })
    system.tags.add(workspace.tag)
  }
  for (const stored of facts.keys) {
    const key: KeyRecord = { ...stored }
    system.keys.set(key.id, key)
    if (key.revokedAtMs === null) system.keysByHash.set(key.secretHash, key)
  }
}

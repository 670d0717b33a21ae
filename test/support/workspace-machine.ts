/**
 * @module Test support: drive one workspace's pure state machine (executeWorkspace) the way the actor does,
 * with a settable clock and visibility, and assert that a rejected command leaves the state byte-for-byte as it was.
 */

import type { Test } from 'tap'
import type { ErrorCode } from '../../src/errors.ts'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import type { Outcome } from '../../src/ledger/outcome.ts'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.ts'
import type { Visibility } from '../../src/ledger/visibility.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'
import { stableSerialize } from './state-fingerprint.ts'

export type CommandBody = WorkspaceCommand extends infer C ? (C extends WorkspaceCommand ? Omit<C, 'at_ms' | 'key_id' | 'visibility'> : never) : never

export interface Machine {
  readonly state: WorkspaceState
  visibility: Visibility
  atMs: number
}

export function machine(accounts: readonly string[], atMs: number, tag = 'abcdef'): Machine {
  const ctx: Machine = { state: createWorkspaceState('ws', tag), visibility: null, atMs }
  for (const name of accounts) ok(run(ctx, { type: 'account.create', name, tags: [] }))
  return ctx
}

export function run(ctx: Machine, command: CommandBody): Outcome {
  return executeWorkspace(ctx.state, { at_ms: ctx.atMs, key_id: 'key_test', visibility: ctx.visibility, ...command } as WorkspaceCommand)
}

export function ok(outcome: Outcome): any {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.code}: ${outcome.message}`)
  return outcome.body
}

/** Runs a command that must be refused with this code, and checks that it changed nothing; returns the rejection. */
export function refused(t: Test, ctx: Machine, command: CommandBody, code: ErrorCode, why: string): Outcome & { ok: false } {
  const before = stableSerialize(ctx.state)
  const outcome = run(ctx, command)
  t.equal(outcome.ok ? `accepted ${outcome.status}` : outcome.code, code, why)
  t.equal(stableSerialize(ctx.state), before, `${why}: the state is unchanged`)
  if (outcome.ok) throw new Error(`${why}: accepted`)
  return outcome
}

export function posting(lines: readonly [string, number][], effectiveAt: string | null = null): CommandBody {
  return {
    type: 'entry.post', lines: lines.map(([account, amount]) => ({ account, amount })),
    effective_at_ms: effectiveAt === null ? null : Date.parse(effectiveAt), description: null, metadata: null,
  }
}

/** @module An entry body's own shape rules and the fields entry.post logs: one definition for POST /v2/entries and each batch item. */

import type { Static } from 'typebox'
import { reject, type Rejection } from '../../errors.js'
import { parseTimestampMs } from '../../ledger/calendar.js'
import type { ApprovalSettings, EntryBatchItem } from '../../ledger/commands.js'
import { zeroAmountRejection } from '../../ledger/money.js'
import type { WorkspaceRecord } from '../../ledger/system.js'
import type { entryPost } from '../schemas/ledger.js'

/**
 * The rules of an entry body's own shape, then the fields entry.post logs. Shared by POST /v2/entries
 * and each item of a batch (routes/entry-batch.ts), so both refuse the same bodies the same way.
 */
export function entryFieldsOf(body: Static<typeof entryPost>): EntryBatchItem | Rejection {
  const zero = zeroAmountRejection(body.lines, 'Entry line')
  if (zero !== null) return zero
  let effectiveAtMs: number | null = null
  if (body.effective_at !== undefined) {
    effectiveAtMs = parseTimestampMs(body.effective_at)
    if (effectiveAtMs === null) return reject('request_invalid', 'effective_at must be an RFC 3339 timestamp.', [{ path: '/effective_at', message: 'must be an RFC 3339 timestamp' }])
  }
  return {
    lines: body.lines.map(({ account, amount }) => ({ account, amount })),
    effective_at_ms: effectiveAtMs, description: body.description ?? null,
    // The schema bounds metadata keys through propertyNames, which Static renders as object: the values are strings.
    metadata: (body.metadata ?? null) as Readonly<Record<string, string>> | null,
  }
}


/**
 * A close or write-off as the workspace's settings have it: with `approvals` when any action waits for approval
 * (docs/API.md, Approvals), so the ledger and its replay decide alike; else the command as it was.
 */
export function withApprovals<C extends object>(command: C, workspace: WorkspaceRecord): C | (C & { readonly approvals: ApprovalSettings }) {
  const { approvals } = workspace.settings
  return approvals.close_with_residual || approvals.write_off_over !== null ? { ...command, approvals } : command
}

/**
 * A posting command as the workspace's settings have it: with `lock_closed` when the workspace locks every closed
 * period (docs/API.md, Period locks), so the ledger and its replay decide alike; else the command as it was.
 */
export function withLockClosed<C extends object>(command: C, workspace: WorkspaceRecord): C | (C & { readonly lock_closed: true }) {
  return workspace.settings.lock_closed_periods ? { ...command, lock_closed: true } : command
}

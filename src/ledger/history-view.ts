/** @module A window history event as every reader sees it: the history route, the export and the seal. */

import { formatTimestamp } from './calendar.js'
import type { HistoryEvent } from './windows-state.js'

export function historyView(event: HistoryEvent): object {
  return { type: event.type, at: formatTimestamp(event.atMs), key_id: event.keyId, state: event.state, residual: event.residual, ...event.detail }
}

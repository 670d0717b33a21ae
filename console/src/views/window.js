// One window: its figures, lines and entries with manual matching and write-off, proposals, matches,
// close and abandon, history, exports. Live through /v2/stream: every update of the window re-reads it;
// without the socket, the window is re-read after each action the console makes and on Refresh.

import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { html } from '../html.js'
import { api, enc, listAll } from '../api.js'
import { formatDate, formatTimestamp } from '../format.js'
import { watchWindow } from '../live.js'
import { Alert, Amount, Id, StateBadge, Status, attempt, awaitingApproval } from '../ui.js'
import { MatchWorkbench } from './window-workbench.js'
import { History, Matches } from './window-matches.js'
import { Exports, Proposals } from './window-extras.js'
import { Transitions } from './window-transitions.js'
import { Balances } from './window-balances.js'

async function loadWindow(id) {
  const [window, lines, entries, matches, history] = await Promise.all([
    api('GET', `/v2/reconciliations/${enc(id)}`),
    listAll(`/v2/reconciliations/${enc(id)}/lines`),
    listAll(`/v2/entries?reconciliation=${enc(id)}`),
    listAll(`/v2/reconciliations/${enc(id)}/matches`),
    listAll(`/v2/reconciliations/${enc(id)}/history`),
  ])
  return { window, lines, entries, matches, history }
}

function Figures({ window }) {
  const currency = window.currency
  // What the matches clear (Σ matched_amount: differences and write-offs), not a total of matched lines.
  const cleared = window.claimed_movement - window.derived_movement - window.residual
  const figure = (label, minor, strong) => html`<div class="figure"><dt>${label}</dt><dd><${Amount} minor=${minor} currency=${currency} strong=${strong} /></dd></div>`
  return html`<dl class="figures" aria-label="Window figures">
    ${figure('Claimed (statement)', window.claimed_movement)}
    ${figure('Derived (ledger)', window.derived_movement)}
    ${figure('Cleared by matches', cleared)}
    ${figure('Residual', window.residual, true)}
    <div class="figure"><dt>State</dt><dd><${StateBadge} state=${window.state} window=${window} /></dd></div>
  </dl>`
}

function Summary({ window, zone }) {
  return html`<p class="meta">
    ${window.accounts.join(', ')} · ${formatDate(window.window.from)} – ${formatDate(window.window.to)} · ${window.lines_count} lines, ${window.unmatched_lines_count} unmatched · ${window.matched_count} active matches ·
    tolerance <${Amount} minor=${window.tolerance} currency=${window.currency} /> · opened ${formatTimestamp(window.opened_at, zone)}
    ${window.closed_at ? html` · closed ${formatTimestamp(window.closed_at, zone)} by ${window.closed_by}${window.close_reason ? ` (${window.close_reason})` : ''}` : ''}
    ${window.abandoned_at ? html` · abandoned ${formatTimestamp(window.abandoned_at, zone)}: ${window.abandon_reason}` : ''}
    ${window.seal ? html` · seal <code>${window.seal.sha256}</code>` : ''}
    ${typeof window.post_close_drift === 'number' && window.post_close_drift !== 0 ? html` · <strong>drift since the close <${Amount} minor=${window.post_close_drift} currency=${window.currency} /></strong> (${window.post_close_entries} entries posted into the period since)` : ''}
  </p>`
}

/** Closed with lock_period: the close's history event says so (docs/API.md, Period locks). */
function PeriodLock({ window, history }) {
  const locked = window.state === 'closed' && history.some((event) => event.type === 'closed' && event.lock_period === true)
  if (!locked) return null
  return html`<p class="period-lock"><strong>Period locked</strong>: the close locked ${formatDate(window.window.from)} – ${formatDate(window.window.to)} on ${window.accounts.join(', ')}; nothing can be posted into it.</p>`
}

function LiveIndicator({ live, onRefresh }) {
  const text = { connecting: 'Connecting to live updates…', live: 'Live', unavailable: 'Not live: figures are re-read after your actions' }[live]
  return html`<div class="live"><span class=${`live-${live}`} role="status" aria-live="polite">${text}</span>
    <button type="button" class="secondary" onClick=${onRefresh}>Refresh</button></div>`
}

export function WindowPage({ windowId, zone: workspaceZone }) {
  const [data, setData] = useState(null)
  const [error, setError] = useState(null)
  const [status, setStatus] = useState(null)
  const [live, setLive] = useState('connecting')
  // Reads can overlap (a live update during an action's re-read): only the latest one started is shown.
  const latestRead = useRef(0)
  const refresh = useCallback(async () => {
    const read = ++latestRead.current
    const loaded = await attempt(setError, () => loadWindow(windowId))
    if (loaded && read === latestRead.current) setData(loaded)
  }, [windowId])
  useEffect(() => { refresh() }, [refresh])
  useEffect(() => watchWindow(windowId, { onStatus: setLive, onWindow: () => refresh() }), [windowId, refresh])
  /** Every write goes through here: the API's message on failure, a re-read of the window on success. */
  const act = async (description, call) => {
    setStatus(null)
    const result = await attempt(setError, call)
    if (result !== undefined) {
      // The window is re-read first, so the message appears with the figures it speaks of.
      await refresh()
      // 202 with a pending approval: nothing changed yet (docs/API.md, Approvals).
      setStatus(awaitingApproval(result) ?? description(result))
    }
    return result
  }
  if (data === null) return html`<section><h1 tabindex="-1">Window ${windowId}</h1><${Alert} message=${error} />${error ? '' : html`<p>Loading…</p>`}</section>`
  const { window } = data
  const zone = window.timezone ?? workspaceZone
  const writable = window.state === 'open' || window.state === 'balanced'
  const shared = { window, data, act, zone, writable }
  return html`<section class="window-page">
    <p><a href="#/windows">← All windows</a></p>
    <h1 tabindex="-1">${window.label || window.id}</h1>
    ${window.label ? html`<p class="muted window-id">Window <${Id} id=${window.id} /></p>` : ''}
    <${LiveIndicator} live=${live} onRefresh=${refresh} />
    <${Figures} window=${window} />
    <${Summary} window=${window} zone=${zone} />
    <${PeriodLock} window=${window} history=${data.history} />
    <${Balances} window=${window} />
    <${Alert} message=${error} /><${Status} message=${status} />
    ${writable && html`<${Proposals} ...${shared} />`}
    <${MatchWorkbench} ...${shared} />
    <${Matches} ...${shared} />
    ${writable && html`<${Transitions} ...${shared} />`}
    <${History} ...${shared} />
    <${Exports} window=${window} />
  </section>`
}

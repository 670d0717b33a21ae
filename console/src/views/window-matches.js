// The window's matches (active and reversed, write-offs with their reasons) and its audit trail.

import { html } from '../html.js'
import { api, enc } from '../api.js'
import { formatAmount, formatTimestamp } from '../format.js'
import { Amount, Empty, Id, StateBadge } from '../ui.js'

export function Matches({ window, data, act, zone, writable }) {
  const unmatch = (match) => act((answer) => `Reversed ${match.id}; residual now ${formatAmount(answer.residual, window.currency)}.`,
    () => api('DELETE', `/v2/reconciliations/${enc(window.id)}/matches/${enc(match.id)}`))
  return html`<section aria-labelledby="matches-heading">
    <h2 id="matches-heading">Matches</h2>
    ${data.matches.length === 0 ? html`<${Empty}>No match yet: pick lines and entries above.<//>` : html`<table class="list">
      <caption class="visually-hidden">Matches</caption>
      <thead><tr><th scope="col">Match</th><th scope="col">Strategy</th><th scope="col">Lines</th><th scope="col">Entries</th><th scope="col" class="num">Cleared by match</th><th scope="col">Reason</th><th scope="col">Created</th><th scope="col">Status</th></tr></thead>
      <tbody>${data.matches.map((match) => html`<tr class=${match.reversed_at ? 'reversed' : ''}>
        <th scope="row"><${Id} id=${match.id} /></th><td>${match.strategy.replaceAll('_', ' ')}</td><td>${match.statement_lines.join(', ')}</td><td>${match.entries.length === 0 ? '—' : match.entries.map((id) => html`<${Id} id=${id} /> `)}${match.adjustment_entry ? html` <span class="meta">(adjusting entry <${Id} id=${match.adjustment_entry} />)</span>` : ''}</td>
        <td class="num"><${Amount} minor=${match.matched_amount} currency=${window.currency} /></td><td>${match.reason ?? ''}</td><td>${formatTimestamp(match.created_at, zone)}</td>
        <td>${match.reversed_at ? `reversed ${formatTimestamp(match.reversed_at, zone)}` : writable
          ? html`<button type="button" class="secondary" aria-label=${`Unmatch ${match.id}`} onClick=${() => unmatch(match)}>Unmatch</button>` : 'active'}</td>
      </tr>`)}</tbody></table>`}
  </section>`
}

const commonFields = new Set(['type', 'at', 'key_id', 'state', 'residual'])
const amountFields = /(^amount|_amount|_movement|_drift)$/

/** How an event's field is named for a finance reader: a match's matched_amount is what it cleared. */
const fieldLabels = { matched_amount: 'cleared by match' }

function detailValue(name, value, currency) {
  if (typeof value === 'number' && amountFields.test(name)) return formatAmount(value, currency)
  if (Array.isArray(value)) return value.join(', ')
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

/** The event's own fields, and for a match event the reason the match carries (a write-off's, say). */
function detailsOf(event, window, reasons) {
  const parts = Object.entries(event).filter(([name, value]) => !commonFields.has(name) && value !== null && value !== undefined)
    .map(([name, value]) => `${fieldLabels[name] ?? name.replaceAll('_', ' ')}: ${detailValue(name, value, window.currency)}`)
  if (event.type === 'matched' && reasons.has(event.match)) parts.push(`reason: ${reasons.get(event.match)}`)
  return parts.join(' · ')
}

export function History({ window, data, zone }) {
  const reasons = new Map(data.matches.filter((match) => match.reason).map((match) => [match.id, match.reason]))
  return html`<section aria-labelledby="history-heading">
    <h2 id="history-heading">History</h2>
    ${data.history.length === 0 ? html`<${Empty}>No event yet.<//>` : html`<ol class="history">
      ${data.history.map((event) => html`<li>
        <time datetime=${event.at}>${formatTimestamp(event.at, zone)}</time> <strong>${event.type.replaceAll('_', ' ')}</strong>${' '}by ${event.key_id} → <${StateBadge} state=${event.state} />, residual <${Amount} minor=${event.residual} currency=${window.currency} />
        <div class="details">${detailsOf(event, window, reasons)}</div>
      </li>`)}
    </ol>`}
  </section>`
}

// The window's balances: the bank's (the statement's) beside the books' at the period's start and end, the
// difference flagged when it is not zero, and how the window follows the previous one (docs/API.md,
// Reconciliation windows, Balances and Continuity).

import { html } from '../html.js'
import { formatAmount, formatDate } from '../format.js'
import { Amount, Id } from '../ui.js'

/** A difference: "—" when the statement gave no balance, "Agrees" at zero, else flagged in words (not by colour alone). */
function Difference({ minor, currency }) {
  if (typeof minor !== 'number') return html`<span class="muted">— (no statement balance)</span>`
  if (minor === 0) return html`<span class="agrees"><${Amount} minor=${0} currency=${currency} /> agrees</span>`
  return html`<strong class="differs">Differs by ${formatAmount(minor, currency)}</strong>`
}

function Continuity({ window }) {
  if (window.previous === null || window.previous === undefined) return html`<p class="continuity">No earlier window of these accounts.</p>`
  const gap = window.gap_days === 0 ? 'none: this window begins the day after it ends' : html`<strong class="differs">${window.gap_days} day${window.gap_days === 1 ? '' : 's'} not covered</strong>`
  const follows = window.opening_matches_previous === true ? 'yes'
    : window.opening_matches_previous === false ? html`<strong class="differs">no: the bank's opening balance is not the previous closing balance</strong>`
      : 'unknown (a statement balance is missing)'
  return html`<p class="continuity">Previous window: <${Id} id=${window.previous} href=${`#/windows/${encodeURIComponent(window.previous)}`} /> ·
    gap: ${gap} · opening follows the previous closing: ${follows}</p>`
}

export function Balances({ window }) {
  const currency = window.currency
  const row = (label, date, bank, books, difference) => html`<tr>
    <th scope="row">${label} <span class="muted">(${formatDate(date)})</span></th>
    <td class="num">${typeof bank === 'number' ? html`<${Amount} minor=${bank} currency=${currency} />` : '—'}</td>
    <td class="num"><${Amount} minor=${books} currency=${currency} /></td>
    <td class="num"><${Difference} minor=${difference} currency=${currency} /></td></tr>`
  return html`<section aria-labelledby="balances-heading">
    <h2 id="balances-heading">Balances</h2>
    <table class="list balances">
      <caption class="visually-hidden">Balances</caption>
      <thead><tr><th scope="col"></th><th scope="col" class="num">Balance per bank</th><th scope="col" class="num">Balance per books</th><th scope="col" class="num">Difference (bank − books)</th></tr></thead>
      <tbody>
        ${row('Opening', window.window.from, window.opening_balance, window.book_opening_balance, window.opening_difference)}
        ${row('Closing', window.window.to, window.closing_balance, window.book_closing_balance, window.closing_difference)}
      </tbody>
    </table>
    <${Continuity} window=${window} />
  </section>`
}

// The windows: filter by state and account, the residual of each at a glance, and the statement upload.

import { useEffect, useState } from 'preact/hooks'
import { html } from '../html.js'
import { enc, listAll } from '../api.js'
import { formatDate } from '../format.js'
import { Alert, Amount, Empty, Id, StateBadge, attempt } from '../ui.js'
import { StatementUpload } from './upload.js'

const states = ['open', 'balanced', 'closed', 'abandoned']

function Filters({ accounts, filter, setFilter }) {
  const change = (name) => (event) => setFilter({ ...filter, [name]: event.currentTarget.value })
  return html`<form class="filters" onSubmit=${(event) => event.preventDefault()} aria-label="Filter windows">
    <label>State
      <select value=${filter.state} onChange=${change('state')}>
        <option value="">any</option>
        ${states.map((state) => html`<option value=${state}>${state}</option>`)}
      </select></label>
    <label>Account
      <select value=${filter.account} onChange=${change('account')}>
        <option value="">any</option>
        ${accounts.map((account) => html`<option value=${account.name}>${account.name}</option>`)}
      </select></label>
  </form>`
}

function WindowsTable({ windows, filtered }) {
  if (windows.length === 0) {
    return html`<${Empty}>${filtered ? 'No window matches these filters.' : 'No reconciliation window yet: open one with POST /v2/reconciliations or upload a bank statement.'}<//>`
  }
  return html`<table class="list">
    <caption class="visually-hidden">Reconciliation windows</caption>
    <thead><tr><th scope="col">Label</th><th scope="col">Accounts</th><th scope="col">Period</th><th scope="col">State</th>
      <th scope="col" class="num">Residual</th><th scope="col" class="num">Unmatched lines</th></tr></thead>
    <tbody>${windows.map((window) => html`<tr>
      <th scope="row">${window.label ? html`<a href=${`#/windows/${enc(window.id)}`}>${window.label}</a>` : html`<${Id} id=${window.id} href=${`#/windows/${enc(window.id)}`} />`}</th>
      <td>${window.accounts.join(', ')}</td>
      <td>${formatDate(window.window.from)} – ${formatDate(window.window.to)}</td>
      <td><${StateBadge} state=${window.state} window=${window} /></td>
      <td class="num"><${Amount} minor=${window.residual} currency=${window.currency} strong /></td>
      <td class="num">${window.unmatched_lines_count} of ${window.lines_count}</td>
    </tr>`)}</tbody>
  </table>`
}

export function WindowsPage() {
  const [accounts, setAccounts] = useState([])
  const [filter, setFilter] = useState({ state: '', account: '' })
  const [windows, setWindows] = useState(null)
  const [error, setError] = useState(null)
  const [reload, setReload] = useState(0)
  useEffect(() => { attempt(setError, () => listAll('/v2/accounts')).then((list) => list && setAccounts(list)) }, [])
  useEffect(() => {
    const query = new URLSearchParams()
    if (filter.state) query.set('state', filter.state)
    if (filter.account) query.set('account', filter.account)
    attempt(setError, () => listAll(`/v2/reconciliations?${query}`)).then((list) => list && setWindows(list))
  }, [filter, reload])
  return html`<section>
    <h1 tabindex="-1">Reconciliation windows</h1>
    <${Filters} accounts=${accounts} filter=${filter} setFilter=${setFilter} />
    <${Alert} message=${error} />
    ${windows === null ? html`<p>Loading…</p>` : html`<${WindowsTable} windows=${windows} filtered=${filter.state !== '' || filter.account !== ''} />`}
    <${StatementUpload} onUploaded=${() => setReload(reload + 1)} />
  </section>`
}


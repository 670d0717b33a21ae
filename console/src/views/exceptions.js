// The exceptions queue (docs/API.md, Exceptions): the unmatched statement lines of the windows still open,
// oldest first, with their age, assignee and note; filtered by account, age and assignee, read a page at a
// time. A line's assignee and note are set in place (PATCH …/lines/:line, recorded in the window's history).

import { useEffect, useState } from 'preact/hooks'
import { html } from '../html.js'
import { api, enc, listAll } from '../api.js'
import { formatDate } from '../format.js'
import { Alert, Amount, Empty, Id, Status, attempt } from '../ui.js'

const pageItems = 100

const windowOf = (item) => item.reconciliation

function Filters({ accounts, filter, setFilter }) {
  const [draft, setDraft] = useState(filter)
  const set = (name) => (event) => setDraft({ ...draft, [name]: event.currentTarget.value })
  const submit = (event) => { event.preventDefault(); setFilter(draft) }
  return html`<form class="filters" onSubmit=${submit} aria-label="Filter exceptions">
    <label>Account <select value=${draft.account} onChange=${set('account')}>
      <option value="">any</option>${accounts.map((account) => html`<option value=${account.name}>${account.name}</option>`)}</select></label>
    <label>Older than (days) <input type="number" min="0" value=${draft.older_than_days} onInput=${set('older_than_days')} /></label>
    <label>Assignee <input value=${draft.assignee} onInput=${set('assignee')} /></label>
    <button type="submit" class="secondary">Apply filters</button>
  </form>`
}

/** Assignee and note of one line, saved together. */
function AssignForm({ item, onSaved, onCancel }) {
  const [assignee, setAssignee] = useState(item.assignee ?? '')
  const [note, setNote] = useState(item.note ?? '')
  const [error, setError] = useState(null)
  const submit = async (event) => {
    event.preventDefault()
    const body = { assignee: assignee.trim() === '' ? null : assignee.trim(), note: note.trim() === '' ? null : note.trim() }
    const saved = await attempt(setError, () => api('PATCH', `/v2/reconciliations/${enc(windowOf(item))}/lines/${enc(item.id)}`, { body }))
    if (saved !== undefined) onSaved(item)
  }
  return html`<form class="panel" onSubmit=${submit} aria-label=${`Assign line ${item.id}`}>
    <label>Assignee <input value=${assignee} maxlength="200" onInput=${(event) => setAssignee(event.currentTarget.value)} /></label>
    <label>Note <input value=${note} maxlength="500" onInput=${(event) => setNote(event.currentTarget.value)} /></label>
    <button type="submit">Save</button><button type="button" class="secondary" onClick=${onCancel}>Cancel</button>
    <${Alert} message=${error} />
  </form>`
}

function ExceptionsTable({ items, currencies, editing, setEditing, onSaved }) {
  if (items.length === 0) return html`<${Empty}>No unmatched statement line in an open window matches these filters.<//>`
  return html`<table class="list"><caption class="visually-hidden">Unmatched statement lines</caption>
    <thead><tr><th scope="col">Line</th><th scope="col">Window</th><th scope="col">Date</th><th scope="col" class="num">Amount</th><th scope="col">Reference and description</th><th scope="col" class="num">Age (days)</th><th scope="col">Assignee</th><th scope="col">Note</th><th scope="col">Change</th></tr></thead>
    <tbody>${items.map((item) => html`<tr>
      <th scope="row">${item.id}</th><td><${Id} id=${windowOf(item)} href=${`#/windows/${enc(windowOf(item))}`} /></td><td>${formatDate(item.date)}</td>
      <td class="num"><${Amount} minor=${item.amount} currency=${currencies.get(item.accounts?.[0])} /></td><td>${[item.reference, item.description, item.counterparty?.name].filter(Boolean).join(' · ')}</td>
      <td class="num">${item.age_days}</td><td>${item.assignee ?? html`<span class="muted">nobody</span>`}</td><td>${item.note ?? ''}</td>
      <td>${editing === `${windowOf(item)}/${item.id}` ? html`<${AssignForm} item=${item} onSaved=${onSaved} onCancel=${() => setEditing(null)} />`
        : html`<button type="button" class="secondary" aria-label=${`Assign or note line ${item.id} of ${windowOf(item)}`} onClick=${() => setEditing(`${windowOf(item)}/${item.id}`)}>Assign or note</button>`}</td>
    </tr>`)}</tbody></table>`
}

export function ExceptionsPage() {
  const [accounts, setAccounts] = useState([])
  const [filter, setFilter] = useState({ account: '', older_than_days: '', assignee: '' })
  const [pages, setPages] = useState(null)
  const [error, setError] = useState(null)
  const [status, setStatus] = useState(null)
  const [editing, setEditing] = useState(null)
  const [reload, setReload] = useState(0)
  useEffect(() => { attempt(setError, () => listAll('/v2/accounts')).then((list) => list && setAccounts(list)) }, [])
  const read = (cursor) => {
    const query = new URLSearchParams({ limit: String(pageItems) })
    for (const [name, value] of Object.entries(filter)) if (value.trim() !== '') query.set(name, value.trim())
    if (cursor) query.set('cursor', cursor)
    return attempt(setError, () => api('GET', `/v2/exceptions?${query}`))
  }
  useEffect(() => { read(null).then((page) => page && setPages({ items: page.data, next: page.next_cursor })) }, [filter, reload])
  const more = async () => { const page = await read(pages.next); if (page) setPages({ items: [...pages.items, ...page.data], next: page.next_cursor }) }
  const saved = (item) => { setEditing(null); setStatus(`Saved the assignee and note of line ${item.id}.`); setReload(reload + 1) }
  return html`<section>
    <h1 tabindex="-1">Exceptions</h1>
    <p class="meta">Statement lines no match covers yet, in windows still open, oldest first.</p>
    <${Filters} accounts=${accounts} filter=${filter} setFilter=${setFilter} />
    <${Alert} message=${error} /><${Status} message=${status} />
    ${pages === null ? (error ? '' : html`<p>Loading…</p>`) : html`<${ExceptionsTable} items=${pages.items} currencies=${new Map(accounts.map((account) => [account.name, account.currency]))} editing=${editing} setEditing=${setEditing} onSaved=${saved} />
      ${pages.next && html`<button type="button" class="secondary" onClick=${more}>Show more</button>`}`}
  </section>`
}

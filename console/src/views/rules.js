// Matching rules (docs/API.md, Matching rules): the workspace's rules in priority order, and a form that
// creates one or edits the one picked (PATCH sends all five fields; `conditions` replaces the whole object).
// Delete asks for a confirmation first. The API judges every field: its message and details are shown as given.

import { useEffect, useRef, useState } from 'preact/hooks'
import { html } from '../html.js'
import { api, enc, listAll } from '../api.js'
import { formatTimestamp } from '../format.js'
import { Alert, Empty, Id, Status, attempt } from '../ui.js'

const strategies = { one_to_one: 'one to one', many_to_one: 'many lines to one entry', one_to_many: 'one line to many entries' }
const actions = { propose: 'propose (kept, not applied)', auto_match: 'auto-match (applied by auto-match)' }
const textTests = { reference: ['equals', 'contains', 'regex'], counterparty: ['equals', 'contains'] }

const blank = { name: '', priority: '100', action: 'auto_match', strategy: 'one_to_one', tolerance: '', date_window_days: '0', reference_kind: '', reference: '', counterparty_kind: '', counterparty: '', description: '' }

/** A rule as the form holds it (every field a string). */
function formOf(rule) {
  const conditions = rule.conditions ?? {}
  const kindOf = (test) => test ? Object.keys(test)[0] : ''
  return {
    name: rule.name, priority: String(rule.priority), action: rule.action, strategy: rule.strategy,
    tolerance: typeof conditions.amount === 'object' && conditions.amount !== null ? String(conditions.amount.tolerance) : '',
    date_window_days: String(conditions.date_window_days ?? 0),
    reference_kind: kindOf(conditions.reference), reference: conditions.reference ? Object.values(conditions.reference)[0] : '',
    counterparty_kind: kindOf(conditions.counterparty), counterparty: conditions.counterparty ? Object.values(conditions.counterparty)[0] : '',
    description: conditions.description?.regex ?? '',
  }
}

/** The form as the API's body. Numbers typed are sent as numbers; the API refuses what is out of range. */
function bodyOf(form) {
  const number = (text) => text.trim() === '' ? undefined : Number(text)
  const conditions = { amount: form.tolerance.trim() === '' ? 'exact' : { tolerance: number(form.tolerance) }, date_window_days: number(form.date_window_days) ?? 0 }
  if (form.reference_kind !== '') conditions.reference = { [form.reference_kind]: form.reference }
  if (form.counterparty_kind !== '') conditions.counterparty = { [form.counterparty_kind]: form.counterparty }
  if (form.description !== '') conditions.description = { regex: form.description }
  return { name: form.name.trim(), priority: number(form.priority), conditions, action: form.action, strategy: form.strategy }
}

/** The conditions in a few words, as a person reads them. */
export function describeConditions(conditions) {
  const parts = [conditions.amount === 'exact' || conditions.amount === undefined ? 'amount exact' : `amount within ${conditions.amount.tolerance} minor units (difference written off)`]
  parts.push(`dates within ${conditions.date_window_days ?? 0} day(s)`)
  for (const field of ['reference', 'counterparty', 'description']) {
    const test = conditions[field]
    if (test) { const [kind, value] = Object.entries(test)[0]; parts.push(`${field} ${kind === 'regex' ? 'matches' : kind} ${kind === 'regex' ? `/${value}/` : `“${value}”`}`) }
  }
  return parts.join(' · ')
}

function TextTest({ field, label, form, set }) {
  const kind = `${field}_kind`
  return html`<fieldset><legend class="visually-hidden">${label}</legend>
    <label>${label} test <select value=${form[kind]} onChange=${set(kind)}>
      <option value="">none</option>${textTests[field].map((test) => html`<option value=${test}>${test}</option>`)}</select></label>
    <label>${label} text <input value=${form[field]} disabled=${form[kind] === ''} maxlength="500" onInput=${set(field)} /></label>
  </fieldset>`
}

function RuleForm({ editing, onSaved, onCancel }) {
  const [form, setForm] = useState(editing ? formOf(editing) : blank)
  const [error, setError] = useState(null)
  const first = useRef(null)
  useEffect(() => { if (editing) first.current?.focus() }, [editing?.id])
  const set = (name) => (event) => setForm({ ...form, [name]: event.currentTarget.value })
  const submit = async (event) => {
    event.preventDefault()
    const saved = await attempt(setError, () => editing ? api('PATCH', `/v2/matching-rules/${enc(editing.id)}`, { body: bodyOf(form) }) : api('POST', '/v2/matching-rules', { body: bodyOf(form) }))
    if (saved !== undefined) { if (!editing) setForm(blank); onSaved(saved, editing ? 'Saved' : 'Created') }
  }
  return html`<form class="rule-form" onSubmit=${submit} aria-label=${editing ? `Edit rule ${editing.name}` : 'New rule'}>
    <label>Name <input ref=${first} required maxlength="200" value=${form.name} onInput=${set('name')} /></label>
    <label>Priority (lower first) <input type="number" min="0" max="1000000" required value=${form.priority} onInput=${set('priority')} /></label>
    <label>Action <select value=${form.action} onChange=${set('action')}>${Object.entries(actions).map(([value, text]) => html`<option value=${value}>${text}</option>`)}</select></label>
    <label>Strategy <select value=${form.strategy} onChange=${set('strategy')}>${Object.entries(strategies).map(([value, text]) => html`<option value=${value}>${text}</option>`)}</select></label>
    <label>Amount tolerance (minor units; empty: exact) <input type="number" min="0" value=${form.tolerance} onInput=${set('tolerance')} /></label>
    <label>Date window (days, 0–31) <input type="number" min="0" max="31" value=${form.date_window_days} onInput=${set('date_window_days')} /></label>
    <${TextTest} field="reference" label="Reference" form=${form} set=${set} />
    <${TextTest} field="counterparty" label="Counterparty" form=${form} set=${set} />
    <label>Description pattern (optional) <input value=${form.description} maxlength="256" onInput=${set('description')} /></label>
    <div class="actions">
      <button type="submit">${editing ? 'Save rule' : 'Create rule'}</button>
      ${editing && html`<button type="button" class="secondary" onClick=${onCancel}>Cancel editing</button>`}
    </div>
    <${Alert} message=${error} />
  </form>`
}

function RulesTable({ rules, zone, onEdit, onDelete, confirming, setConfirming }) {
  if (rules.length === 0) return html`<${Empty}>No matching rule yet: create one below.<//>`
  return html`<table class="list"><caption class="visually-hidden">Matching rules</caption>
    <thead><tr><th scope="col">Name</th><th scope="col" class="num">Priority</th><th scope="col">Action</th><th scope="col">Strategy</th><th scope="col">Conditions</th><th scope="col">Id</th><th scope="col">Updated</th><th scope="col">Change</th></tr></thead>
    <tbody>${rules.map((rule) => html`<tr>
      <th scope="row">${rule.name}</th><td class="num">${rule.priority}</td><td>${rule.action.replace('_', '-')}</td><td>${strategies[rule.strategy] ?? rule.strategy}</td>
      <td>${describeConditions(rule.conditions)}</td><td><${Id} id=${rule.id} /></td><td>${formatTimestamp(rule.updated_at, zone)}</td>
      <td><div class="actions">${confirming === rule.id
        ? html`<button type="button" class="danger" onClick=${() => onDelete(rule)}>Confirm delete</button><button type="button" class="secondary" onClick=${() => setConfirming(null)}>Keep</button>`
        : html`<button type="button" class="secondary" aria-label=${`Edit rule ${rule.name}`} onClick=${() => onEdit(rule)}>Edit</button><button type="button" class="secondary" aria-label=${`Delete rule ${rule.name}`} onClick=${() => setConfirming(rule.id)}>Delete</button>`}</div></td>
    </tr>`)}</tbody></table>`
}

export function RulesPage({ zone }) {
  const [rules, setRules] = useState(null)
  const [error, setError] = useState(null)
  const [status, setStatus] = useState(null)
  const [editing, setEditing] = useState(null)
  const [confirming, setConfirming] = useState(null)
  const load = async () => { const list = await attempt(setError, () => listAll('/v2/matching-rules')); if (list) setRules(list) }
  useEffect(() => { load() }, [])
  const saved = async (rule, verb) => { setEditing(null); await load(); setStatus(`${verb} rule ${rule.name}.`) }
  const remove = async (rule) => {
    setStatus(null)
    const done = await attempt(setError, () => api('DELETE', `/v2/matching-rules/${enc(rule.id)}`))
    setConfirming(null)
    if (done !== undefined) { if (editing?.id === rule.id) setEditing(null); await load(); setStatus(`Deleted rule ${rule.name}.`) }
  }
  // Priority, lower first, then creation (docs/API.md, Matching rules): the order auto-match applies them in.
  const ordered = rules === null ? null : [...rules].sort((a, b) => a.priority - b.priority || (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0))
  return html`<section>
    <h1 tabindex="-1">Matching rules</h1>
    <p class="meta">Auto-match applies the auto-match rules to a window, lower priority first; the first rule that fits a line takes it.</p>
    <${Alert} message=${error} /><${Status} message=${status} />
    ${ordered === null ? (error ? '' : html`<p>Loading…</p>`) : html`<${RulesTable} rules=${ordered} zone=${zone} onEdit=${setEditing} onDelete=${remove} confirming=${confirming} setConfirming=${setConfirming} />`}
    <h2>${editing ? `Edit rule ${editing.name}` : 'New rule'}</h2>
    <${RuleForm} key=${editing?.id ?? 'new'} editing=${editing} onSaved=${saved} onCancel=${() => setEditing(null)} />
  </section>`
}

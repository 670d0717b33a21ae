// Accounts, and one account's balance over time: the balance route read at a series of times, drawn
// with uPlot, and the same figures as a table for screen readers and keyboard users.

import { useEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import { html } from '../html.js'
import { api, enc, listAll } from '../api.js'
import { exponentOf, formatAmount, formatTimestamp } from '../format.js'
import { Alert, Amount, Empty, attempt } from '../ui.js'

const pointsCount = 31
const dayMs = 86_400_000

function AccountsTable({ accounts, zone }) {
  if (accounts.length === 0) return html`<${Empty}>No account yet: create one with POST /v2/accounts.<//>`
  return html`<table class="list"><caption class="visually-hidden">Accounts</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Currency</th><th scope="col">Tags</th><th scope="col">Created</th></tr></thead>
    <tbody>${accounts.map((account) => html`<tr>
      <th scope="row"><a href=${`#/accounts/${enc(account.id)}`}>${account.name}</a></th><td>${account.id}</td><td>${account.currency ?? 'USD'}</td>
      <td>${account.tags.join(', ')}</td><td>${formatTimestamp(account.created_at, zone)}</td>
    </tr>`)}</tbody></table>`
}

async function balancesOver(accountId, fromMs, toMs) {
  const stepMs = (toMs - fromMs) / (pointsCount - 1)
  const times = Array.from({ length: pointsCount }, (_, index) => Math.round(fromMs + index * stepMs))
  return Promise.all(times.map((atMs) => api('GET', `/v2/accounts/${enc(accountId)}/balance?at=${enc(new Date(atMs).toISOString())}`)))
}

function Chart({ points, currency, zone, name }) {
  const box = useRef(null)
  useEffect(() => {
    const divisor = 10 ** exponentOf(currency)
    const data = [points.map((point) => Date.parse(point.at) / 1000), points.map((point) => point.balance / divisor)]
    const plot = new uPlot({
      width: Math.min(900, box.current.clientWidth || 900), height: 280, tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), zone),
      series: [{}, { label: name, stroke: '#1f6feb', width: 2, fill: 'rgba(31,111,235,0.08)', value: (_u, value) => value === null ? '—' : formatAmount(Math.round(value * divisor), currency) }],
      axes: [{}, { values: (_u, ticks) => ticks.map((tick) => formatAmount(Math.round(tick * divisor), currency)), size: 90 }],
    }, data, box.current)
    return () => plot.destroy()
  }, [points, currency, zone])
  return html`<div ref=${box} class="chart" role="img" aria-label=${`Balance of ${name} over time; the table below lists the same figures`}></div>`
}

function BalanceHistory({ account, zone }) {
  const [days, setDays] = useState(30)
  const [points, setPoints] = useState(null)
  const [error, setError] = useState(null)
  useEffect(() => {
    const toMs = Date.now()
    attempt(setError, () => balancesOver(account.id, toMs - days * dayMs, toMs)).then((list) => list && setPoints(list))
  }, [account.id, days])
  const currency = account.currency
  return html`<section aria-labelledby="balance-heading">
    <h2 id="balance-heading">Balance of ${account.name} over time</h2>
    <label>Period <select value=${days} onChange=${(event) => setDays(Number(event.currentTarget.value))}>
      <option value="7">last 7 days</option><option value="30">last 30 days</option><option value="90">last 90 days</option><option value="365">last year</option></select></label>
    <${Alert} message=${error} />
    ${points !== null && html`<${Chart} points=${points} currency=${currency} zone=${zone} name=${account.name} />
      <details><summary>Balances as a table</summary><table class="list"><thead><tr><th scope="col">At</th><th scope="col" class="num">Balance</th></tr></thead>
        <tbody>${points.map((point) => html`<tr><td>${formatTimestamp(point.at, zone)}</td><td class="num"><${Amount} minor=${point.balance} currency=${currency} /></td></tr>`)}</tbody></table></details>`}
  </section>`
}

export function AccountsPage({ accountId, zone }) {
  const [accounts, setAccounts] = useState(null)
  const [error, setError] = useState(null)
  useEffect(() => { attempt(setError, () => listAll('/v2/accounts')).then((list) => list && setAccounts(list)) }, [])
  const selected = accounts?.find((account) => account.id === accountId)
  return html`<section>
    <h1 tabindex="-1">Accounts</h1>
    <${Alert} message=${error} />
    ${accounts === null ? (error ? '' : html`<p>Loading…</p>`) : html`<${AccountsTable} accounts=${accounts} zone=${zone} />`}
    ${selected && html`<${BalanceHistory} account=${selected} zone=${zone} />`}
  </section>`
}

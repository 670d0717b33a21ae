// The statement lines and the period's entries side by side: pick lines and entries, see their
// difference and the what-if residual (a dry run: nothing stored), then match or write off (optionally
// posting the adjusting entry the books lack: docs/API.md, Adjustments); reverse an entry.

import { useEffect, useState } from 'preact/hooks'
import { html } from '../html.js'
import { api, enc, listAll } from '../api.js'
import { entryAmountFor, formatAmount, formatDate, formatTimestamp } from '../format.js'
import { Amount, Empty, Id } from '../ui.js'
import { ReversalCell, ReversePanel } from './window-reversal.js'

function toggle(set, id) {
  const next = new Set(set)
  if (next.has(id)) next.delete(id)
  else next.add(id)
  return next
}

function activeMatchOfEntries(matches) {
  const byEntry = new Map()
  for (const match of matches) if (match.reversed_at === null) for (const id of match.entries) byEntry.set(id, match.id)
  return byEntry
}

function LinesTable({ lines, currency, selected, setSelected, writable, show }) {
  const shown = lines.filter((line) => show === 'all' || (show === 'matched') === (line.match !== null))
  if (shown.length === 0) return html`<${Empty}>${lines.length === 0 ? 'This window has no statement lines yet.' : `No ${show} lines.`}<//>`
  return html`<table class="list selectable"><caption>Statement lines</caption>
    <thead><tr><th scope="col"><span class="visually-hidden">Select</span></th><th scope="col">Line</th><th scope="col">Date</th><th scope="col">Reference</th><th scope="col">Description</th><th scope="col">Counterparty</th><th scope="col" class="num">Amount</th><th scope="col">Match</th></tr></thead>
    <tbody>${shown.map((line) => html`<tr class=${selected.has(line.id) ? 'selected' : ''}>
      <td><input type="checkbox" id=${`line-${line.id}`} checked=${selected.has(line.id)} disabled=${!writable || line.match !== null}
        aria-label=${`Select line ${line.id}, ${formatAmount(line.amount, currency)} on ${line.date}`} onChange=${() => setSelected(toggle(selected, line.id))} /></td>
      <th scope="row"><label for=${`line-${line.id}`}>${line.id}</label></th><td>${formatDate(line.date)}${line.outside_period ? html` <span class="meta">(outside the period)</span>` : ''}</td><td>${line.reference ?? ''}</td><td>${line.description ?? ''}</td><td>${line.counterparty?.name ?? ''}</td>
      <td class="num"><${Amount} minor=${line.amount} currency=${currency} /></td><td>${line.match ? html`<${Id} id=${line.match} />` : html`<span class="unmatched">unmatched</span>`}</td>
    </tr>`)}</tbody></table>`
}

function EntriesTable({ entries, window, zone, selected, setSelected, writable, matchOf, onReverse }) {
  if (entries.length === 0) return html`<${Empty}>No entry is effective in this period on ${window.accounts.join(', ')}.<//>`
  return html`<table class="list selectable"><caption>Entries of the period</caption>
    <thead><tr><th scope="col"><span class="visually-hidden">Select</span></th><th scope="col">Entry</th><th scope="col">Effective</th><th scope="col">Description</th><th scope="col" class="num">Amount here</th><th scope="col">Match</th><th scope="col">Reversal</th></tr></thead>
    <tbody>${entries.map((entry) => {
      const amount = entryAmountFor(entry, window.accounts)
      const match = matchOf.get(entry.id)
      return html`<tr class=${selected.has(entry.id) ? 'selected' : ''}>
        <td><input type="checkbox" id=${`entry-${entry.id}`} checked=${selected.has(entry.id)} disabled=${!writable || match !== undefined}
          aria-label=${`Select entry ${entry.id}, ${formatAmount(amount, window.currency)}`} onChange=${() => setSelected(toggle(selected, entry.id))} /></td>
        <th scope="row"><${Id} id=${entry.id} /></th><td>${formatTimestamp(entry.effective_at, zone)}</td><td>${entry.description ?? ''}</td>
        <td class="num"><${Amount} minor=${amount} currency=${window.currency} /></td><td>${match ? html`<${Id} id=${match} />` : html`<span class="unmatched">unmatched</span>`}</td>
        <${ReversalCell} entry=${entry} onReverse=${onReverse} />
      </tr>`
    })}</tbody></table>`
}

function sumOf(ids, amountOf) {
  let sum = 0
  for (const id of ids) sum += amountOf(id)
  return sum
}

function MatchPanel({ window, data, act, lines, entries, clear }) {
  const [strategy, setStrategy] = useState('amount_and_date')
  const [reason, setReason] = useState('')
  const [whatIf, setWhatIf] = useState(null)
  const lineAmount = new Map(data.lines.map((line) => [line.id, line.amount]))
  const entryAmount = new Map(data.entries.map((entry) => [entry.id, entryAmountFor(entry, window.accounts)]))
  const linesSum = sumOf(lines, (id) => lineAmount.get(id) ?? 0)
  const entriesSum = sumOf(entries, (id) => entryAmount.get(id) ?? 0)
  const body = (extra) => ({ statement_lines: [...lines], entries: [...entries], strategy, ...(reason.trim() ? { reason: reason.trim() } : {}), ...extra })
  const path = `/v2/reconciliations/${enc(window.id)}/matches`
  const match = async (event) => {
    event.preventDefault()
    const done = await act((answer) => `Matched ${lines.size} line(s) with ${entries.size} entr${entries.size === 1 ? 'y' : 'ies'} as ${answer.id}; residual now ${formatAmount(answer.residual, window.currency)}.`, () => api('POST', path, { body: body({}) }))
    if (done !== undefined) { clear(); setWhatIf(null) }
  }
  // A what-if speaks of this selection in this window as it stands: once either changes (an action, a
  // live update) it no longer holds and is not shown.
  const basis = `${[...lines]}|${[...entries]}|${strategy}|${window.residual}|${window.matched_count}`
  const dryRun = () => act((answer) => { setWhatIf({ ...answer, basis }); return 'What-if computed; nothing was stored.' }, () => api('POST', path, { body: body({ dry_run: true }) }))
  const none = lines.size === 0 || entries.size === 0
  return html`<form class="panel match-panel" onSubmit=${match} aria-label="Match the selected lines and entries">
    <p>Selected: ${lines.size} line(s) <${Amount} minor=${linesSum} currency=${window.currency} />, ${entries.size} entr${entries.size === 1 ? 'y' : 'ies'} <${Amount} minor=${entriesSum} currency=${window.currency} /> ·
      difference <${Amount} minor=${linesSum - entriesSum} currency=${window.currency} strong /></p>
    <label>Strategy <select value=${strategy} onChange=${(event) => setStrategy(event.currentTarget.value)}>
      <option value="amount_and_date">amount and date must agree</option><option value="manual">manual (accept the difference)</option></select></label>
    <label>Reason (optional) <input value=${reason} onInput=${(event) => setReason(event.currentTarget.value)} maxlength="500" /></label>
    <button type="button" class="secondary" disabled=${none} onClick=${dryRun}>What if?</button>
    <button type="submit" disabled=${none}>Match selected</button>
    ${whatIf?.basis === basis && html`<p class="what-if" role="status">What-if: residual would be <${Amount} minor=${whatIf.residual} currency=${window.currency} strong />, state ${whatIf.state}.</p>`}
  </form>`
}

/** The accounts an adjusting entry may go to: every account the key sees but the window's own. */
function useAdjustmentAccounts(window) {
  const [accounts, setAccounts] = useState([])
  useEffect(() => {
    // Only a help for typing: the field takes any name, and the API judges it.
    listAll('/v2/accounts').then((all) => setAccounts(all.map((account) => account.name).filter((name) => !window.accounts.includes(name))), () => setAccounts([]))
  }, [window.id])
  return accounts
}

function WriteOffPanel({ window, act, lines, clear }) {
  const [reason, setReason] = useState('')
  const [account, setAccount] = useState('')
  const accounts = useAdjustmentAccounts(window)
  const submit = async (event) => {
    event.preventDefault()
    const adjustment = account.trim() === '' ? {} : { adjustment: { account: account.trim() } }
    const body = { statement_lines: [...lines], strategy: 'write_off', reason: reason.trim(), ...adjustment }
    const posted = (answer) => answer.adjustment_entry ? ` and posted the adjusting entry ${answer.adjustment_entry} to ${account.trim()}` : ''
    const done = await act((answer) => `Wrote off ${lines.size} line(s) as ${answer.id}${posted(answer)}; residual now ${formatAmount(answer.residual, window.currency)}.`, () => api('POST', `/v2/reconciliations/${enc(window.id)}/matches`, { body }))
    if (done !== undefined) { clear(); setReason(''); setAccount('') }
  }
  return html`<form class="panel" onSubmit=${submit} aria-label="Write off the selected lines">
    <label>Write-off reason <input name="write-off-reason" required maxlength="500" value=${reason} onInput=${(event) => setReason(event.currentTarget.value)} /></label>
    <label>Post an adjusting entry to account (optional, one line) <input name="adjustment-account" list="adjustment-accounts" value=${account} onInput=${(event) => setAccount(event.currentTarget.value)} /></label>
    <datalist id="adjustment-accounts">${accounts.map((name) => html`<option value=${name} />`)}</datalist>
    <button type="submit" disabled=${lines.size === 0}>Write off selected lines</button>
  </form>`
}

export function MatchWorkbench(props) {
  const { window, data, writable } = props
  const [pickedLines, setLines] = useState(new Set())
  const [pickedEntries, setEntries] = useState(new Set())
  const [show, setShow] = useState('all')
  const [reversing, setReversing] = useState(null)
  const clear = () => { setLines(new Set()); setEntries(new Set()) }
  const matchOf = activeMatchOfEntries(data.matches)
  // A picked line or entry that got matched meanwhile (a proposal accepted, a live update) is no longer
  // picked: a write-off or match must never carry it.
  const unmatchedLines = new Set(data.lines.filter((line) => line.match === null).map((line) => line.id))
  const unmatchedEntries = new Set(data.entries.filter((entry) => !matchOf.has(entry.id)).map((entry) => entry.id))
  const lines = new Set([...pickedLines].filter((id) => unmatchedLines.has(id)))
  const entries = new Set([...pickedEntries].filter((id) => unmatchedEntries.has(id)))
  return html`<section aria-labelledby="work-heading">
    <h2 id="work-heading">Lines and entries</h2>
    <label>Show lines <select value=${show} onChange=${(event) => setShow(event.currentTarget.value)}>
      <option value="all">all</option><option value="unmatched">unmatched</option><option value="matched">matched</option></select></label>
    <div class="columns">
      <${LinesTable} lines=${data.lines} currency=${window.currency} selected=${lines} setSelected=${setLines} writable=${writable} show=${show} />
      <${EntriesTable} entries=${data.entries} window=${window} zone=${props.zone} selected=${entries} setSelected=${setEntries} writable=${writable} matchOf=${matchOf} onReverse=${setReversing} />
    </div>
    ${reversing && html`<${ReversePanel} key=${reversing.id} entry=${reversing} act=${props.act} zone=${props.zone} onDone=${() => setReversing(null)} />`}
    ${writable && html`<${MatchPanel} ...${props} lines=${lines} entries=${entries} clear=${clear} />`}
    ${writable && html`<${WriteOffPanel} ...${props} lines=${lines} clear=${clear} />`}
  </section>`
}

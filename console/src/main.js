// The trueup console: sign-in, windows, one window, accounts, statement upload, matching rules, exceptions, approvals. Routes live in the URL hash.

import 'uplot/dist/uPlot.min.css'
import './style.css'
import { render } from 'preact'
import { useEffect, useErrorBoundary, useRef, useState } from 'preact/hooks'
import { html } from './html.js'
import { api, describeError, session } from './api.js'
import { SignIn } from './views/signin.js'
import { WindowsPage } from './views/windows.js'
import { WindowPage } from './views/window.js'
import { AccountsPage } from './views/accounts.js'
import { RulesPage } from './views/rules.js'
import { ExceptionsPage } from './views/exceptions.js'
import { ApprovalsPage } from './views/approvals.js'
import { labelTableCells } from './cards.js'

function currentRoute() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter((part) => part !== '').map(decodeURIComponent)
  return { page: parts[0] ?? 'windows', id: parts[1] ?? null }
}

function useRoute() {
  const [route, setRoute] = useState(currentRoute())
  useEffect(() => {
    const onChange = () => setRoute(currentRoute())
    addEventListener('hashchange', onChange)
    return () => removeEventListener('hashchange', onChange)
  }, [])
  return route
}

/** The workspace and its time zone, as GET /v2/workspace gives them: every time on the pages is shown in that zone. */
function WorkspaceName({ workspace }) {
  if (workspace === null) return html`<span class="timezone">Workspace…</span>`
  return html`<span class="timezone" title="Times are shown in the workspace's time zone">${workspace.id} · ${workspace.timezone}</span>`
}

/**
 * The workspace of the signed-in key, read at sign-in and again on every page change, so a zone an admin
 * changed shows on the next page. A failed re-read keeps what was read before.
 */
function useWorkspace(signedIn, initial, route) {
  const [workspace, setWorkspace] = useState(initial)
  const [error, setError] = useState(null)
  useEffect(() => {
    if (!signedIn) return undefined
    let current = true
    api('GET', '/v2/workspace').then((read) => { if (current) { setWorkspace(read); setError(null) } }, (failure) => { if (current) setError(describeError(failure)) })
    return () => { current = false }
  }, [signedIn, route.page, route.id])
  return { workspace: signedIn ? workspace : null, error, setWorkspace }
}

function Header({ route, onSignOut, workspace }) {
  const link = (page, label) => html`<a href=${`#/${page}`} aria-current=${route.page === page ? 'page' : undefined}>${label}</a>`
  return html`<header class="top">
    <span class="brand">trueup</span>
    <nav aria-label="Main">${link('windows', 'Windows')} ${link('accounts', 'Accounts')} ${link('rules', 'Rules')} ${link('exceptions', 'Exceptions')} ${link('approvals', 'Approvals')}</nav>
    <${WorkspaceName} workspace=${workspace} />
    <button type="button" class="secondary" onClick=${onSignOut}>Sign out</button>
  </header>`
}

/** A page that throws while rendering shows what went wrong instead of going blank. */
function Guarded({ children }) {
  const [error, reset] = useErrorBoundary()
  if (error) return html`<div class="alert" role="alert">This page failed to show (${error.message}). <button type="button" class="secondary" onClick=${reset}>Try again</button></div>`
  return children
}

function App() {
  const [signedIn, setSignedIn] = useState(session.key() !== null)
  const route = useRoute()
  const { workspace, error, setWorkspace } = useWorkspace(signedIn, null, route)
  const main = useRef(null)
  const zone = workspace?.timezone ?? null
  // A new page moves focus to its heading, so a screen reader announces where the user is.
  useEffect(() => { main.current?.querySelector('h1')?.focus() }, [route.page, route.id, signedIn, zone === null])
  const signedInWith = (read) => { setWorkspace(read); setSignedIn(true) }
  if (!signedIn) return html`<main ref=${main}><${SignIn} onSignedIn=${signedInWith} /></main>`
  const signOut = () => { session.signOut(); setSignedIn(false); setWorkspace(null) }
  const header = html`<${Header} route=${route} onSignOut=${signOut} workspace=${workspace} />`
  // The pages show times in the workspace's zone: they wait for it.
  if (zone === null) {
    return html`${header}<main ref=${main}>${error === null ? html`<p>Loading the workspace…</p>` : html`<div class="alert" role="alert">${error}</div>`}</main>`
  }
  const props = { zone, key: `${route.page}/${route.id}/${zone}` }
  let page
  if (route.page === 'accounts') page = html`<${AccountsPage} ...${props} accountId=${route.id} />`
  else if (route.page === 'rules') page = html`<${RulesPage} ...${props} />`
  else if (route.page === 'exceptions') page = html`<${ExceptionsPage} ...${props} />`
  else if (route.page === 'approvals') page = html`<${ApprovalsPage} ...${props} />`
  else if (route.page === 'windows' && route.id !== null) page = html`<${WindowPage} ...${props} windowId=${route.id} />`
  else page = html`<${WindowsPage} ...${props} />`
  return html`${header}<main ref=${main}><${Guarded}>${page}<//></main>`
}

const container = document.getElementById('app')
container.textContent = ''
render(html`<${App} />`, container)
labelTableCells(container)

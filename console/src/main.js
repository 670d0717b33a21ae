// The trueup console: sign-in, windows, one window, accounts, statement upload. Routes live in the URL hash.

import 'uplot/dist/uPlot.min.css'
import './style.css'
import { render } from 'preact'
import { useEffect, useErrorBoundary, useRef, useState } from 'preact/hooks'
import { html } from './html.js'
import { session } from './api.js'
import { timezone } from './format.js'
import { SignIn } from './views/signin.js'
import { WindowsPage } from './views/windows.js'
import { WindowPage } from './views/window.js'
import { AccountsPage } from './views/accounts.js'

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

function TimezoneField({ onChange }) {
  const [value, setValue] = useState(timezone.get())
  const valid = timezone.valid(value)
  const commit = () => { if (valid) { timezone.set(value); onChange(value) } }
  return html`<label class="timezone">Workspace timezone
    <input value=${value} aria-invalid=${!valid} onInput=${(event) => setValue(event.currentTarget.value)}
      onChange=${commit} size="16" spellcheck="false" /></label>`
}

function Header({ route, onSignOut, onZone }) {
  const link = (page, label) => html`<a href=${`#/${page}`} aria-current=${route.page === page ? 'page' : undefined}>${label}</a>`
  return html`<header class="top">
    <span class="brand">trueup</span>
    <nav aria-label="Main">${link('windows', 'Windows')} ${link('accounts', 'Accounts')}</nav>
    <${TimezoneField} onChange=${onZone} />
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
  const [zone, setZone] = useState(timezone.get())
  const route = useRoute()
  const main = useRef(null)
  // A new page moves focus to its heading, so a screen reader announces where the user is.
  useEffect(() => { main.current?.querySelector('h1')?.focus() }, [route.page, route.id, signedIn])
  if (!signedIn) return html`<main ref=${main}><${SignIn} onSignedIn=${() => setSignedIn(true)} /></main>`
  const signOut = () => { session.signOut(); setSignedIn(false) }
  const props = { zone, key: `${route.page}/${route.id}/${zone}` }
  let page
  if (route.page === 'accounts') page = html`<${AccountsPage} ...${props} accountId=${route.id} />`
  else if (route.page === 'windows' && route.id !== null) page = html`<${WindowPage} ...${props} windowId=${route.id} />`
  else page = html`<${WindowsPage} ...${props} />`
  return html`<${Header} route=${route} onSignOut=${signOut} onZone=${setZone} /><main ref=${main}><${Guarded}>${page}<//></main>`
}

const container = document.getElementById('app')
container.textContent = ''
render(html`<${App} />`, container)

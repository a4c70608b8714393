// The console's shell: sign-in, navigation and the hash routes
// (#/statements?verb=… is a link to share). Each page is a module with
// render(main, params). The chosen store is in the address too
// (#/statements?store=acme&verb=…): a link opens in the store it was made
// in, and Back goes back to the store of before.

import { api, signIn, signOut, signedInKey, chooseStore, chosenStore, knowStores, managesStores, pageStore, whenSignedOut, useSsoSession, signedInWithSso, endSsoSession, ApiError } from './api.js'
import { show, el } from './dom.js'

const PAGES = {
  overview: () => import('./pages/overview.js'),
  statements: () => import('./pages/statements.js'),
  credentials: () => import('./pages/credentials.js'),
  erasure: () => import('./pages/erasure.js'),
  forwarding: () => import('./pages/forwarding.js'),
  forwarders: () => import('./pages/forwarders.js'),
  reports: () => import('./pages/reports.js'),
  report: () => import('./pages/report.js'), // #/reports/<id>
  dashboard: () => import('./pages/dashboard.js'),
  stores: () => import('./pages/stores.js')
}
const HOME = 'overview'

const main = document.getElementById('main')
const signInForm = document.getElementById('sign-in')
const signInPage = [...main.childNodes]

// { name: the page, path: what the address names (reports/<id> for the
// page `report`), id, params }
function route () {
  const [path, query = ''] = window.location.hash.replace(/^#\/?/, '').split('?')
  const params = new URLSearchParams(query)
  const saved = /^reports\/([^/]+)$/.exec(path)
  if (saved) {
    let id
    try { id = decodeURIComponent(saved[1]) } catch { id = saved[1] }
    return { name: 'report', path, id, params }
  }
  const name = PAGES[path] && path !== 'report' ? path : HOME
  return { name, path: name, id: null, params }
}
// The navigation's entry of a page (a report's page is under Reports).
const navOf = (name) => (name === 'report' ? 'reports' : name)

// The store the address names, chosen if it is not; an address without
// one (a page's own link, the navigation) stays in the chosen store and
// gets its id. False when the address names a store the page cannot show.
function followStore (view, name, params) {
  const named = params.get('store')
  if (!managesStores()) {
    const own = pageStore() // its own store, where known
    if (named === null && own) {
      params.set('store', own)
      window.history.replaceState(null, '', '#/' + name + '?' + params)
    }
    if (named === null || !own || named === own) return true // (its own store unknown: it is what the page shows)
    show(view, el('h1', {}, 'Another store'), el('p', { class: 'error', role: 'alert' }, 'This address is for the store ', el('code', {}, named),
      ': this credential works in its own store only. ', el('a', { href: '#/' + name }, 'Show this page for its own store'), '.'))
    return false
  }
  const select = document.getElementById('store')
  if (named !== null && named !== (chosenStore() || '')) {
    if (![...select.options].some((o) => o.value === named)) {
      show(view, el('h1', {}, 'No such store'), el('p', { class: 'error', role: 'alert' }, 'This address is for the store ', el('code', {}, named), ', which this LRS does not have (any more).'))
      return false
    }
    select.value = named
    chooseStore(named)
  }
  if (chosenStore() && named === null) {
    params.set('store', chosenStore())
    window.history.replaceState(null, '', '#/' + name + '?' + params)
  }
  return true
}

async function render () {
  if (!signedInKey()) return
  const { name, path, id, params } = route()
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.getAttribute('href') === '#/' + navOf(name)) a.setAttribute('aria-current', 'page')
    else a.removeAttribute('aria-current')
  }
  // Each render gets an element of its own: a page still waiting for the
  // LRS when another is chosen renders into an element no longer shown,
  // never over the page chosen after it.
  const view = el('div', { class: 'page' })
  show(main, view)
  if (!followStore(view, path, params)) return
  if (name === 'stores' && !managesStores()) {
    show(view, el('h1', {}, 'Stores'), el('p', { class: 'error', role: 'alert' }, 'The Stores page needs a credential with the scope ', el('code', {}, 'stores/admin'), '.'))
    return
  }
  try {
    const page = await PAGES[name]()
    await page.render(view, params, { id })
  } catch (err) {
    show(view, el('h1', {}, 'Error'), el('p', { class: 'error', role: 'alert' }, err.message))
  }
}

signInForm.addEventListener('submit', async (event) => {
  event.preventDefault()
  const key = signInForm.elements.key.value
  const secret = signInForm.elements.secret.value
  const message = document.getElementById('sign-in-error')
  message.textContent = ''
  try {
    await signIn(key, secret)
  } catch (err) {
    message.textContent = err instanceof ApiError && err.status === 401
      ? 'That key and secret are not a valid credential.'
      : err.message
    return
  }
  let credentials
  try {
    credentials = await api('/admin/credentials') // any /admin request checks the admin scope
  } catch (err) {
    signOut()
    message.textContent = err instanceof ApiError && err.status === 403
      ? 'This credential lacks the admin scope.'
      : err.message
    return
  }
  signInForm.reset()
  const own = credentials.credentials.find((c) => c.key === key)
  knowStores({ own: own ? own.store : null })
  await showSignedIn(key)
})

async function showSignedIn (name) {
  document.getElementById('nav').hidden = false
  document.getElementById('who').hidden = false
  document.getElementById('who-key').textContent = 'Signed in as ' + name
  await offerStores()
  render()
}

// A credential with stores/admin chooses the store every page shows (the
// API's X-LRS-Store) and has the Stores page; any other sees its own store
// only. `keep`: the stores changed (the Stores page): the choice stays if
// its store does.
async function offerStores ({ keep = false } = {}) {
  const choice = document.getElementById('store-choice')
  const select = document.getElementById('store')
  const storesLink = document.getElementById('nav-stores')
  const chosen = keep ? select.value : ''
  if (!keep) {
    choice.hidden = true
    storesLink.hidden = true
    chooseStore(null)
    knowStores({ manages: false })
  }
  let list
  try {
    list = await api('/admin/stores', { store: null })
  } catch {
    return // no stores/admin: its own store
  }
  knowStores({ manages: true })
  // A name is anyone's text: isolated (FSI ... PDI), so that its
  // right-to-left marks cannot make the id after it read as another.
  const options = [el('option', { value: '' }, 'its own store'), ...list.stores.map((s) => el('option', { value: s.id }, `\u2068${s.name}\u2069 (${s.id})`))]
  select.replaceChildren(...options)
  const still = list.stores.some((s) => s.id === chosen)
  select.value = still ? chosen : ''
  if (!still) chooseStore(null)
  choice.hidden = false
  storesLink.hidden = false
}

window.addEventListener('stores-changed', () => offerStores({ keep: true }))

// Another store: the same page, without the last store's filters or
// statement (they were that store's).
document.getElementById('store').addEventListener('change', (event) => {
  chooseStore(event.target.value)
  const hash = '#/' + navOf(route().name) + (event.target.value ? '?store=' + encodeURIComponent(event.target.value) : '')
  if (window.location.hash === hash) render()
  else window.location.hash = hash // renders
})

function showSignIn () {
  document.getElementById('nav').hidden = true
  document.getElementById('who').hidden = true
  document.getElementById('store-choice').hidden = true
  document.getElementById('store').replaceChildren() // the stores' names are not the next one's to read
  document.getElementById('nav-stores').hidden = true
  show(main, ...signInPage)
}

document.getElementById('sign-out').addEventListener('click', async () => {
  if (signedInWithSso()) {
    // the session ends here, then at the issuer where it offers that
    const endSessionUrl = await endSsoSession().catch(() => null)
    if (endSessionUrl) return window.location.assign(endSessionUrl)
  }
  signOut()
  showSignIn()
})

// What `?sso=` (the sign-in's way back, sso-routes.js) means: a fixed list,
// never the address's own text. A Map, so that a word every object
// inherits (`constructor`, `__proto__`) is no entry of it.
const SSO_REFUSALS = new Map([
  ['not-allowed', 'Your account is not in a group that may use this console.'],
  ['no-store', 'Your account names a store this LRS does not have.'],
  ['expired', 'The sign-in took too long or was started elsewhere: try again.'],
  ['failed', 'The sign-in with your organisation did not succeed: try again, or ask the LRS\'s operator (the LRS\'s log says why).']
])

// A single sign-on session of this browser is taken up at once; without
// one, the sign-in page offers single sign-on where it is configured.
async function resumeSso () {
  const refusal = SSO_REFUSALS.get(new URLSearchParams(window.location.search).get('sso'))
  if (refusal) document.getElementById('sign-in-error').textContent = refusal
  let sso
  try {
    const res = await fetch(new URL('/console/sso', window.location.origin), { credentials: 'same-origin', cache: 'no-store' })
    sso = await res.json()
  } catch {
    return
  }
  document.getElementById('sso').hidden = !sso.enabled
  if (!sso.signedIn) return
  useSsoSession(sso.name, sso.csrf)
  knowStores({ own: sso.store || null })
  await showSignedIn(sso.name)
}
resumeSso()

// The token expired (LRS_TOKEN_TTL_S) or its credential changed: sign in again.
whenSignedOut(() => {
  showSignIn()
  document.getElementById('sign-in-error').textContent = 'Your sign-in has ended (it lasts an hour, and ends when the credential changes): sign in again.'
})

window.addEventListener('hashchange', render)

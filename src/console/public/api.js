// The console's only way to the LRS: the same /xapi and /admin APIs every
// client uses. Signing in trades the credential's key and secret for a
// token (POST /oauth/token, the OAuth client credentials grant) and
// forgets the secret: the page holds only the token, which expires
// (LRS_TOKEN_TTL_S, an hour) and stops when the credential is revoked,
// and works where HTTP Basic is off (LRS_BASIC_AUTH=off). It lives in this
// module's memory only (no localStorage, no sessionStorage, no cookie): a
// reload forgets it, and no other page or tab can read it. A request
// refused 401 once signed in ends the sign-in (whenSignedOut).
//
// With single sign-on (/console/sso) the page holds no token at all: an
// HttpOnly cookie the page cannot read authenticates it, and every request
// carries the session's CSRF token (X-CSRF-Token).

let session = null // { key, token } or, signed in with single sign-on, { key, csrf }
// The store chosen in the header (X-LRS-Store, for a credential with
// stores/admin); null: the credential's own.
let store = null
// Whether the credential may choose a store (stores/admin), and its own
// store's id where the console could tell (null: not known).
let storesAdmin = false
let ownStore = null
let signedOut = () => {}

export async function signIn (key, secret) {
  const res = await fetch(new URL('/oauth/token', window.location.origin), {
    method: 'POST',
    headers: { Authorization: basic({ key, secret }), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    credentials: 'omit',
    cache: 'no-store'
  })
  const json = await res.json().catch(() => null)
  if (!res.ok) throw new ApiError(res.status, json)
  session = { key, token: json.access_token }
}
// A single sign-on session of this browser (GET /console/sso said so).
export function useSsoSession (name, csrf) { session = { key: name, csrf } }
export function signOut () { session = null; store = null; storesAdmin = false; ownStore = null }
export function signedInWithSso () { return Boolean(session && session.csrf) }
// Ends the single sign-on session here; the issuer's end-session URL, or null.
export async function endSsoSession () {
  const csrf = session && session.csrf
  signOut()
  const res = await fetch(new URL('/console/sso/sign-out', window.location.origin), { method: 'POST', headers: csrf ? { 'X-CSRF-Token': csrf } : {}, credentials: 'same-origin', cache: 'no-store' })
  const json = await res.json().catch(() => null)
  return (res.ok && json && json.endSessionUrl) || null
}
export function chooseStore (id) { store = id || null }
export function chosenStore () { return store }
export function knowStores ({ manages = storesAdmin, own = ownStore } = {}) { storesAdmin = manages; ownStore = own }
export function managesStores () { return storesAdmin }
// The id of the store the pages show, or null when not known.
export function pageStore () { return store || ownStore }
export function signedInKey () { return session && session.key }
export function whenSignedOut (fn) { signedOut = fn }

function basic ({ key, secret }) {
  const bytes = new TextEncoder().encode(`${key}:${secret}`)
  let binary = ''
  for (const b of bytes) binary += String.fromCharCode(b)
  return 'Basic ' + btoa(binary)
}

export class ApiError extends Error {
  constructor (status, body) {
    super(body && body.message ? `${body.message} (${status})` : `the LRS answered ${status}`)
    this.status = status
    this.code = body && body.code
    this.detail = (body && body.message) || null // the LRS's words alone
  }
}

// api('/admin/credentials', { method, query: {…}, body }) -> parsed JSON (or null);
// with asText (GET /metrics) the text of the answer; `store`: in this store
// instead of the one chosen in the header, or null for what is the whole
// LRS's (the Stores page: the chosen store would be the calling
// credential's own, which it may not delete); `file`: a File (or Blob)
// sent as it is, of type `type`; `asBlob`: the answer as a Blob (a download);
// `accept`: the Accept header (text/csv: a report's CSV).
export async function api (path, { method = 'GET', query, body, asText = false, store: inStore = store, file, type, asBlob = false, accept } = {}) {
  const url = new URL(path, window.location.origin)
  for (const [k, v] of Object.entries(query || {})) if (v !== undefined && v !== '') url.searchParams.set(k, v)
  const headers = { 'X-Experience-API-Version': '2.0.0' }
  if (session && session.token) headers.Authorization = 'Bearer ' + session.token
  if (session && session.csrf) headers['X-CSRF-Token'] = session.csrf
  if (session && inStore) headers['X-LRS-Store'] = inStore
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  if (file !== undefined) headers['Content-Type'] = type
  if (accept) headers.Accept = accept
  const sent = file !== undefined ? file : body === undefined ? undefined : JSON.stringify(body)
  const res = await fetch(url, { method, headers, body: sent, credentials: session && session.csrf ? 'same-origin' : 'omit', cache: 'no-store' })
  if (asBlob && res.ok) return res.blob()
  const text = await res.text()
  if (asText && res.ok) return text
  let json = null
  try { json = text ? JSON.parse(text) : null } catch {}
  if (res.status === 401 && session) {
    signOut()
    signedOut()
  }
  if (!res.ok) throw new ApiError(res.status, json)
  return json
}

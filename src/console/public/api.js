// The console's only way to the LRS: the same /xapi and /admin APIs every
// client uses. Signing in trades the credential's key and secret for a
// token (POST /oauth/token, the OAuth client credentials grant) and
// forgets the secret: the page holds only the token, which expires
// (LRS_TOKEN_TTL_S, an hour) and stops when the credential is revoked,
// and works where HTTP Basic is off (LRS_BASIC_AUTH=off). It lives in this
// module's memory only (no localStorage, no sessionStorage, no cookie): a
// reload forgets it, and no other page or tab can read it. A request
// refused 401 once signed in ends the sign-in (whenSignedOut).

let session = null // { key, token }
// The store chosen in the header (X-LRS-Store, for a credential with
// stores/admin); null: the credential's own.
let store = null
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
export function signOut () { session = null; store = null }
export function chooseStore (id) { store = id || null }
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
// with asText (GET /metrics) the text of the answer
export async function api (path, { method = 'GET', query, body, asText = false } = {}) {
  const url = new URL(path, window.location.origin)
  for (const [k, v] of Object.entries(query || {})) if (v !== undefined && v !== '') url.searchParams.set(k, v)
  const headers = { 'X-Experience-API-Version': '2.0.0' }
  if (session) headers.Authorization = 'Bearer ' + session.token
  if (session && store) headers['X-LRS-Store'] = store
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' })
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

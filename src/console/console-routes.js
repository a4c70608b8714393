'use strict'

// The pages for people, served by the LRS itself (no CDN: a machine without
// internet works; no build step: every file served is in this folder or in
// an npm package):
//   /console/  the admin console (public/: plain ES modules, one per page)
//   /docs/     the API docs: Swagger UI (npm swagger-ui-dist, served from
//              its dist folder) rendering /openapi.json
// Both are static files served by middleware, not API operations: they are
// not in the route table (src/http/route.js), so /openapi.json does not
// list them, and test/operations/openapi.test.js, which walks the router's
// routes, does not meet them (express.static is a middleware, no route).
//
// The pages call the same /xapi and /admin APIs as every other client, with
// HTTP Basic credentials the page keeps in memory: no cookie carries
// authority, so there is no CSRF surface, and the console can do nothing
// the API would refuse.

const path = require('node:path')
const express = require('express')
const { precompressedFiles } = require('../http/static-files')

// Scripts and styles from this origin only, never inline: stored statements
// are hostile input, and a page that slipped one into the DOM as markup
// still would not run it. Swagger UI's icons are data: SVGs in its CSS.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join('; ')

function pageHeaders (req, res, next) {
  res.setHeader('Content-Security-Policy', CSP)
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.setHeader('Referrer-Policy', 'no-referrer')
  res.setHeader('X-Frame-Options', 'DENY')
  next()
}

// no-cache: revalidated on every load, so an upgraded LRS serves its own
// pages at once (the files are small; ETags make the check cheap).
const STATIC = { index: 'index.html', redirect: true, cacheControl: true, maxAge: 0, dotfiles: 'ignore' }

function swaggerUiFolder () {
  return path.dirname(require.resolve('swagger-ui-dist/package.json'))
}

// `compressMinBytes`: files of this size and more go compressed to the
// clients that accept it, compressed once (http/static-files.js); null:
// never (LRS_COMPRESSION=off).
function consoleRoutes ({ compressMinBytes = null } = {}) {
  const r = express.Router({ caseSensitive: true })
  r.use(['/console', '/docs'], pageHeaders)
  const serve = (at, root, options) => {
    if (compressMinBytes !== null) r.use(at, precompressedFiles(root, { index: options.index || null, minBytes: compressMinBytes }))
    r.use(at, express.static(root, options))
  }
  serve('/console', path.join(__dirname, 'public'), STATIC)
  serve('/docs/swagger-ui', swaggerUiFolder(), { ...STATIC, index: false })
  serve('/docs', path.join(__dirname, 'docs'), STATIC)
  return r
}

module.exports = { consoleRoutes, CSP }

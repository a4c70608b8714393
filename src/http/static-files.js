'use strict'

// The console's and the docs' static files, compressed once (brotli and
// gzip) and kept in memory, instead of per request: Swagger UI's bundle is
// 1.7 MB as it is and 0.39 MB in brotli, which costs about 0.15 s of CPU to
// make (quality 9; quality 11 saves 8 % more for 3.5 s, in every worker:
// bench/reports/2026-12-06-compression).
// Each file is compressed at its first request that accepts a coding (that
// request waits for it) and again only when it changes on disk (its size
// or time); a worker keeps only what was asked of it.
//
// Served here: GET and HEAD of the folder's text files (no image: those
// are compressed already) of at least `minBytes`, to a client that
// accepts br or gzip (compression.js negotiates). Everything else, and
// every file if compressing fails, goes on to express.static, which serves
// the file as it is. Ranges are not served compressed (the whole file is,
// with 200), as RFC 9110 allows.
//
// The files are found at start, by listing the folder: a request names a
// file of that list or nothing here, so no path from a request reaches the
// file system.

const fs = require('node:fs')
const path = require('node:path')
const zlib = require('node:zlib')
const { promisify } = require('node:util')
const { preferredCoding } = require('./compression')

const brotli = promisify(zlib.brotliCompress)
const gzip = promisify(zlib.gzip)

const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.svg', '.txt'])

async function compressFile (file) {
  const body = await fs.promises.readFile(file)
  const [br, gz] = await Promise.all([
    brotli(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 9,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length
      }
    }),
    gzip(body, { level: 9 })
  ])
  return { br, gzip: gz }
}

// URL path under the mount point -> file, for the folder's compressible
// files (dot files left out, as express.static leaves them); '/' is the
// index, where the folder has one.
function listFiles (root, index) {
  const files = new Map()
  const walk = (dir, prefix) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full, `${prefix}${entry.name}/`)
      else if (entry.isFile() && COMPRESSIBLE.has(path.extname(entry.name).toLowerCase())) files.set(prefix + entry.name, full)
    }
  }
  walk(root, '/')
  if (index && files.has('/' + index)) files.set('/', files.get('/' + index))
  return files
}

// Middleware for the folder `root`, mounted where express.static(root)
// is, before it. `index`: the file a request for the folder itself gets.
function precompressedFiles (root, { index = null, minBytes }) {
  const files = listFiles(root, index)
  const compressed = new Map() // file -> { version, variants: Promise<{ br, gzip }> }

  function variantsOf (file, stat) {
    const version = `${stat.size}-${stat.mtimeMs}`
    const known = compressed.get(file)
    if (known && known.version === version) return known.variants
    const variants = compressFile(file)
    compressed.set(file, { version, variants })
    variants.catch(() => { if (compressed.get(file) && compressed.get(file).variants === variants) compressed.delete(file) })
    return variants
  }

  async function serve (req, res, file) {
    let stat
    try {
      stat = await fs.promises.stat(file)
    } catch {
      return false
    }
    if (stat.size < minBytes) return false
    res.vary('Accept-Encoding')
    const coding = preferredCoding(req.headers['accept-encoding'])
    if (!coding) return false
    let variants
    try {
      variants = await variantsOf(file, stat)
    } catch (err) {
      req.log.warn({ err, file }, 'compressing a static file failed; served as it is')
      return false
    }
    const body = variants[coding]
    res.type(path.extname(file))
    res.setHeader('Cache-Control', 'public, max-age=0') // as express.static's (console-routes.js)
    res.setHeader('Last-Modified', stat.mtime.toUTCString())
    // Another representation than the file's own: an ETag of its own
    // (express.static's is W/"<size>-<mtime>", both in hex).
    res.setHeader('ETag', `W/"${stat.size.toString(16)}-${stat.mtime.getTime().toString(16)}-${coding}"`)
    if (req.fresh) {
      res.status(304).end()
      return true
    }
    res.setHeader('Content-Encoding', coding)
    res.setHeader('Content-Length', body.length)
    res.status(200).end(req.method === 'HEAD' ? undefined : body)
    return true
  }

  return function servePrecompressed (req, res, next) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next()
    const file = files.get(req.path)
    // the folder without its slash: express.static redirects it
    if (!file || (req.path === '/' && !req.originalUrl.split('?')[0].endsWith('/'))) return next()
    serve(req, res, file).then((served) => { if (!served) next() }, next)
  }
}

module.exports = { precompressedFiles }

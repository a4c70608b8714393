'use strict'

// Where `lrs credential create` gets a secret: never from its arguments,
// which shells keep in their history and `ps` shows to every user. From
// the variable named by --secret-env, from stdin when it is piped, or typed
// at a prompt that does not echo it when stdin is a terminal (twice, to
// catch a typo nobody could see). Or made up (--generate) and shown once.

const crypto = require('node:crypto')
const { SECRET_MIN_LENGTH: MIN_LENGTH, SECRET_MAX_LENGTH: MAX_LENGTH, SECRET_PATTERN } = require('../auth/credential-rules')
const { readAll } = require('./common')

// One line typed without echo; Ctrl-C cancels. Prompts go to stderr, so
// stdout holds only the command's result.
function promptHidden (io, question) {
  const { stdin, stderr } = io
  return new Promise((resolve, reject) => {
    let value = ''
    const finish = (err) => {
      stdin.off('data', onData)
      stdin.setRawMode(false)
      stdin.pause()
      stderr.write('\n')
      if (err) reject(err)
      else resolve(value)
    }
    const onData = (chunk) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish()
        if (ch === '\u0003') return finish(new Error('cancelled'))
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1)
        else value += ch
      }
    }
    stderr.write(question)
    stdin.setEncoding('utf8')
    stdin.setRawMode(true)
    stdin.resume()
    stdin.on('data', onData)
  })
}

// { secret, generated } or { problem } (a sentence for a usage error).
async function readSecret (io, { secretEnv, generate }) {
  let secret
  if (generate) return { secret: crypto.randomBytes(24).toString('base64url'), generated: true }
  if (secretEnv) {
    secret = io.env[secretEnv]
    if (secret === undefined || secret === '') return { problem: `the variable ${secretEnv} (--secret-env) is not set` }
  } else if (io.stdin.isTTY) {
    secret = await promptHidden(io, 'secret (not shown): ')
    const again = await promptHidden(io, 'the same secret again: ')
    if (again !== secret) return { problem: 'the two secrets typed differ' }
  } else {
    secret = (await readAll(io.stdin)).replace(/\r?\n$/, '') // a file or `echo` ends with a newline
  }
  if (secret.length < MIN_LENGTH || secret.length > MAX_LENGTH) return { problem: `a secret has ${MIN_LENGTH} to ${MAX_LENGTH} characters (this one has ${secret.length}); --generate makes one` }
  if (!new RegExp(SECRET_PATTERN).test(secret)) return { problem: 'a secret holds no control characters (a second line, a tab)' }
  return { secret, generated: false }
}

module.exports = { readSecret }

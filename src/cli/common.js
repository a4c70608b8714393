'use strict'

// What every command of src/cli/ shares: its action's exit code, usage
// errors, the configuration and the store.

const { loadConfig } = require('../config')
const { storeDirectory } = require('../stores/store-directory')
const { createToolLogger } = require('../logger')
const { openStorage } = require('../storage')
const { useMboxCase } = require('../resources/agents/agent-keys')

// An action for commander that records the exit code the command returns
// (commander keeps no result; src/cli/index.js reads program.exitCode).
function action (fn) {
  return async function (...args) {
    const code = await fn.apply(this, args)
    let root = this
    while (root.parent) root = root.parent
    root.exitCode = code ?? 0
  }
}

// A wrong command line, found after parsing (a bad scope, a secret on the
// command line): one line and the hint to --help, exit code 2.
function usageError (cmd, message) {
  cmd.error(`error: ${message}`, { exitCode: 2, code: 'lrs.usage' })
}

// The configuration, or an error in one line that says how to see why.
function configOf (io) {
  try {
    return loadConfig(io.env)
  } catch (err) {
    throw new Error(`${err.message} (run "lrs config" to see every setting)`)
  }
}

// The store of `config` for `fn(storage)`, closed afterwards. Its own log
// lines (database ready) would only be noise for a command: errors only.
async function withStorage (config, fn) {
  const storage = openStorage(config, createToolLogger({ ...config, logLevel: 'error' }))
  try {
    await storage.ready
    useMboxCase(await storage.settings.mboxCase()) // before any key is made (agent-keys.js)
    return await fn(storage)
  } finally {
    await storage.close()
  }
}

// The number of the store `--store <id>` names (the default store's when
// not given); an unknown id is NotFound.
async function storeNumber (storage, id) {
  if (id === undefined) return 0
  return (await storeDirectory(storage).byId(id)).number
}

// What a piped stdin (or any stream) holds, as text.
async function readAll (stream) {
  const chunks = []
  for await (const chunk of stream) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks).toString('utf8')
}

module.exports = { action, usageError, configOf, withStorage, storeNumber, readAll }

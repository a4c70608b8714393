'use strict'

// Export-like NDJSON files of the generator's statements (each with id,
// stored, authority and version, as `npm run export` writes them), written
// as they are made and read back a line at a time: a million statements
// are 2 GB, never one string or one array.

const fs = require('node:fs')
const readline = require('node:readline')
const crypto = require('node:crypto')
const { scormStatement } = require('./statement-generator')

// Statements from..from + count of the generator; `storedOf(i)`: the Date
// of the i-th (0-based) of them.
async function writeExportFile (file, { from = 0, count, authority, storedOf }) {
  const out = fs.createWriteStream(file)
  for (let i = 0; i < count; i++) {
    const line = JSON.stringify({ ...scormStatement(from + i), id: crypto.randomUUID(), authority, stored: storedOf(i).toISOString(), version: '1.0.0' }) + '\n'
    if (!out.write(line)) await new Promise((resolve) => out.once('drain', resolve))
  }
  await new Promise((resolve, reject) => out.end((err) => (err ? reject(err) : resolve())))
}

// The file's lines, `size` at a time.
async function * lineChunks (file, size) {
  let chunk = []
  for await (const line of readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity })) {
    if (!line) continue
    chunk.push(line)
    if (chunk.length === size) {
      yield chunk
      chunk = []
    }
  }
  if (chunk.length) yield chunk
}

module.exports = { writeExportFile, lineChunks }

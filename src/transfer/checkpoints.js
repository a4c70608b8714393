'use strict'

// Where an import of a file got to: LRS_DATA_DIR/imports/<hash>.json,
// named after the file's absolute path (and the store it goes to, but
// the default one), and valid only while the file keeps its size and
// modification time.

const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')

function fileCheckpoints (dataDir, { restart = false, store = 0 } = {}) {
  const dir = path.join(dataDir, 'imports')
  const nameOf = (file) => path.join(dir, crypto.createHash('sha1').update(path.resolve(file) + (store ? `\0${store}` : '')).digest('hex') + '.json')
  const identity = async (file) => {
    const st = await fs.promises.stat(file)
    return { file: path.resolve(file), size: st.size, mtimeMs: st.mtimeMs }
  }
  return {
    async load (file) {
      const me = await identity(file)
      if (restart) return { offset: 0, counts: {}, size: me.size }
      try {
        const saved = JSON.parse(await fs.promises.readFile(nameOf(file), 'utf8'))
        if (saved.size === me.size && saved.mtimeMs === me.mtimeMs) return { offset: saved.offset, counts: saved.counts, size: me.size }
      } catch {}
      return { offset: 0, counts: {}, size: me.size }
    },
    async save (file, { offset, counts }) {
      await fs.promises.mkdir(dir, { recursive: true })
      const tmp = nameOf(file) + '.tmp'
      await fs.promises.writeFile(tmp, JSON.stringify({ ...(await identity(file)), offset, counts }))
      await fs.promises.rename(tmp, nameOf(file))
    },
    async done (file) {
      await fs.promises.rm(nameOf(file), { force: true })
    }
  }
}

module.exports = { fileCheckpoints }

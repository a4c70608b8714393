'use strict'

// Wraps a repository so that its engine's errors reach callers as
// catalogue errors (each engine's translateError says which).
function translateErrors (repository, translateError) {
  return Object.fromEntries(Object.entries(repository).map(([name, fn]) => [name, async (...args) => {
    try {
      return await fn(...args)
    } catch (err) {
      throw translateError(err)
    }
  }]))
}

module.exports = { translateErrors }

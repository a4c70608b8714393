'use strict'

// Wraps a repository so that its engine's errors reach callers as
// catalogue errors (each engine's translateError says which). What is not
// a function (a description such as statements.order) passes as it is.
function translateErrors (repository, translateError) {
  return Object.fromEntries(Object.entries(repository).map(([name, fn]) => [name, typeof fn !== 'function' ? fn : async (...args) => {
    try {
      return await fn(...args)
    } catch (err) {
      throw translateError(err)
    }
  }]))
}

module.exports = { translateErrors }

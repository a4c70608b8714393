'use strict'

// The bench's statement profiles (bench/statement-generator.js): each has
// the cardinality its name promises, and the cheap request bodies carry
// the same statements as the generator.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { scormStatement, statementBodies, describeProfile, PROFILES } = require('../../bench/statement-generator')

function shape (name, n) {
  const learners = new Set()
  const registrations = new Map()
  const activities = new Set()
  for (let i = 0; i < n; i++) {
    const s = scormStatement(i, name)
    learners.add(s.actor.account.name)
    registrations.set(s.context.registration, (registrations.get(s.context.registration) || 0) + 1)
    activities.add(s.object.id)
  }
  return { learners: learners.size, registrations, activities: activities.size }
}

test('campus: a registration per 20 statements, learners spread over 100,000, activities from 20,100', () => {
  const { learners, registrations, activities } = shape('campus', 40000)
  assert.equal(registrations.size, 2000)
  assert.ok([...registrations.values()].every((n) => n === 20))
  assert.equal(learners, 2000, 'each attempt its own learner while fewer attempts than learners')
  assert.ok(activities > 10000 && activities <= 20100, `${activities} activities`)
  assert.equal(describeProfile('campus').activities, 20100)
})

test('worst: a new registration for every statement; small: the 5,000 learner and course pairs of waves 1-3', () => {
  assert.equal(shape('worst', 5000).registrations.size, 5000)
  const small = shape('small', 20000)
  assert.equal(small.learners, 5000)
  assert.equal(small.registrations.size, 5000)
  assert.equal(describeProfile('small').learners, PROFILES.small.learners)
})

test('campus learners come round in a scrambled order: every one of 100,000 once per 100,000 attempts', () => {
  const seen = new Set()
  for (let attempt = 0; attempt < 100000; attempt++) seen.add(scormStatement(attempt * 20, 'campus').actor.account.name)
  assert.equal(seen.size, 100000)
})

test('the request bodies carry the generator\'s statements: actor, verb, object, registration and context, in order', () => {
  for (const name of Object.keys(PROFILES)) {
    const sent = JSON.parse(statementBodies(30, { from: 4321, name })())
    const key = (s) => JSON.stringify([s.actor, s.verb, s.object, s.context.registration, s.context.contextActivities])
    sent.forEach((s, j) => assert.equal(key(s), key(scormStatement(4321 + j, name)), `${name} statement ${4321 + j}`))
    assert.notEqual(sent[0].context.extensions['http://lms.example.com/xapi/extensions/session-id'], sent[1].context.extensions['http://lms.example.com/xapi/extensions/session-id'])
  }
})

test('an unknown profile is refused with the known ones', () => {
  assert.throws(() => scormStatement(1, 'huge'), /unknown statement profile 'huge'; known: small, campus, worst/)
})

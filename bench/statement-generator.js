'use strict'

// Realistic SCORM-profile-like statements of about 1.8 KB: actor, verb,
// activity with definition and extensions, result, context with
// registration and contextActivities, timestamp.

const crypto = require('node:crypto')

const VERBS = ['completed', 'passed', 'failed', 'answered', 'experienced', 'attempted', 'progressed']

// One registration per learner and course, as a SCORM or cmi5 player sends
// it for every statement of an attempt.
function registrationOf (learner, course) {
  const h = crypto.createHash('sha1').update(`${learner}|${course}`).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`
}

function scormStatement (i = 0) {
  const learner = i % 5000
  const course = `http://lms.example.com/courses/course-${i % 40}`
  const sco = `${course}/scos/sco-${i % 12}`
  const verb = VERBS[i % VERBS.length]
  return {
    actor: {
      objectType: 'Agent',
      name: `Learner ${learner}`,
      account: { homePage: 'http://lms.example.com', name: `learner-${learner}` }
    },
    verb: { id: `http://adlnet.gov/expapi/verbs/${verb}`, display: { 'en-US': verb } },
    object: {
      objectType: 'Activity',
      id: `${sco}/interactions/q${i % 25}`,
      definition: {
        name: { 'en-US': `Question ${i % 25} of the module on workplace safety procedures` },
        description: { 'en-US': 'Select the correct procedure for reporting an incident on the shop floor, in order.' },
        type: 'http://adlnet.gov/expapi/activities/cmi.interaction',
        interactionType: 'choice',
        correctResponsesPattern: ['report[,]isolate[,]document'],
        choices: [
          { id: 'report', description: { 'en-US': 'Report to the supervisor' } },
          { id: 'isolate', description: { 'en-US': 'Isolate the area' } },
          { id: 'document', description: { 'en-US': 'Document what happened' } }
        ],
        extensions: {
          'http://lms.example.com/xapi/extensions/scorm-interaction-index': i % 25,
          'http://lms.example.com/xapi/extensions/weighting': 1.0
        }
      }
    },
    result: {
      score: { scaled: 0.8, raw: 8, min: 0, max: 10 },
      success: i % 3 !== 0,
      completion: true,
      response: 'report[,]isolate[,]document',
      duration: `PT${(i % 600) + 1}.25S`,
      extensions: { 'http://lms.example.com/xapi/extensions/attempt': (i % 4) + 1 }
    },
    context: {
      registration: registrationOf(learner, i % 40),
      revision: '3',
      platform: 'Example LMS 12.4',
      language: 'en-US',
      contextActivities: {
        parent: [{ id: sco, objectType: 'Activity' }],
        grouping: [{ id: course, objectType: 'Activity' }],
        category: [{ id: 'https://w3id.org/xapi/scorm', objectType: 'Activity', definition: { type: 'http://adlnet.gov/expapi/activities/profile' } }]
      },
      extensions: { 'http://lms.example.com/xapi/extensions/session-id': crypto.randomUUID() }
    },
    timestamp: new Date(Date.now() - (i % 1000) * 1000).toISOString()
  }
}

module.exports = { scormStatement, registrationOf }

if (require.main === module) {
  const s = JSON.stringify(scormStatement(7))
  process.stdout.write(`${s.length} bytes\n${s}\n`)
}

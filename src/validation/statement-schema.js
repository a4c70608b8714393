'use strict'

// JSON Schemas for xAPI statements (1.0.3 Data 2.4, 2.0 §4.2.2). They say
// the structure: types, required properties, and no unknown properties
// (anything outside `extensions` that the spec does not define is rejected,
// Data 2.2.s4.b8 / 2.0 §4.2.1). What a schema cannot say well (exactly one
// IFI, interaction rules, score bounds, context rules that depend on the
// object type) lives in statement-rules.js.

const languageMap = { type: 'object', propertyNames: { format: 'language-tag' }, additionalProperties: { type: 'string' } }
const iri = { type: 'string', format: 'iri' }
const extensions = { type: 'object', propertyNames: { format: 'iri' } }
// Name and inverse functional identifiers, shared by Agent and Group.
const actorProperties = {
  name: { type: 'string' },
  mbox: { type: 'string', format: 'mbox' },
  mbox_sha1sum: { type: 'string', format: 'sha1' },
  openid: iri,
  account: { $ref: '#/$defs/account' }
}

function definitions (version) {
  const defs = {
    account: {
      type: 'object',
      required: ['homePage', 'name'],
      additionalProperties: false,
      properties: { homePage: iri, name: { type: 'string' } }
    },
    agent: {
      type: 'object',
      additionalProperties: false,
      properties: { objectType: { const: 'Agent' }, ...actorProperties }
    },
    group: {
      type: 'object',
      required: ['objectType'],
      additionalProperties: false,
      properties: {
        objectType: { const: 'Group' },
        ...actorProperties,
        member: { type: 'array', items: { $ref: '#/$defs/agent' } }
      }
    },
    actor: {
      if: { type: 'object', properties: { objectType: { const: 'Group' } }, required: ['objectType'] },
      then: { $ref: '#/$defs/group' },
      else: { $ref: '#/$defs/agent' }
    },
    verb: {
      type: 'object',
      required: ['id'],
      additionalProperties: false,
      properties: { id: iri, display: languageMap }
    },
    interactionComponents: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id'],
        additionalProperties: false,
        properties: { id: { type: 'string', minLength: 1 }, description: languageMap }
      }
    },
    activityDefinition: {
      type: 'object',
      additionalProperties: false,
      properties: {
        name: languageMap,
        description: languageMap,
        type: iri,
        moreInfo: iri,
        extensions,
        interactionType: { enum: ['true-false', 'choice', 'fill-in', 'long-fill-in', 'matching', 'performance', 'sequencing', 'likert', 'numeric', 'other'] },
        correctResponsesPattern: { type: 'array', items: { type: 'string' } },
        choices: { $ref: '#/$defs/interactionComponents' },
        scale: { $ref: '#/$defs/interactionComponents' },
        source: { $ref: '#/$defs/interactionComponents' },
        target: { $ref: '#/$defs/interactionComponents' },
        steps: { $ref: '#/$defs/interactionComponents' }
      }
    },
    activity: {
      type: 'object',
      required: ['id'],
      additionalProperties: false,
      properties: {
        objectType: { const: 'Activity' },
        id: iri,
        definition: { $ref: '#/$defs/activityDefinition' }
      }
    },
    statementRef: {
      type: 'object',
      required: ['objectType', 'id'],
      additionalProperties: false,
      properties: { objectType: { const: 'StatementRef' }, id: { type: 'string', format: 'uuid' } }
    },
    score: {
      type: 'object',
      additionalProperties: false,
      properties: {
        scaled: { type: 'number', minimum: -1, maximum: 1 },
        raw: { type: 'number' },
        min: { type: 'number' },
        max: { type: 'number' }
      }
    },
    result: {
      type: 'object',
      additionalProperties: false,
      properties: {
        score: { $ref: '#/$defs/score' },
        success: { type: 'boolean' },
        completion: { type: 'boolean' },
        response: { type: 'string' },
        duration: { type: 'string', format: 'duration' },
        extensions
      }
    },
    contextActivityList: {
      anyOf: [
        { $ref: '#/$defs/activity' },
        { type: 'array', items: { $ref: '#/$defs/activity' } }
      ]
    },
    context: {
      type: 'object',
      additionalProperties: false,
      properties: {
        registration: { type: 'string', format: 'uuid' },
        instructor: { $ref: '#/$defs/actor' },
        team: { $ref: '#/$defs/group' },
        contextActivities: {
          type: 'object',
          additionalProperties: false,
          properties: {
            parent: { $ref: '#/$defs/contextActivityList' },
            grouping: { $ref: '#/$defs/contextActivityList' },
            category: { $ref: '#/$defs/contextActivityList' },
            other: { $ref: '#/$defs/contextActivityList' }
          }
        },
        revision: { type: 'string' },
        platform: { type: 'string' },
        language: { type: 'string', format: 'language-tag' },
        statement: { $ref: '#/$defs/statementRef' },
        extensions
      }
    },
    attachment: {
      type: 'object',
      required: ['usageType', 'display', 'contentType', 'length', 'sha2'],
      additionalProperties: false,
      properties: {
        usageType: iri,
        display: languageMap,
        description: languageMap,
        contentType: { type: 'string', minLength: 1 },
        length: { type: 'integer', minimum: 0 },
        sha2: { type: 'string', format: 'sha2' },
        fileUrl: iri
      }
    },
    statementObject: objectOf(['activity', 'agent', 'group', 'statementRef', 'subStatement']),
    subStatementObject: objectOf(['activity', 'agent', 'group', 'statementRef']),
    subStatement: {
      type: 'object',
      required: ['objectType', 'actor', 'verb', 'object'],
      additionalProperties: false,
      properties: {
        objectType: { const: 'SubStatement' },
        actor: { $ref: '#/$defs/actor' },
        verb: { $ref: '#/$defs/verb' },
        object: { $ref: '#/$defs/subStatementObject' },
        result: { $ref: '#/$defs/result' },
        context: { $ref: '#/$defs/context' },
        timestamp: { type: 'string', format: 'timestamp' },
        attachments: { type: 'array', items: { $ref: '#/$defs/attachment' } }
      }
    }
  }
  if (version === '2.0.0') {
    // 2.0 §4.2.2.5: contextAgents / contextGroups.
    const relevantTypes = { type: 'array', minItems: 1, items: iri }
    defs.context.properties.contextAgents = {
      type: 'array',
      items: {
        type: 'object',
        required: ['objectType', 'agent'],
        additionalProperties: false,
        properties: { objectType: { const: 'contextAgent' }, agent: { $ref: '#/$defs/agent' }, relevantTypes }
      }
    }
    defs.context.properties.contextGroups = {
      type: 'array',
      items: {
        type: 'object',
        required: ['objectType', 'group'],
        additionalProperties: false,
        properties: { objectType: { const: 'contextGroup' }, group: { $ref: '#/$defs/group' }, relevantTypes }
      }
    }
  }
  return defs
}

// Dispatch on objectType so an error names the right shape
// (absent objectType means Activity, Data 2.4.4.s2).
function objectOf (kinds) {
  const byType = { activity: 'Activity', agent: 'Agent', group: 'Group', statementRef: 'StatementRef', subStatement: 'SubStatement' }
  let schema = { $ref: '#/$defs/activity' }
  for (const kind of kinds.filter((k) => k !== 'activity').reverse()) {
    schema = {
      if: { type: 'object', properties: { objectType: { const: byType[kind] } }, required: ['objectType'] },
      then: { $ref: `#/$defs/${kind}` },
      else: schema
    }
  }
  return { type: 'object', properties: { objectType: { enum: kinds.map((k) => byType[k]) } }, allOf: [schema] }
}

function statementSchema (version) {
  return {
    $id: `xapi-statement-${version}`,
    type: 'object',
    required: ['actor', 'verb', 'object'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', format: 'uuid' },
      actor: { $ref: '#/$defs/actor' },
      verb: { $ref: '#/$defs/verb' },
      object: { $ref: '#/$defs/statementObject' },
      result: { $ref: '#/$defs/result' },
      context: { $ref: '#/$defs/context' },
      timestamp: { type: 'string', format: 'timestamp' },
      stored: { type: 'string', format: 'timestamp' },
      authority: { $ref: '#/$defs/actor' },
      version: { type: 'string' },
      attachments: { type: 'array', items: { $ref: '#/$defs/attachment' } }
    },
    $defs: definitions(version)
  }
}

module.exports = { statementSchema }
